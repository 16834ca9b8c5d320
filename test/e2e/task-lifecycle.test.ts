// End to end: the official MCP client drives task-augmented tool calls over real HTTP against the local stack.
import { STATUS_TOOL_NAMES } from '../../lambda/contract/tool-definition.js';
import { ListExecutionsCommand } from '@aws-sdk/client-sfn';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema, type Task } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MIN_POLL_HINT_MS } from '../../lambda/core/task.js';
import { taskKey } from '../../lambda/core/task-key.js';
import {
  connectClient,
  exampleTools,
  GENEROUS_WAIT,
  localAwsClients,
  startTestServer,
  TOKENS,
  type TestServer,
} from '../support/local-backend.js';

let server: TestServer;
let client: Client;

beforeAll(async () => {
  server = await startTestServer({ maxTtlMs: 3_600_000, listPageSize: 2, directCallTimeoutMs: 1_500 });
  client = await connectClient(server.url);
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

type Message = { type: string; task?: Task; result?: unknown; error?: Error };

async function collect(name: string, args: Record<string, unknown>, ttl = 60_000): Promise<Message[]> {
  const messages: Message[] = [];
  for await (const message of client.experimental.tasks.callToolStream(
    { name, arguments: args },
    CallToolResultSchema,
    { task: { ttl } },
  )) {
    messages.push(message as Message);
  }
  return messages;
}

async function until(taskId: string, done: (task: Task) => boolean): Promise<Task> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const task = await client.experimental.tasks.getTask(taskId);
    if (done(task)) return task;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`task ${taskId} never reached the expected state`);
}

async function startTask(name: string, args: Record<string, unknown>, ttl = 60_000): Promise<Task> {
  const result = await client.request(
    { method: 'tools/call', params: { name, arguments: args, task: { ttl } } },
    CreateTaskResultSchema,
  );
  return result.task;
}

describe('initialize and tools/list', () => {
  it('declares the tasks capability for list, cancel and tools/call', () => {
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
  });

  it('lists every registered state machine as a tool with its JSON Schema and optional task support', async () => {
    const { tools } = await client.listTools();
    // And the status tools, as to every client that did not declare tasks.
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      [...exampleTools().map((tool) => tool.name), ...Object.values(STATUS_TOOL_NAMES)].sort(),
    );
    const analyze = tools.find((tool) => tool.name === 'analyze_documents')!;
    expect(analyze.inputSchema).toMatchObject({ type: 'object', required: ['documents'] });
    expect(analyze.execution).toEqual({ taskSupport: 'optional' });
  });
});

describe('a task-augmented call', () => {
  it('returns a task at once, moves through working to completed, and tasks/result returns the tool result', async () => {
    const messages = await collect('analyze_documents', {
      documents: ['The cat sat.', 'A dog ran far away.'],
      reviewSeconds: 2,
    });
    expect(messages[0]).toMatchObject({
      type: 'taskCreated',
      task: { status: 'working', ttl: 60_000, pollInterval: MIN_POLL_HINT_MS },
    });
    const statuses = messages.filter((message) => message.type === 'taskStatus').map((message) => message.task!.status);
    expect(statuses).toContain('working');
    expect(statuses.at(-1)).toBe('completed');
    const final = messages.at(-1)!;
    expect(final.type).toBe('result');
    expect(final.result).toMatchObject({ structuredContent: { documentCount: 2, totalWords: 8 } });
  });

  it('gives every task createdAt, lastUpdatedAt, ttl and pollInterval', async () => {
    const task = await startTask('text_stats', { text: 'a' });
    expect(new Date(task.createdAt).toISOString()).toBe(task.createdAt);
    expect(new Date(task.lastUpdatedAt).toISOString()).toBe(task.lastUpdatedAt);
    expect(task).toMatchObject({ ttl: 60_000, pollInterval: MIN_POLL_HINT_MS });
    expect(task.taskId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('tags the tasks/result answer with the related-task meta', async () => {
    const task = await startTask('text_stats', { text: 'one two' });
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result._meta).toEqual({ 'io.modelcontextprotocol/related-task': { taskId: task.taskId } });
    expect(result.structuredContent).toMatchObject({ words: 2 });
  });

  it('blocks tasks/result until the task is terminal', async () => {
    const task = await startTask('analyze_documents', { documents: ['x'], reviewSeconds: 2 });
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({ documentCount: 1 });
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('completed');
  });

  it('honours the requested ttl up to the configured maximum', async () => {
    expect((await startTask('text_stats', { text: 'a' }, 5_000)).ttl).toBe(5_000);
    expect((await startTask('text_stats', { text: 'a' }, 10 ** 12)).ttl).toBe(3_600_000);
    expect((await startTask('text_stats', { text: 'a' }, -5)).ttl).toBe(1_000);
    expect((await startTask('text_stats', { text: 'a' }, 1_500.25)).ttl).toBe(1_501);
  });
});

describe('a failing run', () => {
  it('ends failed with the execution error in statusMessage, and tasks/result returns the error as a tool result', async () => {
    const messages = await collect('export_report', { reportName: 'quarterly' });
    expect(messages.at(-1)).toMatchObject({ type: 'error' });
    const taskId = messages[0]!.task!.taskId;
    const task = await client.experimental.tasks.getTask(taskId);
    expect(task.status).toBe('failed');
    expect(task.statusMessage).toMatch(/^Execution failed: UpstreamUnavailable: .*'quarterly'/);
    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: task.statusMessage }] });
  });

  it('reports a tool-level error (isError output) as failed, with the tool result still returned', async () => {
    const task = await startTask('text_stats', { text: '   ' });
    const done = await until(task.taskId, (current) => current.status !== 'working');
    expect(done.status).toBe('failed');
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'The text has no words to count.' }],
    });
  });
});

