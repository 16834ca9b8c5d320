// End to end: the SEP-1686 dialect (client-made task IDs, keepAlive) over real HTTP with a raw JSON-RPC
// client written against the seed, beside the official SDK client speaking 2025-11-25 on the same server.
import { randomUUID } from 'node:crypto';
import { ListExecutionsCommand } from '@aws-sdk/client-sfn';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { taskKey } from '../../lambda/core/task-key.js';
import { RELATED_TASK, Sep1686Client, type JsonRpcMessage } from '../support/sep-1686-client.js';
import {
  connectClient,
  createTestTable,
  exampleTools,
  GENEROUS_WAIT,
  localAwsClients,
  startTestServer,
  TOKENS,
  type TestServer,
} from '../support/local-backend.js';

let server: TestServer;
let shortLived: TestServer;
let sep: Sep1686Client;

beforeAll(async () => {
  const tableName = await createTestTable();
  server = await startTestServer({ listPageSize: 2 }, { tableName });
  // Same table, but a request lifetime of 1 s: the original response cannot wait for a long execution.
  shortLived = await startTestServer({ resultWaitMs: 1_000 }, { tableName });
  sep = new Sep1686Client(server.url, TOKENS.alice);
});
afterAll(async () => {
  await Promise.all([server?.close(), shortLived?.close()]);
});

const newTaskId = (): string => randomUUID();
const related = (taskId: string) => ({ [RELATED_TASK]: { taskId } });

async function executionsOf(toolName: string, owner: string, taskId: string): Promise<{ status?: string }[]> {
  const stateMachineArn = exampleTools().find((tool) => tool.name === toolName)!.stateMachineArn;
  const { executions = [] } = await localAwsClients().stepFunctions.send(
    new ListExecutionsCommand({ stateMachineArn, maxResults: 1000 }),
  );
  // Every execution ever started for this (owner, task ID), whatever its nonce.
  return executions.filter((execution) => execution.name?.startsWith(`task-${taskKey(owner, taskId)}-`));
}

async function pollUntil(
  taskId: string,
  done: (status: string) => boolean,
  client = sep,
): Promise<Record<string, unknown>> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const { response } = await client.taskRequest('tasks/get', taskId);
    if (response?.result && done(response.result['status'] as string)) return response.result;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`task ${taskId} never reached the expected status`);
}

describe('a task-augmented call with a client-made task ID', () => {
  it('announces the task first, lets it be polled while it runs, and answers the original request with the result', async () => {
    const taskId = newTaskId();
    let created: JsonRpcMessage | undefined;
    const statusesSeen = new Set<string>();
    let polling: Promise<void> | undefined;
    const exchange = await sep.callToolAsTask(
      'analyze_documents',
      { documents: ['one two', 'three'], reviewSeconds: 2 },
      { taskId, keepAlive: 60_000 },
      {
        onMessage: (message) => {
          if (message.method === 'notifications/tasks/created') {
            created = message;
            // Polled until the execution is seen running (the review window keeps it running for 2 s).
            polling = vi
              .waitUntil(async () => {
                const status = (await sep.taskRequest('tasks/get', taskId)).response?.result?.['status'] as string;
                statusesSeen.add(status);
                return status !== 'submitted';
              }, GENEROUS_WAIT)
              .then(() => undefined);
          }
        },
      },
    );
    await polling;
    expect(exchange.messages[0]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tasks/created',
      params: { _meta: related(taskId) },
    });
    expect(created).toBeDefined();
    expect([...statusesSeen].every((status) => ['submitted', 'working'].includes(status))).toBe(true);
    expect(statusesSeen.has('working')).toBe(true);
    expect(exchange.response?.result).toMatchObject({
      structuredContent: { documentCount: 2, totalWords: 3 },
      _meta: related(taskId),
    });

    const get = await sep.taskRequest('tasks/get', taskId);
    expect(get.response?.result).toEqual({
      taskId,
      status: 'completed',
      keepAlive: 60_000,
      pollFrequency: 200,
      _meta: related(taskId),
    });
    const result = await sep.taskRequest('tasks/result', taskId);
    expect(result.response?.result).toMatchObject({ structuredContent: { documentCount: 2 }, _meta: related(taskId) });
    expect(await executionsOf('analyze_documents', 'alice', taskId)).toHaveLength(1);
  });

  it('keeps a tool-level error a completed task whose result carries isError (seed 7.2)', async () => {
    const taskId = newTaskId();
    const exchange = await sep.callToolAsTask('text_stats', { text: '   ' }, { taskId });
    expect(exchange.response?.result).toMatchObject({ isError: true });
    expect((await sep.taskRequest('tasks/get', taskId)).response?.result).toMatchObject({ status: 'completed' });
    expect((await sep.taskRequest('tasks/result', taskId)).response?.result).toMatchObject({
      isError: true,
      content: [{ text: 'The text has no words to count.' }],
    });
  });

  it('reports a failed execution as failed with the error in `error`', async () => {
    const taskId = newTaskId();
    await sep.callToolAsTask('export_report', { reportName: 'annual' }, { taskId });
    const task = (await sep.taskRequest('tasks/get', taskId)).response?.result;
    expect(task).toMatchObject({ taskId, status: 'failed', error: expect.stringMatching(/UpstreamUnavailable/) });
    expect((await sep.taskRequest('tasks/result', taskId)).response?.error).toEqual({
      code: -32602,
      message: "Cannot retrieve result: Task status is 'failed', not 'completed'",
    });
  });

  it('rejects a task ID it cannot use with -32602 and the reason', async () => {
    for (const bad of [42, '', 'has spaces', 'x'.repeat(129)]) {
      const exchange = await sep.callToolAsTask('text_stats', { text: 'a' }, { taskId: bad as string });
      expect(exchange.response?.error).toMatchObject({
        code: -32602,
        message: expect.stringContaining('taskId must be'),
      });
    }
  });
});

