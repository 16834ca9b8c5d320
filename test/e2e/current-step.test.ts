// End to end: a workflow that reports no progress still tells the client where it is: a refresh reads the
// state its execution is in from the history, and tasks/get shows it as statusMessage (1.x client, 2025-11-25; raw
// 2026-07-28 requests); a request that waits with a progressToken hears of it in notifications/progress, and a modern
// subscriber in notifications/tasks.
// slow_compute sits in its Wait state "Compute" and never calls the progress step.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  callModern,
  modernRequest,
  postModern,
  sseMessages,
  sseMessagesOf,
  type JsonRpcMessage,
} from '../support/modern-client.js';
import {
  conformanceTools,
  connectClient,
  GENEROUS_WAIT,
  startTestServer,
  TOKENS,
  type TestServer,
} from '../support/local-backend.js';

let server: TestServer;
let client: Client;

beforeAll(async () => {
  server = await startTestServer({}, { tools: conformanceTools() });
  client = await connectClient(server.url);
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

/** Long enough for the waits below to refresh the task while its execution sits in Compute. */
const SHORT_COMPUTE = { seconds: 3 };

async function startLegacyTask(args: Record<string, unknown>): Promise<string> {
  const created = await client.request(
    { method: 'tools/call', params: { name: 'slow_compute', arguments: args, task: { ttl: 600_000 } } },
    CallToolResultSchema.passthrough(),
  );
  return (created as unknown as { task: { taskId: string } }).task.taskId;
}

async function statusMessage(taskId: string): Promise<string | undefined> {
  const task = await client.request({ method: 'tasks/get', params: { taskId } }, CallToolResultSchema.passthrough());
  return (task as unknown as { statusMessage?: string }).statusMessage;
}

describe('current step, MCP 2025-11-25 (1.x client)', () => {
  it('names the state a silent workflow is in as statusMessage, and drops it once the task ends', async () => {
    const taskId = await startLegacyTask({ seconds: 600 });
    await vi.waitUntil(async () => (await statusMessage(taskId)) === 'Running Compute', GENEROUS_WAIT);
    await client.request({ method: 'tasks/cancel', params: { taskId } }, CallToolResultSchema.passthrough());
    expect(await statusMessage(taskId)).not.toBe('Running Compute');
  });

  it('tells a tasks/result that waits with a progressToken of the new step in notifications/progress', async () => {
    const taskId = await startLegacyTask(SHORT_COMPUTE);
    const notes: Progress[] = [];
    const result = await client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema, {
      onprogress: (progress) => void notes.push(progress),
    });
    expect(result.isError).not.toBe(true);
    expect(notes).toContainEqual(expect.objectContaining({ progress: 1, message: 'Running Compute' }));
  });

  it('tells a plain tools/call that waits with a progressToken of the new step in notifications/progress', async () => {
    const notes: Progress[] = [];
    const result = await client.callTool({ name: 'slow_compute', arguments: SHORT_COMPUTE }, undefined, {
      onprogress: (progress) => void notes.push(progress),
    });
    expect(result.isError).not.toBe(true);
    expect(notes.map((note) => note.message)).toContain('Running Compute');
    const counts = notes.map((note) => note.progress);
    expect(new Set(counts).size).toBe(counts.length);
  });

  it('sends no notifications/progress to a waiting request without a progressToken', async () => {
    const taskId = await startLegacyTask(SHORT_COMPUTE);
    // Raw, so every message on the answer's stream is seen (stateless Streamable HTTP: no initialize needed).
    const response = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${TOKENS.alice}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tasks/result', params: { taskId } }),
    });
    expect(response.ok).toBe(true);
    const body = await response.text();
    const messages = response.headers.get('content-type')?.startsWith('text/event-stream')
      ? sseMessagesOf(body)
      : [JSON.parse(body) as JsonRpcMessage];
    expect(messages.filter((message) => message.method === 'notifications/progress')).toEqual([]);
    expect(messages.at(-1)).toMatchObject({ id: 7, result: expect.any(Object) });
  });
});

describe('current step, MCP 2026-07-28 Tasks extension', () => {
  it('pushes the new step to a subscriber in notifications/tasks, then the completion', async () => {
    const response = await callModern(
      server.url,
      modernRequest('tools/call', { name: 'slow_compute', arguments: SHORT_COMPUTE }),
    );
    const taskId = response.result!['taskId'] as string;
    const listen = await postModern(
      server.url,
      modernRequest('subscriptions/listen', { notifications: { taskIds: [taskId] } }),
    );
    const messages: JsonRpcMessage[] = [];
    for await (const message of sseMessages(listen)) messages.push(message);
    const tasks = messages
      .filter((message) => message.method === 'notifications/tasks')
      .map((message) => message.params);
    expect(tasks).toContainEqual(
      expect.objectContaining({ taskId, status: 'working', statusMessage: 'Running Compute' }),
    );
    expect(tasks.at(-1)).toMatchObject({ taskId, status: 'completed' });
  });

  it('names the state a silent workflow is in as statusMessage of tasks/get', async () => {
    const response = await callModern(
      server.url,
      modernRequest('tools/call', { name: 'slow_compute', arguments: { seconds: 600 } }),
    );
    const taskId = response.result!['taskId'] as string;
    const modernStatusMessage = async () =>
      (await callModern(server.url, modernRequest('tasks/get', { taskId }))).result?.['statusMessage'];
    await vi.waitUntil(async () => (await modernStatusMessage()) === 'Running Compute', GENEROUS_WAIT);
    await callModern(server.url, modernRequest('tasks/cancel', { taskId }));
  });
});
