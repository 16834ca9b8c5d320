// End to end, modern era (MCP 2026-07-28): prompts over real HTTP. A prompt that asks its client answers prompts/get
// `input_required` until the retry carries an accepted answer (SEP-2322 on a non-tool request), then renders with it.
// The legacy era (2025 revisions) serves no prompts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE_PROMPTS } from '../../lambda/conformance-tools/conformance-tool-catalog.js';
import { connectClient, startTestServer, type TestServer } from '../support/local-backend.js';
import { callModern, modernRequest, type JsonRpcMessage } from '../support/modern-client.js';

const ASKS_CONTEXT = 'test_input_required_result_prompt';
const CAN_ELICIT = { elicitation: {} } as const;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({}, { prompts: CONFORMANCE_PROMPTS });
});
afterAll(async () => {
  await server?.close();
});

function getPrompt(params: Record<string, unknown>, capabilities: object = CAN_ELICIT): Promise<JsonRpcMessage> {
  return callModern(server.url, modernRequest('prompts/get', params, capabilities as Record<string, unknown>));
}

describe('prompts, modern era', () => {
  it('lists the prompt', async () => {
    const response = await callModern(server.url, modernRequest('prompts/list', {}, CAN_ELICIT));
    expect(response.result?.['prompts']).toEqual([expect.objectContaining({ name: ASKS_CONTEXT })]);
  });

  it('asks for the context first: input_required with one elicitation and no requestState', async () => {
    const response = await getPrompt({ name: ASKS_CONTEXT });
    expect(response.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: {
        user_context: {
          method: 'elicitation/create',
          params: { message: 'What context should the prompt use?', requestedSchema: { required: ['context'] } },
        },
      },
    });
    expect(response.result).not.toHaveProperty('requestState');
  });

  it('renders with the answered context on the retry', async () => {
    const response = await getPrompt({
      name: ASKS_CONTEXT,
      inputResponses: { user_context: { action: 'accept', content: { context: 'the quarterly report' } } },
    });
    expect(response.error).toBeUndefined();
    expect(response.result?.['resultType'] ?? 'complete').toBe('complete');
    expect(response.result?.['messages']).toEqual([
      { role: 'user', content: { type: 'text', text: expect.stringContaining('the quarterly report') } },
    ]);
  });

  it('asks again when the answer does not fit the form', async () => {
    const response = await getPrompt({
      name: ASKS_CONTEXT,
      inputResponses: { user_context: { action: 'accept', content: { context: 42 } } },
    });
    expect(response.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { user_context: { method: 'elicitation/create' } },
    });
  });

  it('ends with -32602 when the user declines', async () => {
    const response = await getPrompt({ name: ASKS_CONTEXT, inputResponses: { user_context: { action: 'decline' } } });
    expect(response.error).toMatchObject({ code: -32602, message: expect.stringContaining('declined') });
  });

  it('answers an unknown prompt name -32602', async () => {
    const response = await getPrompt({ name: 'no_such_prompt' });
    expect(response.error).toMatchObject({ code: -32602, message: 'Unknown prompt: no_such_prompt' });
  });

  it('refuses a client that did not declare elicitation with -32021', async () => {
    const response = await getPrompt({ name: ASKS_CONTEXT }, {});
    expect(response.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: {} } },
    });
  });
});

describe('prompts, legacy era', () => {
  it('has none: prompts/list is method not found', async () => {
    const client = await connectClient(server.url);
    try {
      expect(client.getServerCapabilities()?.prompts).toBeUndefined();
      await expect(client.listPrompts()).rejects.toMatchObject({ code: -32601 });
    } finally {
      await client.close();
    }
  });
});