describe('retry safety', () => {
  it('answers a second call with the same task ID -32602 "Task ID already exists" and starts no second execution', async () => {
    const taskId = newTaskId();
    await sep.callToolAsTask('text_stats', { text: 'first' }, { taskId });
    for (const args of [{ text: 'first' }, { text: 'something else' }]) {
      const again = await sep.callToolAsTask('text_stats', args, { taskId });
      expect(again.response?.error).toEqual({ code: -32602, message: `Task ID already exists: ${taskId}` });
    }
    expect(await executionsOf('text_stats', 'alice', taskId)).toHaveLength(1);
  });

  it('a retry after a dropped response starts exactly one execution, and the task is there to poll', async () => {
    const taskId = newTaskId();
    const dropped = new AbortController();
    const first = sep
      .callToolAsTask(
        'analyze_documents',
        { documents: ['x'], reviewSeconds: 1 },
        { taskId },
        { signal: dropped.signal, onMessage: () => dropped.abort() },
      )
      .catch((error: unknown) => error);
    expect(await first).toBeInstanceOf(Error);
    const retry = await sep.callToolAsTask('analyze_documents', { documents: ['x'], reviewSeconds: 1 }, { taskId });
    expect(retry.response?.error?.message).toBe(`Task ID already exists: ${taskId}`);
    expect((await pollUntil(taskId, (status) => status === 'completed'))['status']).toBe('completed');
    expect(await executionsOf('analyze_documents', 'alice', taskId)).toHaveLength(1);
  });

  it('lets two owners use the same task ID without touching each other', async () => {
    const taskId = newTaskId();
    const bob = new Sep1686Client(server.url, TOKENS.bob);
    await sep.callToolAsTask('text_stats', { text: 'alice words' }, { taskId });
    const bobs = await bob.callToolAsTask('text_stats', { text: 'bob has more words' }, { taskId });
    expect(bobs.response?.result).toMatchObject({ structuredContent: { words: 4 } });
    expect((await sep.taskRequest('tasks/result', taskId)).response?.result).toMatchObject({
      structuredContent: { words: 2 },
    });
  });
});

