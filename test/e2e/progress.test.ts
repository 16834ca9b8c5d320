// End to end: progress that analyze_documents reports with the progress step, through the emulator and
// DynamoDB Local, as each client sees it: statusMessage in tasks/get (1.x client, 2025-11-25; 2.x client and raw
// requests, 2026-07-28), notifications/progress on a waiting tasks/result or plain tools/call (1.x client), and
// notifications/tasks on a modern subscription.
import { CallToolResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  connectClient,
  GENEROUS_WAIT,
  progressTable,
  startTestServer,
  TOKENS,
  type TestServer,
} from '../support/local-backend.js';
import {
  callModern,
  connectTaskSession,
  modernRequest,
  postModern,
  sseMessages,
  type JsonRpcMessage,
  type ModernTaskClient,
} from '../support/modern-client.js';
import { RELATED_TASK, Sep1686Client } from '../support/sep-1686-client.js';

const DOCUMENTS = ['One small document.', 'Another document, a little longer than the first.', 'A third.'];
const WAITING = /^Waiting for review \(\d+ s left\)$/;

let server: TestServer;
let legacy: Client;
let modern: ModernTaskClient;

beforeAll(async () => {
  // The emulator's progress step records on this one table, as a deployed one records on its endpoint's.
  server = await startTestServer({ maxTtlMs: 3_600_000 }, { tableName: progressTable() });
  legacy = await connectClient(server.url);
  modern = await connectTaskSession(server.url, TOKENS.alice);
});
afterAll(async () => {
  await legacy?.close();
  await modern?.close();
  await server?.close();
});

async function startLegacyTask(reviewSeconds: number): Promise<string> {
  const created = await legacy.request(
    {
      method: 'tools/call',
      params: { name: 'analyze_documents', arguments: { documents: DOCUMENTS, reviewSeconds }, task: { ttl: 600_000 } },
    },
    // The 1.x client reads a CreateTaskResult with any result schema that lets `task` through.
    CallToolResultSchema.passthrough(),
  );
  return (created as unknown as { task: { taskId: string } }).task.taskId;
}

async function legacyStatusMessage(taskId: string): Promise<string | undefined> {
  const task = await legacy.request({ method: 'tasks/get', params: { taskId } }, CallToolResultSchema.passthrough());
  return (task as unknown as { statusMessage?: string }).statusMessage;
}

describe('progress, MCP 2025-11-25 (1.x client)', () => {
  it('shows the review countdown as statusMessage in tasks/get, and drops it once the task ends', async () => {
    const taskId = await startLegacyTask(600);
    await vi.waitUntil(async () => WAITING.test((await legacyStatusMessage(taskId)) ?? ''), GENEROUS_WAIT);
    await legacy.request({ method: 'tasks/cancel', params: { taskId } }, CallToolResultSchema.passthrough());
    expect(await legacyStatusMessage(taskId)).not.toMatch(WAITING);
  });

  it('sends notifications/progress with rising counts on a tasks/result that waits with a progressToken', async () => {
    const taskId = await startLegacyTask(2);
    const notes: Progress[] = [];
    const result = await legacy.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema, {
      onprogress: (progress) => void notes.push(progress),
    });
    expect(result.isError).not.toBe(true);
    expect(notes.length).toBeGreaterThan(0);
    const counts = notes.map((note) => note.progress);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(new Set(counts).size).toBe(counts.length);
    // The last count is every document, whether the wait saw it with the analysis message or the review's.
    expect(notes.at(-1)).toMatchObject({ progress: DOCUMENTS.length, total: DOCUMENTS.length });
  });

  it('sends notifications/progress on a plain tools/call with a progressToken', async () => {
    const notes: Progress[] = [];
    const result = await legacy.callTool(
      { name: 'analyze_documents', arguments: { documents: DOCUMENTS, reviewSeconds: 1 } },
      undefined,
      {
        onprogress: (progress) => void notes.push(progress),
      },
    );
    expect(result.isError).not.toBe(true);
    expect(notes.at(-1)).toMatchObject({ progress: DOCUMENTS.length, total: DOCUMENTS.length });
  });
});