describe('a cancelled run', () => {
  it('is cancelled before tasks/cancel answers, its execution is stopped, and it stays cancelled', async () => {
    const task = await startTask('analyze_documents', { documents: ['long'], reviewSeconds: 60 });
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
    const sfn = localAwsClients().stepFunctions;
    const stateMachineArn = exampleTools().find((tool) => tool.name === 'analyze_documents')!.stateMachineArn;
    const { executions = [] } = await sfn.send(new ListExecutionsCommand({ stateMachineArn, maxResults: 1000 }));
    const own = executions.filter((execution) => execution.name?.startsWith(`task-${taskKey('alice', task.taskId)}-`));
    expect(own.map((execution) => execution.status)).toEqual(['ABORTED']);
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('cancelled');
    await expect(client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).resolves.toMatchObject({
      isError: true,
    });
  });

  it('refuses to cancel a task that is already terminal with -32602', async () => {
    const task = await startTask('text_stats', { text: 'a' });
    await until(task.taskId, (current) => current.status === 'completed');
    await expect(client.experimental.tasks.cancelTask(task.taskId)).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/has already finished/),
    });
  });
});

describe('an expired task', () => {
  it('is gone once its ttl has passed, counted from creation', async () => {
    const task = await startTask('text_stats', { text: 'short lived' }, 3_000);
    expect((await client.experimental.tasks.getTask(task.taskId)).ttl).toBe(3_000);
    const gone = await vi.waitUntil(
      () =>
        client.experimental.tasks.getTask(task.taskId).then(
          () => undefined,
          (error: unknown) => error,
        ),
      GENEROUS_WAIT,
    );
    expect(gone).toMatchObject({ code: -32602, message: expect.stringMatching(/Task has expired|Task not found/) });
    await expect(client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toMatchObject({
      code: -32602,
    });
    const listed = await client.experimental.tasks.listTasks();
    expect(listed.tasks.map((listedTask) => listedTask.taskId)).not.toContain(task.taskId);
  });
});

describe('tasks/list', () => {
  it('shows each task as last recorded, so what a poll saw appears in the next page', async () => {
    const task = await startTask('text_stats', { text: 'polled' });
    await until(task.taskId, (polled) => polled.status === 'completed');
    const listed = (await client.experimental.tasks.listTasks()).tasks.find(
      (candidate) => candidate.taskId === task.taskId,
    );
    expect(listed?.status).toBe('completed');
  });

  it("pages through all of the caller's tasks, newest first, and no one else's", async () => {
    const bob = await connectClient(server.url, TOKENS.bob);
    const created: string[] = [];
    for (let index = 0; index < 5; index++) {
      const result = await bob.request(
        {
          method: 'tools/call',
          params: { name: 'text_stats', arguments: { text: `n${index}` }, task: { ttl: 60_000 } },
        },
        CreateTaskResultSchema,
      );
      created.push(result.task.taskId);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await bob.experimental.tasks.listTasks(cursor);
      expect(page.tasks.length).toBeLessThanOrEqual(2);
      seen.push(...page.tasks.map((task) => task.taskId));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(created.reverse());
    expect(pages).toBeGreaterThanOrEqual(3);
    await bob.close();
  });
});

describe('a plain tools/call without params.task', () => {
  it('waits for the execution and returns its result', async () => {
    const result = await client.callTool({ name: 'text_stats', arguments: { text: 'plain call works' } });
    expect(result.structuredContent).toMatchObject({ words: 3 });
  });

  it('leaves no trace in tasks/list', async () => {
    const bobsView = await connectClient(server.url, TOKENS.bob);
    // Every page, not the first: a page holds two tasks here, so a first page would read "2" either way.
    const everyTaskId = async (): Promise<string[]> => {
      const ids: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await bobsView.experimental.tasks.listTasks(cursor);
        ids.push(...page.tasks.map((task) => task.taskId));
        cursor = page.nextCursor;
      } while (cursor);
      return ids;
    };
    const before = await everyTaskId();
    await bobsView.callTool({ name: 'text_stats', arguments: { text: 'x' } });
    expect(await everyTaskId()).toEqual(before);
    await bobsView.close();
  });
});
