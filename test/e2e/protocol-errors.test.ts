// End to end: every bad input gets the right JSON-RPC error and a message a person can act on, and the
// server keeps serving. Raw HTTP where the official client would refuse to send the bad request.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startTestServer, TOKENS, type TestServer } from '../support/local-backend.js';
import { callModern, modernRequest, postModern } from '../support/modern-client.js';
import { Sep1686Client } from '../support/sep-1686-client.js';
import { UNAUTHORIZED_ERROR_CODE } from '../../lambda/contract/unauthorized-error.js';

let server: TestServer;
let alice: Client;
let bob: Client;

beforeAll(async () => {
  server = await startTestServer();
  alice = await connectClient(server.url, TOKENS.alice);
  bob = await connectClient(server.url, TOKENS.bob);
});
afterAll(async () => {
  await Promise.all([alice?.close(), bob?.close()]);
  await server?.close();
});

async function post(
  body: string,
  headers: Record<string, string> = {},
  url = server.url,
): Promise<{ status: number; json: { error?: { code: number; message: string }; result?: unknown } }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${TOKENS.alice}`,
      ...headers,
    },
    body,
  });
  return { status: response.status, json: (await response.json()) as never };
}

const rpc = (method: string, params: unknown = {}) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

describe('malformed requests', () => {
  it('answers malformed JSON with -32700', async () => {
    const { status, json } = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(status).toBe(400);
    expect(json.error).toMatchObject({ code: -32700, message: expect.stringMatching(/Parse error/) });
  });

  // JSON-RPC 2.0: well-formed JSON that is not a Request object is -32600 Invalid Request (-32700 is for unparsable
  // text).
  it('answers JSON that is not JSON-RPC with -32600', async () => {
    const { json } = await post('{"hello": "world"}');
    expect(json.error?.code).toBe(-32600);
  });

  it('answers an unknown method with -32601', async () => {
    const { json } = await post(rpc('tasks/explode'));
    expect(json.error).toMatchObject({ code: -32601, message: 'Method not found' });
  });

  it('answers a request without credentials with 401 and a WWW-Authenticate challenge', async () => {
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: rpc('tools/list'),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await response.json()).toMatchObject({
      error: { code: UNAUTHORIZED_ERROR_CODE, message: expect.stringMatching(/bearer token/) },
    });
  });

  it('answers any other path with 404', async () => {
    const { status } = await post(rpc('tools/list'), {}, server.url.replace('/mcp', '/other'));
    expect(status).toBe(404);
  });
});

describe('malformed params', () => {
  it('answers a tasks/get without a task ID with -32602 and a readable reason', async () => {
    for (const params of [{}, { taskId: 5 }]) {
      const { json } = await post(rpc('tasks/get', params));
      expect(json.error?.code).toBe(-32602);
      expect(json.error?.message).toMatch(/^Invalid params for tasks\/get: .*taskId/);
    }
  });

  it('answers a tools/call naming two task augmentations with -32602 and starts nothing', async () => {
    const { response } = await new Sep1686Client(server.url, TOKENS.alice).request('tools/call', {
      name: 'text_stats',
      arguments: { text: 'a' },
      task: {},
      _meta: { 'modelcontextprotocol.io/task': { taskId: 'both-1' } },
    });
    expect(response?.error).toMatchObject({ code: -32602, message: expect.stringContaining('not both') });
    expect((await alice.experimental.tasks.listTasks()).tasks).toEqual([]);
  });
});

/** A message a person can act on: one line, short, no validator dump. */
const READABLE = /^Invalid params for [a-z/]+: [^\n{}[\]]{1,300}$/;

describe('wrong parameter types (legacy era)', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['tools/call', { name: 5 }, /name must be a string/],
    ['tools/call', { name: null }, /name must be a string/],
    ['tools/call', { name: 'text_stats', arguments: { text: 'a' }, task: null }, /task must be an object/],
    ['tools/call', { name: 'text_stats', arguments: { text: 'a' }, task: 5 }, /task must be an object/],
    ['tools/call', { name: 'text_stats', arguments: { text: 'a' }, task: 'yes' }, /task must be an object/],
    ['tools/call', { name: 'text_stats', arguments: { text: 'a' }, task: [] }, /task must be an object/],
    [
      'tools/call',
      { name: 'text_stats', arguments: { text: 'a' }, task: { ttl: '1000' } },
      /task\.ttl must be a number/,
    ],
    ['tools/call', { name: 'text_stats', arguments: { text: 'a' }, task: { ttl: null } }, /task\.ttl must be a number/],
    ['tools/call', { name: 'text_stats', arguments: { text: 'a' }, task: { ttl: [] } }, /task\.ttl must be a number/],
    ['tools/list', { cursor: 5 }, /cursor must be a string/],
    ['initialize', {}, /protocolVersion is required/],
  ];
  it.each(cases)('answers %s %j with -32602 and a readable reason', async (method, params, reason) => {
    const { status, json } = await post(rpc(method, params));
    expect(status).toBeLessThan(500);
    expect(json.error?.code).toBe(-32602);
    expect(json.error?.message).toMatch(READABLE);
    expect(json.error?.message).toMatch(reason);
  });

  it('starts nothing for a call it refuses', async () => {
    const carol = await connectClient(server.url, TOKENS.bob);
    const before = (await carol.experimental.tasks.listTasks()).tasks.length;
    await post(rpc('tools/call', { name: 'text_stats', arguments: { text: 'a' }, task: 5 }), {
      authorization: `Bearer ${TOKENS.bob}`,
    });
    expect((await carol.experimental.tasks.listTasks()).tasks.length).toBe(before);
    await carol.close();
  });

  it('answers a tasks/list cursor with an out-of-range number with -32602', async () => {
    const cursor = Buffer.from(JSON.stringify({ pk: 'alice#x', createdAt: 1e308, listOwner: 'alice' })).toString(
      'base64url',
    );
    const { json } = await post(rpc('tasks/list', { cursor }));
    expect(json.error).toMatchObject({ code: -32602, message: expect.stringContaining('Invalid cursor') });
  });

  it('refuses a request ID longer than 256 characters with -32600 before anything runs', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 'i'.repeat(500_000),
      method: 'tools/call',
      params: {
        name: 'text_stats',
        arguments: { text: 'a' },
        _meta: { 'modelcontextprotocol.io/task': { taskId: 'long-id-1' } },
      },
    });
    const { status, json } = await post(body);
    expect(status).toBe(400);
    expect(json.error).toMatchObject({ code: -32600, message: expect.stringContaining('256 characters') });
    await expect(alice.experimental.tasks.getTask('long-id-1')).rejects.toMatchObject({ code: -32602 });
  });
});

describe('wrong parameter types (modern era)', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['tools/call', { name: 5 }],
    ['tools/call', { name: null }],
    ['tools/call', { name: 'text_stats', arguments: 'text' }],
    ['tools/list', { cursor: 5 }],
    ['prompts/list', { cursor: [] }],
    ['resources/read', { uri: 5 }],
    ['tasks/get', { taskId: 5 }],
    ['tasks/get', {}],
    ['tasks/update', { taskId: null }],
    ['tasks/cancel', { taskId: [] }],
    ['subscriptions/listen', { filter: 5 }],
  ];
  it.each(cases)('answers %s %j with -32602 and a readable reason', async (method, params) => {
    const answer = await callModern(server.url, modernRequest(method, params));
    expect(answer.error?.code).toBe(-32602);
    expect(answer.error?.message).not.toMatch(/[\n{}[\]]/);
  });
});

describe('batches', () => {
  const call = (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'text_stats', arguments: { text: 'a' }, task: {} },
  });

  it('refuses a JSON-RPC batch with -32600 and HTTP 400, and runs none of it', async () => {
    const { status, json } = await post(JSON.stringify(Array.from({ length: 100 }, (_, index) => call(index + 1))), {
      authorization: `Bearer ${TOKENS.bob}`,
    });
    expect(status).toBe(400);
    expect(json.error).toMatchObject({ code: -32600, message: expect.stringContaining('Batches are not supported') });
    const bobs = await connectClient(server.url, TOKENS.bob);
    expect((await bobs.experimental.tasks.listTasks()).tasks).toEqual([]);
    await bobs.close();
  });

  it('refuses an empty batch with -32600 and HTTP 400', async () => {
    const { status, json } = await post('[]');
    expect(status).toBe(400);
    expect(json.error?.code).toBe(-32600);
  });

  it('refuses a batch in the modern era too', async () => {
    const message = modernRequest('tools/list');
    const response = await fetch(server.url, {
      method: 'POST',
      headers: (await import('../support/modern-client.js')).modernHeaders(message, TOKENS.alice),
      body: JSON.stringify([message]),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32600);
  });
});

describe('body size', () => {
  const padding = 'x'.repeat(5 * 1024 * 1024);

  it('refuses a valid JSON body over 4 MiB with 413 before parsing it', async () => {
    const { status, json } = await post(rpc('tools/list', { _meta: { padding } }));
    expect(status).toBe(413);
    expect(json.error?.message).toMatch(/Payload too large/);
  });

  it('refuses a valid JSON body over 4 MiB with 413 in the modern era', async () => {
    const response = await postModern(server.url, modernRequest('tools/list', { _meta: { padding } }));
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/Payload too large/);
  });
});

describe('tool calls', () => {
  it('answers an unknown tool with -32602 naming it', async () => {
    await expect(alice.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool: no_such_tool'),
    });
  });

  it('answers invalid arguments with -32602 and every reason, and starts nothing', async () => {
    const call = alice.request(
      {
        method: 'tools/call',
        params: { name: 'analyze_documents', arguments: { documents: [], extra: 1 }, task: { ttl: 1000 } },
      },
      CreateTaskResultSchema,
    );
    const error = await call.then(
      () => expect.unreachable(),
      (rejection: { code: number; message: string }) => rejection,
    );
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('Invalid arguments for tool analyze_documents');
    expect(error.message).toContain('arguments/documents must NOT have fewer than 1 items');
    expect(error.message).toContain('arguments must NOT have additional properties');
    expect((await alice.experimental.tasks.listTasks()).tasks).toEqual([]);
  });
});

describe('legacy-era corrections', () => {
  it('answers a plain call whose arguments the schema refuses with a tool error naming every reason, not -32602 (SEP-1303)', async () => {
    const result = await alice.callTool({ name: 'text_stats', arguments: { text: 7, extra: true } });
    expect(result.isError).toBe(true);
    const text = (result.content as { text: string }[])[0]!.text;
    expect(text).toContain('Invalid arguments for tool text_stats');
    expect(text).toContain('arguments/text must be string');
    expect(text).toContain('arguments must NOT have additional properties');
  });

  it('offers the tasks capability only to a client that negotiates a revision that has tasks', async () => {
    const initialize = (protocolVersion: string) =>
      rpc('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'old', version: '1' } });
    const older = (await post(initialize('2025-06-18'))).json.result as {
      protocolVersion: string;
      capabilities: Record<string, unknown>;
    };
    expect(older.protocolVersion).toBe('2025-06-18');
    expect(older.capabilities).not.toHaveProperty('tasks');
    const current = (await post(initialize('2025-11-25'))).json.result as { capabilities: Record<string, unknown> };
    expect(current.capabilities).toHaveProperty('tasks');
  });
});

describe('task IDs', () => {
  it('answers an unknown task ID with -32602 on get, result and cancel', async () => {
    for (const call of [
      () => alice.experimental.tasks.getTask('unknown-id'),
      () => alice.experimental.tasks.getTaskResult('unknown-id', CallToolResultSchema),
      () => alice.experimental.tasks.cancelTask('unknown-id'),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Task not found') });
    }
  });

  it("treats another owner's task exactly like an unknown one, and leaves it untouched", async () => {
    const { task } = await alice.request(
      {
        method: 'tools/call',
        params: { name: 'analyze_documents', arguments: { documents: ['a'], reviewSeconds: 30 }, task: {} },
      },
      CreateTaskResultSchema,
    );
    const unknown = await post(rpc('tasks/get', { taskId: 'x'.repeat(32) }), { authorization: `Bearer ${TOKENS.bob}` });
    const foreign = await post(rpc('tasks/get', { taskId: task.taskId }), { authorization: `Bearer ${TOKENS.bob}` });
    expect(foreign.json.error?.message.replace(task.taskId, 'ID')).toBe(
      unknown.json.error?.message.replace('x'.repeat(32), 'ID'),
    );
    await expect(bob.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toMatchObject({
      code: -32602,
    });
    await expect(bob.experimental.tasks.cancelTask(task.taskId)).rejects.toMatchObject({ code: -32602 });
    expect((await bob.experimental.tasks.listTasks()).tasks.map((listed) => listed.taskId)).not.toContain(task.taskId);
    expect((await alice.experimental.tasks.getTask(task.taskId)).status).toBe('working');
    await alice.experimental.tasks.cancelTask(task.taskId);
  });

  it('answers a cursor it did not make with -32602', async () => {
    await expect(alice.experimental.tasks.listTasks('bm90LWEtY3Vyc29y')).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Invalid cursor'),
    });
  });
});

describe('internal faults', () => {
  it('answers -32603 with a reference and no stack trace, and the server keeps serving', async () => {
    const broken = await startTestServer({}, { tableName: 'table-that-does-not-exist', statusEvents: false });
    try {
      const client = await connectClient(broken.url);
      const call = client.request(
        { method: 'tools/call', params: { name: 'text_stats', arguments: { text: 'a' }, task: {} } },
        CreateTaskResultSchema,
      );
      await expect(call).rejects.toMatchObject({
        code: -32603,
        message: expect.stringMatching(/^MCP error -32603: Internal error \(reference [0-9a-f-]{36}\)$/),
      });
      const raw = await post(rpc('tasks/get', { taskId: 'x' }), {}, broken.url);
      expect(JSON.stringify(raw.json)).not.toMatch(/ResourceNotFound|at .*\.ts|node_modules/);
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();
    } finally {
      await broken.close();
    }
  });
});

describe('tasks/result', () => {
  it('answers -32001 telling the client to poll when the task outlasts the wait a request may take', async () => {
    const impatient = await startTestServer({ resultWaitMs: 500 }, { tableName: server.tableName });
    try {
      const client = await connectClient(impatient.url, TOKENS.alice);
      const { task } = await client.request(
        {
          method: 'tools/call',
          params: { name: 'analyze_documents', arguments: { documents: ['a'], reviewSeconds: 30 }, task: {} },
        },
        CreateTaskResultSchema,
      );
      await expect(client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toMatchObject({
        code: -32001,
        message: expect.stringMatching(/poll tasks\/get/),
      });
      await client.experimental.tasks.cancelTask(task.taskId);
      await client.close();
    } finally {
      await impatient.close();
    }
  });
});

describe('after all of the above', () => {
  it('still completes a normal call', async () => {
    expect(
      (await alice.callTool({ name: 'text_stats', arguments: { text: 'still alive' } })).structuredContent,
    ).toMatchObject({ words: 2 });
  });
});