describe('results and retention', () => {
  it('refuses tasks/result before completion with the seed message', async () => {
    const taskId = newTaskId();
    // The short-lived server lets go of the original request after 1 s, with the task still running.
    await new Sep1686Client(shortLived.url, TOKENS.alice).callToolAsTask(
      'analyze_documents',
      { documents: ['x'], reviewSeconds: 30 },
      { taskId },
    );
    const early = await sep.taskRequest('tasks/result', taskId);
    expect(early.response?.error?.code).toBe(-32602);
    expect(early.response?.error?.message).toMatch(
      /^Cannot retrieve result: Task status is '(submitted|working)', not 'completed'$/,
    );
    await sep.taskRequest('tasks/delete', taskId);
  });

  it('counts keepAlive from completion and then answers "Task has expired"', async () => {
    const taskId = newTaskId();
    await sep.callToolAsTask('analyze_documents', { documents: ['x'], reviewSeconds: 4 }, { taskId, keepAlive: 3_000 });
    // The task ran for longer than keepAlive, yet it is still there after completing.
    expect((await sep.taskRequest('tasks/get', taskId)).response?.result).toMatchObject({
      status: 'completed',
      keepAlive: 3_000,
    });
    const gone = await vi.waitUntil(
      async () => (await sep.taskRequest('tasks/get', taskId)).response?.error,
      GENEROUS_WAIT,
    );
    expect(gone).toEqual({ code: -32602, message: 'Failed to retrieve task: Task has expired' });
    expect((await sep.taskRequest('tasks/result', taskId)).response?.error?.code).toBe(-32602);
  });

  it('raises a keepAlive below the minimum to the minimum and says so', async () => {
    const taskId = newTaskId();
    await sep.callToolAsTask('text_stats', { text: 'a' }, { taskId, keepAlive: 0 });
    expect((await sep.taskRequest('tasks/get', taskId)).response?.result?.['keepAlive']).toBe(1_000);
  });

  it('caps keepAlive at the configured maximum and says so', async () => {
    const taskId = newTaskId();
    await sep.callToolAsTask('text_stats', { text: 'a' }, { taskId, keepAlive: 10 ** 12 });
    expect((await sep.taskRequest('tasks/get', taskId)).response?.result?.['keepAlive']).toBe(7 * 24 * 60 * 60 * 1000);
  });

  it('answers an unknown task with the seed not-found message', async () => {
    expect((await sep.taskRequest('tasks/get', newTaskId())).response?.error).toEqual({
      code: -32602,
      message: 'Failed to retrieve task: Task not found',
    });
  });
});

describe('the request lifetime', () => {
  it('ends the stream with no response when the execution outlasts it; the task goes on and is fetched later', async () => {
    const client = new Sep1686Client(shortLived.url, TOKENS.alice);
    const taskId = newTaskId();
    const exchange = await client.callToolAsTask(
      'analyze_documents',
      { documents: ['slow'], reviewSeconds: 3 },
      { taskId },
    );
    expect(exchange.status).toBe(200);
    expect(exchange.messages.map((message) => message.method)).toEqual(['notifications/tasks/created']);
    expect(exchange.response).toBeUndefined();
    await pollUntil(taskId, (status) => status === 'completed', client);
    expect((await client.taskRequest('tasks/result', taskId)).response?.result).toMatchObject({
      structuredContent: { documentCount: 1 },
    });
  });
});

describe('tasks/delete', () => {
  it('stops a running task, removes it and its result at once, and then answers not found', async () => {
    const taskId = newTaskId();
    await new Sep1686Client(shortLived.url, TOKENS.alice).callToolAsTask(
      'analyze_documents',
      { documents: ['x'], reviewSeconds: 60 },
      { taskId },
    );
    const deleted = await sep.taskRequest('tasks/delete', taskId);
    expect(deleted.response?.result).toEqual({ _meta: related(taskId) });
    expect((await executionsOf('analyze_documents', 'alice', taskId))[0]?.status).toBe('ABORTED');
    for (const method of ['tasks/get', 'tasks/result', 'tasks/delete'] as const) {
      expect((await sep.taskRequest(method, taskId)).response?.error).toEqual({
        code: -32602,
        message: 'Failed to retrieve task: Task not found',
      });
    }
  });

  it('removes a completed task', async () => {
    const taskId = newTaskId();
    await sep.callToolAsTask('text_stats', { text: 'a' }, { taskId });
    expect((await sep.taskRequest('tasks/delete', taskId)).response?.result).toBeDefined();
    expect((await sep.taskRequest('tasks/result', taskId)).response?.error?.code).toBe(-32602);
  });
});

