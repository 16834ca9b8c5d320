// End to end, issue 12: a workflow that reports no progress still tells the client where it is: a refresh reads the
// state its execution is in from the history, and tasks/get shows it as statusMessage (1.x client, 2025-11-25).
// slow_compute sits in its Wait state "Compute" and never calls the progress step.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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
