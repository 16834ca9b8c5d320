// End to end, issue 12: a workflow that reports no progress still tells the client where it is: a refresh reads the
// state its execution is in from the history, and tasks/get shows it as statusMessage (1.x client, 2025-11-25; raw
// 2026-07-28 requests).
// slow_compute sits in its Wait state "Compute" and never calls the progress step.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { callModern, modernRequest } from '../support/modern-client.js';
import { conformanceTools, connectClient, GENEROUS_WAIT, startTestServer, type TestServer } from '../support/local-backend.js';

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

async function statusMessage(taskId: string): Promise<string | undefined> {
  const task = await client.request({ method: 'tasks/get', params: { taskId } }, CallToolResultSchema.passthrough());
  return (task as unknown as { statusMessage?: string }).statusMessage;
}

describe('current step, MCP 2025-11-25 (1.x client)', () => {
  it('names the state a silent workflow is in as statusMessage, and drops it once the task ends', async () => {
    const created = await client.request(
      { method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 600 }, task: { ttl: 600_000 } } },
      CallToolResultSchema.passthrough(),
    );
    const { taskId } = (created as unknown as { task: { taskId: string } }).task;
    await vi.waitUntil(async () => (await statusMessage(taskId)) === 'Running Compute', GENEROUS_WAIT);
    await client.request({ method: 'tasks/cancel', params: { taskId } }, CallToolResultSchema.passthrough());
    expect(await statusMessage(taskId)).not.toBe('Running Compute');
  });
});

describe('current step, MCP 2026-07-28 Tasks extension', () => {
  it('names the state a silent workflow is in as statusMessage of tasks/get', async () => {
    const response = await callModern(server.url, modernRequest('tools/call', { name: 'slow_compute', arguments: { seconds: 600 } }));
    const taskId = response.result!['taskId'] as string;
    const modernStatusMessage = async () => (await callModern(server.url, modernRequest('tasks/get', { taskId }))).result?.['statusMessage'];
    await vi.waitUntil(async () => (await modernStatusMessage()) === 'Running Compute', GENEROUS_WAIT);
    await callModern(server.url, modernRequest('tasks/cancel', { taskId }));
  });
});