describe('progress, MCP 2026-07-28 Tasks extension', () => {
  async function startModernTask(reviewSeconds: number): Promise<string> {
    const response = await callModern(
      server.url,
      modernRequest('tools/call', { name: 'analyze_documents', arguments: { documents: DOCUMENTS, reviewSeconds } }),
    );
    return response.result!['taskId'] as string;
  }

  it('shows the review countdown as statusMessage in tasks/get', async () => {
    const taskId = await startModernTask(600);
    const statusMessage = async () =>
      (await callModern(server.url, modernRequest('tasks/get', { taskId }))).result?.['statusMessage'] as
        string | undefined;
    await vi.waitUntil(async () => WAITING.test((await statusMessage()) ?? ''), GENEROUS_WAIT);
    await callModern(server.url, modernRequest('tasks/cancel', { taskId }));
  });

  it('lets the 2.x client with an ext-tasks session see the progress as the task’s statusMessage', async () => {
    const execution = await modern.session.callTool('analyze_documents', {
      documents: DOCUMENTS,
      reviewSeconds: 2,
    } as never);
    if (execution.kind !== 'task') throw new Error('analyze_documents was answered inline, not as a task');
    const seen: string[] = [];
    const { outcome } = await execution.settle({ onEvent: (event) => void seen.push(JSON.stringify(event)) });
    expect(outcome).toMatchObject({ status: 'completed' });
    expect(seen.some((event) => /Waiting for review \(\d+ s left\)|Analysed \d of 3 documents/.test(event))).toBe(true);
  });

  it('pushes the progress to a subscriber in notifications/tasks', async () => {
    const taskId = await startModernTask(2);
    const response = await postModern(
      server.url,
      modernRequest('subscriptions/listen', { notifications: { taskIds: [taskId] } }),
    );
    const messages: JsonRpcMessage[] = [];
    for await (const message of sseMessages(response)) messages.push(message);
    const statusMessages = messages
      .filter((message) => message.method === 'notifications/tasks')
      .map((message) => message.params?.['statusMessage']);
    expect(statusMessages.some((message) => typeof message === 'string' && WAITING.test(message))).toBe(true);
    expect(messages.at(-2)).toMatchObject({ method: 'notifications/tasks', params: { taskId, status: 'completed' } });
  });

  it('sends notifications/progress on a plain tools/call with a progressToken', async () => {
    const call = modernRequest(
      'tools/call',
      {
        name: 'analyze_documents',
        arguments: { documents: DOCUMENTS, reviewSeconds: 1 },
        _meta: { progressToken: 'modern-1' },
      },
      {},
    );
    const response = await postModern(server.url, call);
    const messages: JsonRpcMessage[] = [];
    for await (const message of sseMessages(response)) messages.push(message);
    const notes = messages
      .filter((message) => message.method === 'notifications/progress')
      .map((message) => message.params);
    expect(notes.at(-1)).toMatchObject({
      progressToken: 'modern-1',
      progress: DOCUMENTS.length,
      total: DOCUMENTS.length,
    });
    expect(messages.at(-1)?.result).toMatchObject({ structuredContent: { documentCount: DOCUMENTS.length } });
  });
});

describe('progress, SEP-1686', () => {
  it('puts the progress in _meta["mcp-tasks-sfn/progress"] of tasks/get, the seed having no message field', async () => {
    const client = new Sep1686Client(server.url, TOKENS.alice);
    const taskId = `progress-${Date.now()}`;
    const stop = new AbortController();
    // The call's response waits for the result; once the task exists the stream is of no further use here.
    const call = client
      .callToolAsTask(
        'analyze_documents',
        { documents: DOCUMENTS, reviewSeconds: 600 },
        { taskId },
        { signal: stop.signal },
      )
      .catch(() => undefined);
    const progressOf = async () =>
      (await client.taskRequest('tasks/get', taskId)).response?.result?.['_meta'] as
        Record<string, { statusMessage?: string }> | undefined;
    await vi.waitUntil(
      async () => WAITING.test((await progressOf())?.['mcp-tasks-sfn/progress']?.statusMessage ?? ''),
      GENEROUS_WAIT,
    );
    expect((await progressOf())?.[RELATED_TASK]).toEqual({ taskId });
    stop.abort();
    await call;
    await client.request('tasks/cancel', { taskId });
  });

  it('sends notifications/progress with the related-task meta while a call with a progressToken waits', async () => {
    const client = new Sep1686Client(server.url, TOKENS.alice);
    const taskId = `progress-stream-${Date.now()}`;
    const exchange = await client.request('tools/call', {
      name: 'analyze_documents',
      arguments: { documents: DOCUMENTS, reviewSeconds: 1 },
      _meta: { 'modelcontextprotocol.io/task': { taskId }, progressToken: 'sep-1' },
    });
    const notes = exchange.messages
      .filter((message) => message.method === 'notifications/progress')
      .map((message) => message.params);
    expect(notes.at(-1)).toMatchObject({
      progressToken: 'sep-1',
      progress: DOCUMENTS.length,
      _meta: { [RELATED_TASK]: { taskId } },
    });
  });
});
