// The deployed MCP Lambda handler (streaming), fed real API Gateway REST proxy events with Cognito authorizer
// context, on the local stack; its output is read back the way API Gateway reads a streamed integration response.
import { STATUS_TOOL_NAMES } from '../../lambda/contract/tool-definition.js';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { declaredCatalogKey } from '../../lambda/contract/declared-tool-catalog.js';
import { ENV, MCP_HTTP_ENV } from '../../lambda/contract/environment-names.js';
import { HTTP_INTEGRATION_CONTENT_TYPE, type StreamingHandler } from '../../lambda/handlers/response-streaming.js';
import { writeDeclaredCatalog } from '../../local/declared-tool-catalog.js';
import { localAwsEnvironment } from '../../local/local-aws.js';
import type { LocalStatusEvents } from '../../local/status-events-stand-in.js';
import {
  createTestTable,
  exampleTools,
  GENEROUS_WAIT,
  localAwsClients,
  startTestStatusEvents,
} from '../support/local-backend.js';
import { modernRequest, sseMessagesOf, standardHeaders, type JsonRpcMessage } from '../support/modern-client.js';
import { UNAUTHORIZED_ERROR_CODE } from '../../lambda/contract/unauthorized-error.js';
import {
  accessTokenClaims,
  DOMAIN,
  invokeStreaming as invoke,
  proxyEvent,
  STAGE,
  type Claims,
  type StreamedResponse,
} from '../support/api-gateway-events.js';

type McpHandler = StreamingHandler<APIGatewayProxyEvent>;

/** Loads a fresh copy of the handler module, which builds its backend from the environment at load, as in Lambda. */
async function loadHandler(extraEnv: Record<string, string> = {}): Promise<McpHandler> {
  const tableName = await tableWithStatusEvents();
  Object.assign(process.env, {
    ...localAwsEnvironment({
      dynamoDbEndpoint: inject('dynamoDbEndpoint'),
      stepFunctionsEndpoint: inject('stepFunctionsEndpoint'),
    }),
    [ENV.tableName]: tableName,
    [ENV.pollIntervalMs]: '200',
    [ENV.resultWaitMs]: '30000',
    // The catalog item as the construct's custom resource writes it, and its key as the function's environment has it.
    [ENV.toolCatalogItem]: await writeDeclaredCatalog(localAwsClients().dynamoDb, tableName, exampleTools()),
    ...extraEnv,
  });
  vi.resetModules();
  return ((await import('../../lambda/handlers/mcp-http.js')) as { handler: McpHandler }).handler;
}

afterEach(() => {
  for (const name of [MCP_HTTP_ENV.openEndpointOwner, MCP_HTTP_ENV.corsAllowOrigins, ENV.discoveredTools])
    delete process.env[name];
});

const statusEvents: LocalStatusEvents[] = [];
afterAll(async () => {
  for (const each of statusEvents) await each.stop();
});

/** A fresh task table, with the status events (EventBridge and status sync in AWS) recording what executions do. */
async function tableWithStatusEvents(): Promise<string> {
  const tableName = await createTestTable();
  statusEvents.push(await startTestStatusEvents(tableName));
  return tableName;
}

const INITIALIZE_PARAMS = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'test', version: '1' },
};

let nextId = 1;
function rpc(method: string, params: Record<string, unknown> = {}): Record<string, unknown> {
  return { jsonrpc: '2.0', id: nextId++, method, params };
}

/**
 * The JSON-RPC answer to a legacy request: a plain JSON body, or the end of a stream (a waiting call may ask the client
 * for input on it).
 */
async function call(
  handler: McpHandler,
  body: unknown,
  claims?: Claims | null,
): Promise<{ result?: Record<string, unknown>; error?: { message: string } }> {
  const response = await invoke(handler, proxyEvent({ body, ...(claims !== undefined ? { claims } : {}) }));
  if (!(response.headers['content-type'] ?? '').includes('text/event-stream'))
    return JSON.parse(response.body) as { result?: Record<string, unknown>; error?: { message: string } };
  const id = (body as { id?: unknown }).id;
  return sseMessagesOf(response.body).find((answer) => answer.id === id && answer.method === undefined) as {
    result?: Record<string, unknown>;
    error?: { message: string };
  };
}

/**
 * A modern-era (2026-07-28) request through the handler: the `_meta` envelope in the body, the standard headers beside
 * it.
 */
async function invokeModern(
  handler: McpHandler,
  message: JsonRpcMessage & { method: string },
  claims: Claims,
): Promise<StreamedResponse> {
  return invoke(handler, proxyEvent({ body: message, claims, headers: standardHeaders(message) }));
}