describe('notifications/cancelled', () => {
  it('cancels the task of the named request, on any instance, stops its execution, and the original request gets no response', async () => {
    const taskId = newTaskId();
    const requestId = `call-${randomUUID()}`;
    let original: Promise<unknown> | undefined;
    const announced = new Promise<void>((resolve) => {
      original = sep.callToolAsTask(
        'analyze_documents',
        { documents: ['x'], reviewSeconds: 60 },
        { taskId },
        { id: requestId, onMessage: () => resolve() },
      );
    });
    await announced;
    // Sent to the other server: in AWS the notification may reach any Lambda instance.
    const other = new Sep1686Client(shortLived.url, TOKENS.alice);
    expect(await other.notify('notifications/cancelled', { requestId, reason: 'user pressed stop' })).toBe(202);
    const exchange = (await original) as { response?: unknown; messages: JsonRpcMessage[] };
    expect(exchange.response).toBeUndefined();
    expect((await sep.taskRequest('tasks/get', taskId)).response?.result).toMatchObject({ status: 'cancelled' });
    expect((await executionsOf('analyze_documents', 'alice', taskId))[0]?.status).toBe('ABORTED');
  });

  it('is ignored once the task is terminal', async () => {
    const taskId = newTaskId();
    const requestId = `done-${randomUUID()}`;
    await sep.callToolAsTask('text_stats', { text: 'done' }, { taskId }, { id: requestId });
    expect(await sep.notify('notifications/cancelled', { requestId })).toBe(202);
    expect((await sep.taskRequest('tasks/get', taskId)).response?.result).toMatchObject({ status: 'completed' });
  });

  it("cannot cancel another owner's task", async () => {
    const taskId = newTaskId();
    const requestId = `mine-${randomUUID()}`;
    await new Sep1686Client(shortLived.url, TOKENS.alice).callToolAsTask(
      'analyze_documents',
      { documents: ['x'], reviewSeconds: 30 },
      { taskId },
      { id: requestId },
    );
    // The 202 is sent once the cancellation has been applied, so the status can be read right after it.
    expect(await new Sep1686Client(server.url, TOKENS.bob).notify('notifications/cancelled', { requestId })).toBe(202);
    expect((await sep.taskRequest('tasks/get', taskId)).response?.result?.['status']).not.toBe('cancelled');
    expect(await sep.notify('notifications/cancelled', { requestId })).toBe(202);
    expect((await sep.taskRequest('tasks/get', taskId)).response?.result?.['status']).toBe('cancelled');
  });
});

describe('tasks/list', () => {
  it("pages through every task of the caller that tasks/get would return, in the seed's shape", async () => {
    const owner = new Sep1686Client(server.url, TOKENS.bob);
    const ids = [newTaskId(), newTaskId(), newTaskId()];
    for (const taskId of ids) await owner.callToolAsTask('text_stats', { text: taskId }, { taskId, keepAlive: 60_000 });
    const seen: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    do {
      const page = (await owner.request('tasks/list', cursor ? { cursor } : {})).response!.result!;
      seen.push(...(page['tasks'] as Record<string, unknown>[]));
      cursor = page['nextCursor'] as string | undefined;
    } while (cursor);
    for (const taskId of ids) {
      expect(seen).toContainEqual({
        taskId,
        status: 'completed',
        keepAlive: 60_000,
        pollFrequency: 200,
        _meta: related(taskId),
      });
    }
  });
});

describe('both dialects on one server', () => {
  let sdk: Client;
  beforeAll(async () => {
    sdk = await connectClient(server.url, TOKENS.alice);
  });
  afterAll(async () => {
    await sdk?.close();
  });

  it('answers a 2025-11-25 client about a task made with a client ID with a valid 2025-11-25 Task', async () => {
    const taskId = newTaskId();
    await sep.callToolAsTask('text_stats', { text: 'dialects' }, { taskId, keepAlive: 60_000 });
    const task = await sdk.experimental.tasks.getTask(taskId);
    expect(task).toMatchObject({ taskId, status: 'completed', pollInterval: 200 });
    expect(task.ttl).toBeGreaterThanOrEqual(60_000);
    const result = await sdk.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({ words: 1 });
    const listed = await sdk.experimental.tasks.listTasks();
    expect(listed.tasks.length).toBeGreaterThan(0);
  });

  it('answers a SEP-1686 client about a server-made task in its own shape', async () => {
    const { task } = await sdk.request(
      { method: 'tools/call', params: { name: 'text_stats', arguments: { text: 'a b' }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    await pollUntil(task.taskId, (status) => status === 'completed');
    const seen = (await sep.taskRequest('tasks/get', task.taskId)).response?.result;
    expect(seen).toMatchObject({
      taskId: task.taskId,
      status: 'completed',
      pollFrequency: 200,
      _meta: related(task.taskId),
    });
    expect(seen?.['keepAlive']).toBeLessThanOrEqual(60_000);
  });

  it('shows a tool-level error as failed to the 2025-11-25 client and completed to the SEP-1686 client', async () => {
    const taskId = newTaskId();
    await sep.callToolAsTask('text_stats', { text: '' }, { taskId });
    expect((await sdk.experimental.tasks.getTask(taskId)).status).toBe('failed');
    expect((await sep.taskRequest('tasks/get', taskId)).response?.result?.['status']).toBe('completed');
  });
});
