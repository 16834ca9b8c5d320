// What each task operation costs in AWS calls, counted on the real clients (DynamoDB Local, the Step Functions
// emulator): polls, waits and listings read only the table, which the status events keep current (their stand-in runs
// on clients of its own, as the status-sync function does in AWS), and the reconciler's check of a running task is
// one describe, one page of history and one claim; a new instance reads its declared tool catalog once; a durable
// function's task costs Lambda one Invoke to start and nothing to poll.
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DynamoDbTaskStore } from '../../lambda/store/dynamodb-task-store.js';
import type { TaskStore } from '../../lambda/store/task-store.js';
import { countAwsCalls, type AwsCallCounter } from '../../local/aws-call-counter.js';
import { durableExecutionOf } from '../support/durable-executions.js';
import {
  connectClient,
  durableTools,
  GENEROUS_WAIT,
  localAwsClients,
  progressTable,
  startTestServer,
  type TestServer,
} from '../support/local-backend.js';

let server: TestServer;
let client: Client;
let counter: AwsCallCounter;
/** The table and the emulator as the test itself sees them, on clients the counter does not count. */
let uncountedStore: TaskStore;

beforeAll(async () => {
  const clients = localAwsClients();
  counter = countAwsCalls(clients);
  server = await startTestServer({ pollIntervalMs: 600_000 }, { clients });
  client = await connectClient(server.url);
  const uncounted = localAwsClients();
  uncountedStore = new DynamoDbTaskStore({
    client: DynamoDBDocumentClient.from(uncounted.dynamoDb),
    tableName: server.tableName,
  });
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

  it('tasks/get: every poll is one GetItem and no Step Functions call, from the first', async () => {
    const task = await startTask('analyze_documents', { documents: ['a'], reviewSeconds: 600 });
    counter.reset();
    for (let poll = 0; poll < 3; poll++) await client.experimental.tasks.getTask(task.taskId);
    expect(counter.calls).toEqual({ GetItemCommand: 3 });
    await client.experimental.tasks.cancelTask(task.taskId);
  });

  it('the reconciler: a check of a running task is one read, one claim, one describe and one page of history', async () => {
    const task = await startTask('analyze_documents', { documents: ['a'], reviewSeconds: 600 });
    // Made due now, from outside the counted clients (its first check would come a minute after its creation).
    const stored = (await uncountedStore.get('alice', task.taskId))!;
    const now = Date.now();
    await uncountedStore.claimCheck(stored, now, now - 1);
    await vi.waitUntil(
      async () => (await uncountedStore.get('alice', task.taskId))?.currentStep !== undefined,
      GENEROUS_WAIT,
    );
    counter.reset();
    const report = await server.backend.service.reconcileDue({ maxChecks: 100 });
    expect(report.checked).toBeGreaterThanOrEqual(1);
    expect(counter.calls).toMatchObject({
      DescribeExecutionCommand: report.checked,
      GetExecutionHistoryCommand: report.checked,
      GetItemCommand: report.checked,
      UpdateItemCommand: report.checked,
    });
    // One Query per shard of the check index.
    expect(counter.calls['QueryCommand']).toBe(8);
    expect((await uncountedStore.get('alice', task.taskId))?.nextCheckAt).toBeGreaterThan(now);
    await client.experimental.tasks.cancelTask(task.taskId);
  });

  it('tasks/result of a fast tool: only reads of the table, which the status event brings the end to', async () => {
    const task = await startTask('text_stats', { text: 'one two' });
    counter.reset();
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.isError).not.toBe(true);
    expect(counter.total('stepFunctions')).toBe(0);
    expect(Object.keys(counter.calls)).toEqual(['GetItemCommand']);
  });
});

