// What each task operation costs in AWS calls, counted on the real clients (DynamoDB Local, the Step Functions
// emulator): a listing never calls Step Functions, and a new task's first poll looks at its execution at once and
// records what it found in one write; a new instance reads its declared tool catalog once.
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { StepFunctionsExecutor } from '../../lambda/executor/step-functions-executor.js';
import { DynamoDbTaskStore } from '../../lambda/store/dynamodb-task-store.js';
import type { TaskStore } from '../../lambda/store/task-store.js';
import { countAwsCalls, type AwsCallCounter } from '../../local/aws-call-counter.js';
import {
  connectClient,
  GENEROUS_WAIT,
  localAwsClients,
  startTestServer,
  type TestServer,
} from '../support/local-backend.js';

let server: TestServer;
let client: Client;
let counter: AwsCallCounter;
/** The table and the emulator as the test itself sees them, on clients the counter does not count. */
let uncountedStore: TaskStore;
let uncountedExecutor: StepFunctionsExecutor;

beforeAll(async () => {
  const clients = localAwsClients();
  counter = countAwsCalls(clients);
  // A refresh interval far longer than the test: any Step Functions call below is one the operation itself makes.
  server = await startTestServer({ refreshIntervalMs: 600_000, pollIntervalMs: 600_000 }, { clients });
  client = await connectClient(server.url);
  const uncounted = localAwsClients();
  uncountedStore = new DynamoDbTaskStore({
    client: DynamoDBDocumentClient.from(uncounted.dynamoDb),
    tableName: server.tableName,
  });
  uncountedExecutor = new StepFunctionsExecutor({ client: uncounted.stepFunctions });
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});
beforeEach(() => counter.reset());

const startTask = async (name: string, args: Record<string, unknown>) =>
  (
    await client.request(
      { method: 'tools/call', params: { name, arguments: args, task: { ttl: 600_000 } } },
      CreateTaskResultSchema,
    )
  ).task;

describe('AWS calls per task operation', () => {
  it('tasks/list: one Query per page and no Step Functions call, whatever the states of the listed tasks', async () => {
    for (let index = 0; index < 3; index++)
      await startTask('analyze_documents', { documents: ['a'], reviewSeconds: 600 });
    const finished = await startTask('text_stats', { text: 'done soon' });
    await client.experimental.tasks.getTaskResult(finished.taskId, CallToolResultSchema);
    counter.reset();
    const page = await client.experimental.tasks.listTasks();
    expect(page.tasks.length).toBeGreaterThanOrEqual(4);
    expect(counter.calls).toEqual({ QueryCommand: 1 });
  });

  it('tasks/get: the first poll of a new task describes its execution at once, later polls only read the store', async () => {
    const task = await startTask('analyze_documents', { documents: ['a'], reviewSeconds: 600 });
    counter.reset();
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('working');
    // A refresh of a running task: its status, and the state it is in from one page of its history.
    expect(counter.calls['DescribeExecutionCommand']).toBe(1);
    expect(counter.calls['GetExecutionHistoryCommand']).toBe(1);
    expect(counter.total('stepFunctions')).toBe(2);
    counter.reset();
    await client.experimental.tasks.getTask(task.taskId);
    expect(counter.calls).toEqual({ GetItemCommand: 1 });
    expect(counter.total('stepFunctions')).toBe(0);
  });

  it('tasks/get: a first refresh that finds the execution in a state records it with the move to working, in one UpdateItem', async () => {
    const task = await startTask('analyze_documents', { documents: ['a'], reviewSeconds: 600 });
    // Looked at from outside the counted clients: wait until the execution's history names a state.
    const { executionArn } = (await uncountedStore.get('alice', task.taskId))!;
    await vi.waitUntil(async () => (await uncountedExecutor.currentStep(executionArn)) !== null, GENEROUS_WAIT);
    counter.reset();
    const polled = await client.experimental.tasks.getTask(task.taskId);
    expect(polled).toMatchObject({ status: 'working', statusMessage: expect.stringMatching(/^Running \w+$/) });
    // The refresh claim, then one write of the new status and the step together.
    expect(counter.calls['UpdateItemCommand']).toBe(2);
    expect((await uncountedStore.get('alice', task.taskId))?.currentStep).toBe(
      polled.statusMessage!.replace(/^Running /, ''),
    );
    await client.experimental.tasks.cancelTask(task.taskId);
  });

  it('tasks/result of a fast tool sees the finished execution without waiting for a refresh interval', async () => {
    // The refresh interval here is ten minutes: only the wait's own short, growing pauses can see the end in time.
    const task = await startTask('text_stats', { text: 'one two' });
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.isError).not.toBe(true);
    expect(counter.total('stepFunctions')).toBeGreaterThanOrEqual(1);
  });
});

describe('AWS calls per poll with task events and webhooks on, as deployed', () => {
  let eventsServer: TestServer;
  let eventsClient: Client;
  let eventsCounter: AwsCallCounter;

  beforeAll(async () => {
    const clients = localAwsClients();
    eventsCounter = countAwsCalls(clients);
    // The MCP function refreshes from Step Functions once in ten minutes: status sync keeps the task current.
    eventsServer = await startTestServer(
      { refreshIntervalMs: 600_000, pollIntervalMs: 600_000 },
      { clients, events: { allowLoopbackHttp: true } },
    );
    eventsClient = await connectClient(eventsServer.url);
  });
  afterAll(async () => {
    await eventsClient?.close();
    await eventsServer?.close();
  });

  it('tasks/get of a task the status events keep current: one GetItem, no Step Functions call, no subscription Query', async () => {
    const { task } = await eventsClient.request(
      { method: 'tools/call', params: { name: 'text_stats', arguments: { text: 'a b' }, task: { ttl: 600_000 } } },
      CreateTaskResultSchema,
    );
    await vi.waitUntil(
      async () => (await eventsServer.backend.store.get('alice', task.taskId))?.status === 'completed',
      GENEROUS_WAIT,
    );
    // The owner's webhook status is read once per instance in a window (owner-summary-cache.ts); then each poll is one
    // read.
    await eventsClient.experimental.tasks.getTask(task.taskId);
    eventsCounter.reset();
    for (let poll = 0; poll < 3; poll++)
      expect((await eventsClient.experimental.tasks.getTask(task.taskId)).status).toBe('completed');
    expect(eventsCounter.calls).toEqual({ GetItemCommand: 3 });
  });
});

describe('AWS calls for the declared tool catalog, as deployed', () => {
  it('a fresh instance reads the catalog with one GetItem at its first request, and never again', async () => {
    const clients = localAwsClients();
    const catalogCounter = countAwsCalls(clients);
    const instance = await startTestServer({}, { clients, declaredCatalog: true });
    const fresh = await connectClient(instance.url);
    try {
      expect(catalogCounter.calls).toEqual({ GetItemCommand: 1 });
      catalogCounter.reset();
      expect((await fresh.listTools()).tools.map((tool) => tool.name)).toContain('text_stats');
      await fresh.listTools();
      await fresh.ping();
      expect(catalogCounter.total()).toBe(0);
    } finally {
      await fresh.close();
      await instance.close();
    }
  });
});
