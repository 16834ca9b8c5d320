// End to end, issue 12: progress that analyze_documents reports with the progress step, through the emulator and
// DynamoDB Local, as each client sees it: statusMessage in tasks/get (1.x client, 2025-11-25; 2.x client and raw
// requests, 2026-07-28), notifications/progress on a waiting tasks/result or plain tools/call (1.x client), and
// notifications/tasks on a modern subscription.
import { CallToolResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectClient, GENEROUS_WAIT, progressTable, startTestServer, TOKENS, type TestServer } from '../support/local-backend.js';
import { callModern, connectTaskSession, modernRequest, postModern, sseMessages, type JsonRpcMessage, type ModernTaskClient } from '../support/modern-client.js';

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
    { method: 'tools/call', params: { name: 'analyze_documents', arguments: { documents: DOCUMENTS, reviewSeconds }, task: { ttl: 600_000 } } },
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
    const result = await legacy.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema, { onprogress: (progress) => void notes.push(progress) });
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
    const result = await legacy.callTool({ name: 'analyze_documents', arguments: { documents: DOCUMENTS, reviewSeconds: 1 } }, undefined, {
      onprogress: (progress) => void notes.push(progress),
    });
    expect(result.isError).not.toBe(true);
    expect(notes.at(-1)).toMatchObject({ progress: DOCUMENTS.length, total: DOCUMENTS.length });
  });
});

describe('progress, MCP 2026-07-28 Tasks extension', () => {
  async function startModernTask(reviewSeconds: number): Promise<string> {
    const response = await callModern(server.url, modernRequest('tools/call', { name: 'analyze_documents', arguments: { documents: DOCUMENTS, reviewSeconds } }));
    return response.result!['taskId'] as string;
  }

  it('shows the review countdown as statusMessage in tasks/get', async () => {
    const taskId = await startModernTask(600);
    const statusMessage = async () => (await callModern(server.url, modernRequest('tasks/get', { taskId }))).result?.['statusMessage'] as string | undefined;
    await vi.waitUntil(async () => WAITING.test((await statusMessage()) ?? ''), GENEROUS_WAIT);
    await callModern(server.url, modernRequest('tasks/cancel', { taskId }));
  });

  it('lets the 2.x client with an ext-tasks session see the progress as the task’s statusMessage', async () => {
    const execution = await modern.session.callTool('analyze_documents', { documents: DOCUMENTS, reviewSeconds: 2 } as never);
    if (execution.kind !== 'task') throw new Error('analyze_documents was answered inline, not as a task');
    const seen: string[] = [];
    const { outcome } = await execution.settle({ onEvent: (event) => void seen.push(JSON.stringify(event)) });
    expect(outcome).toMatchObject({ status: 'completed' });
    expect(seen.some((event) => /Waiting for review \(\d+ s left\)|Analysed \d of 3 documents/.test(event))).toBe(true);
  });

  it('pushes the progress to a subscriber in notifications/tasks', async () => {
    const taskId = await startModernTask(2);
    const response = await postModern(server.url, modernRequest('subscriptions/listen', { notifications: { taskIds: [taskId] } }));
    const messages: JsonRpcMessage[] = [];
    for await (const message of sseMessages(response)) messages.push(message);
    const statusMessages = messages.filter((message) => message.method === 'notifications/tasks').map((message) => message.params?.['statusMessage']);
    expect(statusMessages.some((message) => typeof message === 'string' && WAITING.test(message))).toBe(true);
    expect(messages.at(-2)).toMatchObject({ method: 'notifications/tasks', params: { taskId, status: 'completed' } });
  });
});
