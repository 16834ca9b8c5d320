// End to end, MCP 2025-11-25: the EXPRESS example tool (extract_keywords) through the official 1.x MCP client over real
// HTTP against the local stack. A plain call runs the EXPRESS machine with StartSyncExecution and stores no task; a
// task runs it inside the STANDARD wrapper (`states:startExecution.sync:2`), which gives it status, cancel and the same
// result and the same task events. AWS calls are counted on the server's own clients.
import { GetExecutionHistoryCommand, ListExecutionsCommand, type SFNClient } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { countAwsCalls, type AwsCallCounter } from '../../local/aws-call-counter.js';
import { DynamoDbTaskStore } from '../../lambda/store/dynamodb-task-store.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema, type Task } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { expressWrapperStateName } from '../../lambda/contract/express-wrapper.js';
import type { AuditEvent } from '../../lambda/core/audit-event.js';
import { taskKey, taskKeyFromExecutionName } from '../../lambda/core/task-key.js';
import { NO_TASK_METRICS } from '../../lambda/core/task-metrics.js';
import {
  connectClient,
  exampleTools,
  expressTools,
  GENEROUS_WAIT,
  localAwsClients,
  startTestServer,
  type TestServer,
} from '../support/local-backend.js';
import { createTask, rpc } from '../support/events-rpc.js';

const TOOL = 'extract_keywords';
const TEXT = 'Keywords come from text: the keywords repeat, the text repeats, and keywords win.';
const KEYWORDS = [
  { keyword: 'keywords', count: 3 },
  { keyword: 'text', count: 2 },
  { keyword: 'come', count: 1 },
];
const NO_KEYWORDS = 'Execution failed: NoKeywords: The text has no words of 4 letters or more to pick keywords from.';

let server: TestServer;
let client: Client;
let clients: ReturnType<typeof localAwsClients>;
let counter: AwsCallCounter;
/** The lifecycle events the server counted. */
const events: AuditEvent[] = [];

beforeAll(async () => {
  clients = localAwsClients();
  counter = countAwsCalls(clients);
  server = await startTestServer(
    { directCallTimeoutMs: 60_000 },
    {
      clients,
      tools: [...exampleTools(), ...expressTools()],
      metrics: { ...NO_TASK_METRICS, taskEvent: (event) => void events.push(event) },
    },
  );
  client = await connectClient(server.url);
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

const tool = () => expressTools().find((candidate) => candidate.name === TOOL)!;

async function startTask(args: Record<string, unknown>, name = TOOL): Promise<Task> {
  const created = await client.request(
    { method: 'tools/call', params: { name, arguments: args, task: { ttl: 60_000 } } },
    CreateTaskResultSchema,
  );
  return created.task;
}

/** The task's wrapper execution, as Step Functions lists it. */
async function wrapperExecutionOf(sfn: SFNClient, taskId: string) {
  const { executions = [] } = await sfn.send(
    new ListExecutionsCommand({ stateMachineArn: tool().stateMachineArn, maxResults: 1000 }),
  );
  const key = taskKey('alice', taskId);
  return executions.find((execution) => taskKeyFromExecutionName(execution.name ?? '') === key);
}

describe('the EXPRESS example tool', () => {
  it('is listed with its schema and optional task support, registered on an EXPRESS machine and its wrapper', async () => {
    const { tools } = await client.listTools();
    const listed = tools.find((candidate) => candidate.name === TOOL)!;
    expect(listed).toMatchObject({ inputSchema: { required: ['text'] }, execution: { taskSupport: 'optional' } });
    expect(tool().expressStateMachineArn).toMatch(/:stateMachine:extract-keywords$/);
    expect(tool().stateMachineArn).toMatch(/:stateMachine:extract-keywords-wrapper$/);
  });
});

describe('a plain call of an EXPRESS tool', () => {
  it('returns the EXPRESS execution’s result, from one StartSyncExecution, and leaves no task', async () => {
    counter.reset();
    events.length = 0;
    const result = await client.callTool({ name: TOOL, arguments: { text: TEXT, maxKeywords: 3 } });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({ keywords: KEYWORDS, words: 13 });
    // One Step Functions call, and one write: the owner's creations per minute. No task item.
    expect(counter.calls).toEqual({ StartSyncExecutionCommand: 1, UpdateItemCommand: 1 });
    expect(events).toEqual(['task.created', 'task.completed']);
    expect((await client.experimental.tasks.listTasks()).tasks).toEqual([]);
  });

  it('answers bad arguments with a tool error and runs nothing', async () => {
    counter.reset();
    events.length = 0;
    const result = await client.callTool({ name: TOOL, arguments: { text: '', waitSeconds: 1_000 } });
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: /^Invalid arguments for tool/ }] });
    expect(counter.total()).toBe(0);
    expect(events).toEqual([]);
  });

  it('answers a failed EXPRESS execution with a tool error carrying its error and cause', async () => {
    const result = await client.callTool({ name: TOOL, arguments: { text: 'a an of it' } });
    expect(result).toEqual({ isError: true, content: [{ type: 'text', text: NO_KEYWORDS }] });
  });
});