/** The JSON-RPC answer to a modern request, from a plain JSON body or the end of a stream. */
async function callModernEra(
  handler: McpHandler,
  method: string,
  params: Record<string, unknown>,
  claims: Claims,
): Promise<JsonRpcMessage> {
  const message = modernRequest(method, params);
  const response = await invokeModern(handler, message, claims);
  if (!(response.headers['content-type'] ?? '').includes('text/event-stream'))
    return JSON.parse(response.body) as JsonRpcMessage;
  return sseMessagesOf(response.body).find((answer) => answer.id === message.id && answer.method === undefined)!;
}

describe('MCP Lambda handler', () => {
  let handler: McpHandler;
  beforeAll(async () => {
    handler = await loadHandler();
  });

  describe('response streaming', () => {
    it('writes the API Gateway prelude (status, headers) and 8 NUL bytes before the body', async () => {
      const response = await invoke(
        handler,
        proxyEvent({
          body: rpc('initialize', INITIALIZE_PARAMS),
        }),
      );
      expect(response.contentType).toBe(HTTP_INTEGRATION_CONTENT_TYPE);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toContain('application/json');
      expect(JSON.parse(response.body)).toMatchObject({ result: { serverInfo: { name: 'mcp-tasks-sfn' } } });
    });

    it('sends the prelude for a response without a body (DELETE of a stateless session)', async () => {
      const response = await invoke(handler, proxyEvent({ method: 'DELETE' }));
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe('');
    });

    it('reads a base64-encoded request body', async () => {
      const response = await invoke(handler, proxyEvent({ body: rpc('tools/list'), base64: true }));
      // The declared tools, and the status tools a request that names no session is shown.
      expect(JSON.parse(response.body).result.tools).toHaveLength(
        exampleTools().length + Object.values(STATUS_TOOL_NAMES).length,
      );
    });
  });

  describe('tools', () => {
    it('lists the tools of the declared catalog its environment names', async () => {
      const { result } = await call(handler, rpc('tools/list'));
      expect((result?.['tools'] as { name: string }[]).map((tool) => tool.name).sort()).toEqual(
        [...exampleTools().map((tool) => tool.name), ...Object.values(STATUS_TOOL_NAMES)].sort(),
      );
    });
  });

  describe('tasks and owners', () => {
    it('creates a task for the token subject and answers tasks/result with the tool result', async () => {
      const created = await call(
        handler,
        rpc('tools/call', { name: 'text_stats', arguments: { text: 'one two three' }, task: { ttl: 60_000 } }),
      );
      const taskId = (created.result?.['task'] as { taskId: string }).taskId;
      const { result } = await call(handler, rpc('tasks/result', { taskId }));
      expect(result?.['structuredContent']).toMatchObject({ words: 3 });
    });

    it('keeps one owner’s task invisible to another', async () => {
      const created = await call(
        handler,
        rpc('tools/call', { name: 'text_stats', arguments: { text: 'private words' }, task: { ttl: 60_000 } }),
      );
      const taskId = (created.result?.['task'] as { taskId: string }).taskId;
      expect((await call(handler, rpc('tasks/get', { taskId }))).result?.['taskId']).toBe(taskId);
      expect((await call(handler, rpc('tasks/get', { taskId }), accessTokenClaims('bob-sub'))).error?.message).toMatch(
        /not found/i,
      );
    });

    it('takes a machine client’s client_id as the owner when the token has no subject', async () => {
      const machine = { client_id: `machine-${randomUUID()}`, token_use: 'access', scope: 'mcp-tasks/invoke' };
      await call(
        handler,
        rpc('tools/call', { name: 'text_stats', arguments: { text: 'batch job' }, task: { ttl: 60_000 } }),
        machine,
      );
      const listed = await call(handler, rpc('tasks/list'), machine);
      expect(listed.result?.['tasks']).toHaveLength(1);
      expect(
        (await call(handler, rpc('tasks/list'), { ...machine, client_id: 'another-machine' })).result?.['tasks'],
      ).toHaveLength(0);
    });
  });

  describe('modern era (2026-07-28) tasks and owners', () => {
    const alice = accessTokenClaims('alice-sub');
    const bob = accessTokenClaims('bob-sub');

    async function createModernTask(
      name: string,
      args: Record<string, unknown>,
      claims: Claims,
      meta: Record<string, unknown> = {},
    ): Promise<string> {
      const { result } = await callModernEra(handler, 'tools/call', { name, arguments: args, _meta: meta }, claims);
      expect(result).toMatchObject({ resultType: 'task', status: 'working' });
      return result!['taskId'] as string;
    }

    it('creates a task for the token subject, and tasks/get inlines its result for that owner', async () => {
      const taskId = await createModernTask('text_stats', { text: 'one two three' }, alice);
      const task = await vi.waitUntil(async () => {
        const { result } = await callModernEra(handler, 'tasks/get', { taskId }, alice);
        return result?.['status'] === 'completed' && result;
      }, GENEROUS_WAIT);
      expect(task['result']).toMatchObject({ resultType: 'complete', structuredContent: { words: 3 } });
    });

    it('answers another owner’s tasks/get and tasks/update -32602, as for a task that does not exist', async () => {
      const taskId = await createModernTask('text_stats', { text: 'private words' }, alice);
      expect((await callModernEra(handler, 'tasks/get', { taskId }, alice)).result?.['taskId']).toBe(taskId);
      expect((await callModernEra(handler, 'tasks/get', { taskId }, bob)).error).toMatchObject({
        code: -32602,
        message: expect.stringMatching(/not found/i),
      });
      expect((await callModernEra(handler, 'tasks/update', { taskId, inputResponses: {} }, bob)).error).toMatchObject({
        code: -32602,
      });
    });

    it('does not let another owner cancel a task: -32602, and the task keeps working', async () => {
      const taskId = await createModernTask(
        'analyze_documents',
        { documents: ['long review'], reviewSeconds: 300 },
        alice,
      );
      try {
        expect((await callModernEra(handler, 'tasks/cancel', { taskId }, bob)).error).toMatchObject({ code: -32602 });
        expect((await callModernEra(handler, 'tasks/get', { taskId }, alice)).result?.['status']).toBe('working');
      } finally {
        await callModernEra(handler, 'tasks/cancel', { taskId }, alice);
      }
    });

    async function listen(taskId: string, claims: Claims): Promise<JsonRpcMessage[]> {
      return sseMessagesOf(
        (
          await invokeModern(
            handler,
            modernRequest('subscriptions/listen', { notifications: { taskIds: [taskId] } }),
            claims,
          )
        ).body,
      );
    }

    it('streams a subscription to the owner’s own task through the handler: acknowledgement, then the task', async () => {
      const taskId = await createModernTask('text_stats', { text: 'watched words' }, alice);
      await vi.waitUntil(
        async () => (await callModernEra(handler, 'tasks/get', { taskId }, alice)).result?.['status'] === 'completed',
        GENEROUS_WAIT,
      );
      const messages = await listen(taskId, alice);
      expect(messages[0]).toMatchObject({
        method: 'notifications/subscriptions/acknowledged',
        params: { notifications: { taskIds: [taskId] } },
      });
      expect(messages[1]).toMatchObject({ method: 'notifications/tasks', params: { taskId, status: 'completed' } });
    });

    it('acknowledges another owner’s subscription with no task IDs, and sends them nothing about the task', async () => {
      const taskId = await createModernTask('text_stats', { text: 'watched words' }, alice);
      const messages = await listen(taskId, bob);
      expect(messages[0]).toMatchObject({
        method: 'notifications/subscriptions/acknowledged',
        params: { notifications: { taskIds: [] } },
      });
      expect(messages.filter((message) => message.method === 'notifications/tasks')).toEqual([]);
    });

    it('takes the owner from the authorizer claims only, not from the _meta envelope', async () => {
      const spoof = { owner: 'bob-sub', sub: 'bob-sub', 'io.modelcontextprotocol/owner': 'bob-sub' };
      const taskId = await createModernTask('text_stats', { text: 'spoofed owner' }, alice, spoof);
      expect((await callModernEra(handler, 'tasks/get', { taskId }, alice)).result?.['taskId']).toBe(taskId);
      expect((await callModernEra(handler, 'tasks/get', { taskId }, bob)).error).toMatchObject({ code: -32602 });
    });
  });

  describe('authentication', () => {
    it('answers a request without authorizer context 401, pointing at the protected resource metadata', async () => {
      const response = await invoke(handler, proxyEvent({ body: rpc('tools/list'), claims: null }));
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe(
        `Bearer resource_metadata="https://${DOMAIN}/${STAGE}/.well-known/oauth-protected-resource"`,
      );
    });

    it('takes the owner from the authorizer claims only, not from owner-looking headers or params._meta', async () => {
      const bob = `bob-${randomUUID()}`;
      const spoof = { 'X-Owner': bob, 'X-Amzn-Oidc-Identity': bob, 'X-Forwarded-User': bob };
      const body = rpc('tools/call', {
        name: 'text_stats',
        arguments: { text: 'spoofed owner' },
        task: { ttl: 60_000 },
        _meta: { owner: bob, sub: bob, client_id: bob, 'io.modelcontextprotocol/owner': bob },
      });
      const created = JSON.parse(
        (await invoke(handler, proxyEvent({ body, claims: accessTokenClaims('alice-sub'), headers: spoof }))).body,
      ) as { result?: Record<string, unknown> };
      const taskId = (created.result?.['task'] as { taskId: string }).taskId;
      expect(taskId).toEqual(expect.any(String));
      expect(
        (await call(handler, rpc('tasks/get', { taskId }), accessTokenClaims('alice-sub'))).result?.['taskId'],
      ).toBe(taskId);
      expect((await call(handler, rpc('tasks/get', { taskId }), accessTokenClaims(bob))).error?.message).toMatch(
        /not found/i,
      );
      expect((await call(handler, rpc('tasks/list'), accessTokenClaims(bob))).result?.['tasks']).toEqual([]);
    });

    it('answers an event without requestContext 401 rather than failing', async () => {
      const { requestContext: _, ...event } = proxyEvent({ body: rpc('tools/list') });
      const response = await invoke(handler, event as APIGatewayProxyEvent);
      expect(response.statusCode).toBe(401);
      expect(JSON.parse(response.body)).toMatchObject({ error: { code: UNAUTHORIZED_ERROR_CODE } });
      expect(response.headers['www-authenticate']).toMatch(
        /^Bearer resource_metadata="https:\/\/[^"]+\/\.well-known\/oauth-protected-resource"$/,
      );
    });

    it('takes no identity from what the client sends: a bearer token alone is not an owner', async () => {
      const response = await invoke(
        handler,
        proxyEvent({
          body: rpc('tools/list'),
          claims: null,
          headers: { Authorization: 'Bearer alice', 'X-Owner': 'alice' },
        }),
      );
      expect(response.statusCode).toBe(401);
    });
  });
});

