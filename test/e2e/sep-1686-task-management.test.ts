// End to end: managing SEP-1686 tasks over real HTTP with a raw JSON-RPC client written against the seed (tasks/delete,
// notifications/cancelled, tasks/list), and the official SDK client speaking 2025-11-25 on the same server.
import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, TOKENS } from '../support/local-backend.js';
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