describe('a task-augmented call of an EXPRESS tool', () => {
  it('makes the same AWS calls as a STANDARD task: to create it, and to poll it once it has ended', async () => {
    const uncounted = localAwsClients();
    const store = new DynamoDbTaskStore({
      client: DynamoDBDocumentClient.from(uncounted.dynamoDb),
      tableName: server.tableName,
    });
    const callsOf = async (name: string, args: Record<string, unknown>) => {
      counter.reset();
      const task = await startTask(args, name);
      const created = { ...counter.calls };
      // Seen from clients the counter does not count: the status events have recorded the end, for both.
      await vi.waitUntil(async () => (await store.get('alice', task.taskId))?.status === 'completed', GENEROUS_WAIT);
      counter.reset();
      expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('completed');
      return { created, polled: { ...counter.calls } };
    };
    const standard = await callsOf('text_stats', { text: TEXT });
    const express = await callsOf(TOOL, { text: TEXT });
    expect(standard.created).toMatchObject({ StartExecutionCommand: 1 });
    expect(standard.polled).toEqual({ GetItemCommand: 1 });
    expect(express).toEqual(standard);
    uncounted.dynamoDb.destroy();
    uncounted.stepFunctions.destroy();
  });

  it('runs in the wrapper and completes with the same result as a plain call', async () => {
    const args = { text: TEXT, maxKeywords: 3 };
    const plain = await client.callTool({ name: TOOL, arguments: args });
    const task = await startTask(args);
    expect(task.status).toBe('working');
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect({ content: result.content, structuredContent: result.structuredContent }).toEqual(plain);
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('completed');
    expect((await wrapperExecutionOf(clients.stepFunctions, task.taskId))?.status).toBe('SUCCEEDED');
  });

  it('fails with the EXPRESS execution’s own error and cause, as the plain call reports them', async () => {
    const task = await startTask({ text: 'a an of it' });
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: NO_KEYWORDS }] });
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({
      status: 'failed',
      statusMessage: NO_KEYWORDS,
    });
  });

  it('is cancelled while the EXPRESS execution waits: the wrapper is stopped and the task stays cancelled', async () => {
    // The EXPRESS child runs on to its end: Step Functions cannot stop an EXPRESS execution (docs/deploy.md).
    const task = await startTask({ text: TEXT, waitSeconds: 120 });
    const sfn = clients.stepFunctions;
    // Cancel once the wrapper runs the EXPRESS machine, so that the cancel lands on a wait in progress.
    const executionArn = await vi.waitUntil(async () => {
      const execution = await wrapperExecutionOf(sfn, task.taskId);
      if (execution?.executionArn === undefined) return undefined;
      const { events: history = [] } = await sfn.send(
        new GetExecutionHistoryCommand({ executionArn: execution.executionArn, reverseOrder: true }),
      );
      const running = history.some((event) => event.stateEnteredEventDetails?.name === expressWrapperStateName);
      return running ? execution.executionArn : undefined;
    }, GENEROUS_WAIT);
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('working');
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
    expect((await wrapperExecutionOf(sfn, task.taskId))?.executionArn).toBe(executionArn);
    expect((await wrapperExecutionOf(sfn, task.taskId))?.status).toBe('ABORTED');
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('cancelled');
    await expect(client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).resolves.toMatchObject({
      isError: true,
    });
  });
});

describe('the task events of an EXPRESS tool’s task', () => {
  let withEvents: TestServer;
  beforeAll(async () => {
    withEvents = await startTestServer({}, { tools: expressTools(), events: {} });
  });
  afterAll(async () => {
    await withEvents?.close();
  });

  it('are logged as a STANDARD task’s are, numbered from 1 and ending with its end', async () => {
    const taskId = await createTask(withEvents.url, TOOL, { text: TEXT });
    let statuses: string[] = [];
    await vi.waitUntil(async () => {
      const answer = await rpc<{ events: { data: { seq: number; task: { status: string } } }[] }>(
        withEvents.url,
        'events/poll',
        { name: 'task.events', arguments: { taskId }, cursor: '0' },
      );
      if ('error' in answer) throw new Error(answer.error.message);
      statuses = answer.result.events.map((event) => event.data.task.status);
      return statuses.includes('completed');
    }, GENEROUS_WAIT);
    expect(statuses[0]).toBe('submitted');
    expect(statuses.at(-1)).toBe('completed');
  });
});