describe('AWS calls per poll with task events and webhooks on, as deployed', () => {
  let eventsServer: TestServer;
  let eventsClient: Client;
  let eventsCounter: AwsCallCounter;

  beforeAll(async () => {
    const clients = localAwsClients();
    eventsCounter = countAwsCalls(clients);
    eventsServer = await startTestServer({ pollIntervalMs: 600_000 }, { clients, events: { allowLoopbackHttp: true } });
    eventsClient = await connectClient(eventsServer.url);
  });
  afterAll(async () => {
    await eventsClient?.close();
    await eventsServer?.close();
  });

  it('a task-augmented tools/call: the task stored, its two per-owner limit counters, one StartExecution', async () => {
    // The first call of the instance also reads the tool catalog; the second is what every create costs.
    const call = () =>
      eventsClient.request(
        { method: 'tools/call', params: { name: 'text_stats', arguments: { text: 'a b' }, task: { ttl: 600_000 } } },
        CreateTaskResultSchema,
      );
    await call();
    eventsCounter.reset();
    await call();
    // PutItem: the task; UpdateItem: the owner's creations this minute, and its place among its active tasks (both
    // conditional, one small item each: creation-limit.ts, dynamodb-owner-quotas.ts). No read, no subscription Query:
    // the events a create makes come from the table's stream, in another function.
    expect(eventsCounter.calls).toEqual({ PutItemCommand: 1, UpdateItemCommand: 2, StartExecutionCommand: 1 });
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
  it('a fresh instance reads the catalog with one GetItem at its first request that needs a tool, and never again', async () => {
    const clients = localAwsClients();
    const catalogCounter = countAwsCalls(clients);
    const instance = await startTestServer({}, { clients, declaredCatalog: true });
    const fresh = await connectClient(instance.url);
    try {
      // The handshake (initialize, notifications/initialized) needs no tool.
      expect(catalogCounter.total()).toBe(0);
      expect((await fresh.listTools()).tools.map((tool) => tool.name)).toContain('text_stats');
      expect(catalogCounter.calls).toEqual({ GetItemCommand: 1 });
      catalogCounter.reset();
      await fresh.listTools();
      await fresh.ping();
      expect(catalogCounter.total()).toBe(0);
    } finally {
      await fresh.close();
      await instance.close();
    }
  });
});

describe('AWS calls of a durable function’s task (the local runner of durable functions), as deployed', () => {
  let durableServer: TestServer;
  let durableClient: Client;
  let durableCounter: AwsCallCounter;

  beforeAll(async () => {
    const clients = localAwsClients();
    durableCounter = countAwsCalls(clients);
    durableServer = await startTestServer({}, { clients, tableName: progressTable(), tools: durableTools() });
    durableClient = await connectClient(durableServer.url);
  });
  afterAll(async () => {
    await durableClient?.close();
    await durableServer?.close();
  });

  it('one Invoke to create, one GetItem a poll and no Lambda call, one StopDurableExecution and one describe to cancel', async () => {
    await durableClient.listTools(); // the instance's one read of its tool catalog
    durableCounter.reset();
    const { task } = await durableClient.request(
      {
        method: 'tools/call',
        params: {
          name: 'durable_review',
          arguments: { documents: ['One two three.'], reviewSeconds: 0 },
          task: { ttl: 600_000 },
        },
      },
      CreateTaskResultSchema,
    );
    // The task, the owner's two limit counters, and the start: an asynchronous Invoke named after the task.
    expect(durableCounter.calls).toEqual({ PutItemCommand: 1, UpdateItemCommand: 2, InvokeCommand: 1 });
    // The workflow's question, recorded by the function itself on the table: the task is current without Lambda.
    await vi.waitUntil(
      async () => (await durableServer.backend.store.get('alice', task.taskId))?.status === 'input_required',
      GENEROUS_WAIT,
    );
    durableCounter.reset();
    for (let poll = 0; poll < 3; poll++)
      expect((await durableClient.experimental.tasks.getTask(task.taskId)).status).toBe('input_required');
    expect(durableCounter.calls).toEqual({ GetItemCommand: 3 });
    durableCounter.reset();
    expect((await durableClient.experimental.tasks.cancelTask(task.taskId)).status).toBe('cancelled');
    // Read the task, stop its execution, read what it ended as; record the end and free the owner's active slot. The
    // local runner's status event of the stop may record the cancellation first: then the cancel's conditional record
    // loses, and it reads the task as recorded instead of freeing the slot a second time.
    const recordedByTheCancel = { GetItemCommand: 1, UpdateItemCommand: 2 };
    const recordedByTheStatusEvent = { GetItemCommand: 2, UpdateItemCommand: 1 };
    const { StopDurableExecutionCommand, GetDurableExecutionCommand, ...tableCalls } = durableCounter.calls;
    expect({ StopDurableExecutionCommand, GetDurableExecutionCommand }).toEqual({
      StopDurableExecutionCommand: 1,
      GetDurableExecutionCommand: 1,
    });
    expect([recordedByTheCancel, recordedByTheStatusEvent]).toContainEqual(tableCalls);
    expect(durableCounter.total('lambda')).toBe(2);
    expect(await durableExecutionOf(task.taskId)).toMatchObject({ status: 'STOPPED' });
  });
});