describe('MCP Lambda handler deployed open (openEndpoint)', () => {
  it('serves a request without authorizer context as the one fixed owner', async () => {
    const handler = await loadHandler({ [MCP_HTTP_ENV.openEndpointOwner]: 'anonymous' });
    await call(
      handler,
      rpc('tools/call', { name: 'text_stats', arguments: { text: 'open door' }, task: { ttl: 60_000 } }),
      null,
    );
    expect((await call(handler, rpc('tasks/list'), null)).result?.['tasks']).toHaveLength(1);
  });
});

describe('MCP Lambda handler with CORS origins', () => {
  it('lets an allowed origin read the response, and no other', async () => {
    const handler = await loadHandler({ [MCP_HTTP_ENV.corsAllowOrigins]: 'https://app.example.com' });
    const allowed = await invoke(
      handler,
      proxyEvent({ body: rpc('tools/list'), headers: { origin: 'https://app.example.com' } }),
    );
    const other = await invoke(
      handler,
      proxyEvent({ body: rpc('tools/list'), headers: { origin: 'https://evil.example.net' } }),
    );
    expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('MCP Lambda handler: GET /mcp, the standalone stream', () => {
  const get = proxyEvent({ method: 'GET', headers: { Accept: 'text/event-stream' } });

  it('answers 405 where the tools are only declared', async () => {
    const response = await invoke(await loadHandler(), get);
    expect(response.statusCode).toBe(405);
    expect(response.headers['allow']).toBe('POST, DELETE');
  });

  it('streams where tools are discovered: when to reconnect, the catalog told of, and an end within its lifetime', async () => {
    const handler = await loadHandler({ [ENV.discoveredTools]: 'true', [ENV.resultWaitMs]: '1000' });
    const response = await invoke(handler, get);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/event-stream');
    expect(response.body).toMatch(/^retry: 200\n\nid: none\.[0-9a-f]{8}\ndata: \n\n/);
  });
});

describe('MCP Lambda handler whose declared tool catalog is missing from the table', () => {
  it('answers every request that needs the tools a JSON-RPC internal error that says so, with no stack', async () => {
    const handler = await loadHandler({ [ENV.toolCatalogItem]: declaredCatalogKey('never-written') });
    // The handshake needs no tool: it is answered, and the fault shows at the first request that does.
    const initialized = await invoke(handler, proxyEvent({ body: rpc('initialize', INITIALIZE_PARAMS) }));
    expect(initialized.statusCode).toBe(200);
    for (const method of ['tools/list', 'tools/call']) {
      const response = await invoke(handler, proxyEvent({ body: rpc(method) }));
      expect(response.statusCode).toBe(500);
      const answer = JSON.parse(response.body) as { error: { code: number; message: string } };
      expect(answer.error).toEqual({ code: -32603, message: expect.stringMatching(/no tool catalog/) });
      expect(response.body).not.toMatch(/ at |catalog#declared/);
    }
  });
});
