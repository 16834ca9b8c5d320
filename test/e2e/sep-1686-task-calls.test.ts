// End to end: the SEP-1686 dialect's task-augmented calls (client-made task IDs, keepAlive) over real HTTP with a raw
// JSON-RPC client written against the seed: the call itself, retries, results and retention, the request lifetime.
// Managing tasks (tasks/delete, cancel, tasks/list) and the 2025-11-25 client beside the SEP-1686 one:
// sep-1686-task-management.test.ts.
import { describe, expect, it, vi } from 'vitest';
import { GENEROUS_WAIT, TOKENS } from '../support/local-backend.js';
import { Sep1686Client, type JsonRpcMessage } from '../support/sep-1686-client.js';
import {
  executionsOf,
  newTaskId,
  pollUntil,
  related,
  sep,
  server,
  shortLived,
  useSep1686Servers,
} from '../support/sep-1686-servers.js';

useSep1686Servers();

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
