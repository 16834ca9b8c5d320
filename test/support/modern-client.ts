// Modern-era (2026-07-28) clients for tests: the official 2.x client pinned to 2026-07-28, an ext-tasks session on
// top of it, and raw HTTP helpers for what no client exposes (exact error payloads, the listen stream).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { JsonValue } from '@modelcontextprotocol/ext-tasks/core';
import {
  createTaskSessionFromClient,
  type ApplicationInputHandler,
  type JsonRpcResponse,
  type RawClientDispatch,
  type TaskEnabledSession,
} from '@modelcontextprotocol/ext-tasks/client';
import { mcpNameOf } from '../../cli/modern-dispatch.js';
import { TOKENS } from './local-backend.js';

export const MODERN_VERSION = '2026-07-28';
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
export const CLIENT_INFO = { name: 'modern-test-client', version: '1.0.0' } as const;
/** Per-request capabilities of a client that declares the Tasks extension. */
export const WITH_TASKS = { extensions: { [TASKS_EXTENSION]: {} } } as const;

export type JsonRpcMessage = {
  jsonrpc: '2.0';
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
};

/** The official 2.x client, pinned to the modern era, connected over Streamable HTTP with a bearer token. */
export async function connectModernClient(url: string, token: string = TOKENS.alice): Promise<Client> {
  const client = new Client({ ...CLIENT_INFO }, { versionNegotiation: { mode: { pin: MODERN_VERSION } } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client;
}

let nextRequestId = 1;

/**
 * The standard headers a modern request must carry: `MCP-Protocol-Version`, `Mcp-Method` and, where it names something,
 * `Mcp-Name`.
 */
export function standardHeaders(message: { method: string; params?: Record<string, unknown> }): Record<string, string> {
  const name = mcpNameOf(message.method, message.params ?? {});
  return {
    'mcp-protocol-version': MODERN_VERSION,
    'mcp-method': message.method,
    ...(name !== undefined ? { 'mcp-name': name } : {}),
  };
}

/** The standard modern request headers for `message`, plus the bearer token. `Headers.set`, so nothing is doubled. */
export function modernHeaders(
  message: { method: string; params?: Record<string, unknown> },
  token: string,
  extra?: HeadersInit,
): Headers {
  const headers = new Headers(extra);
  headers.set('content-type', 'application/json');
  headers.set('accept', 'application/json, text/event-stream');
  for (const [name, value] of Object.entries(standardHeaders(message))) headers.set(name, value);
  headers.set('authorization', `Bearer ${token}`);
  return headers;
}

/** A modern request: `params._meta` carries the protocol version, client info and this request's capabilities. */
export function modernRequest(
  method: string,
  params: Record<string, unknown> = {},
  capabilities: Record<string, unknown> = WITH_TASKS,
): JsonRpcMessage & { method: string; id: number } {
  const meta = (params['_meta'] as Record<string, unknown> | undefined) ?? {};
  return {
    jsonrpc: '2.0',
    id: nextRequestId++,
    method,
    params: {
      ...params,
      _meta: {
        ...meta,
        'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
        'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
        'io.modelcontextprotocol/clientCapabilities': capabilities,
      },
    },
  };
}

/** POSTs one modern request with the standard headers; the raw response, for tests that look at status and stream. */
export function postModern(
  url: string,
  message: JsonRpcMessage & { method: string },
  token: string = TOKENS.alice,
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: modernHeaders(message, token),
    body: JSON.stringify(message),
    ...(signal ? { signal } : {}),
  });
}

/** The JSON-RPC messages of a server-sent event stream, in order, as they arrive. */
export async function* sseMessages(response: Response): AsyncGenerator<JsonRpcMessage> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data !== '') yield JSON.parse(data) as JsonRpcMessage;
    }
  }
}

/** The JSON-RPC messages of a whole server-sent event body. */
export function sseMessagesOf(body: string): JsonRpcMessage[] {
  return body
    .split('\n\n')
    .map((frame) =>
      frame
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n'),
    )
    .filter((data) => data !== '')
    .map((data) => JSON.parse(data) as JsonRpcMessage);
}

/** The response to `id` in a plain JSON or an SSE answer. */
async function responseTo(id: number, response: Response): Promise<JsonRpcMessage> {
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream'))
    return (await response.json()) as JsonRpcMessage;
  for await (const message of sseMessages(response))
    if (message.id === id && message.method === undefined) return message;
  throw new Error(`the stream ended without a response to request ${id}`);
}

/** Sends one modern request and returns its JSON-RPC response (a result or an error). */
export async function callModern(
  url: string,
  message: JsonRpcMessage & { method: string; id: number },
  token: string = TOKENS.alice,
): Promise<JsonRpcMessage> {
  return responseTo(message.id, await postModern(url, message, token));
}

/**
 * ext-tasks' raw path for the task wire shapes the 2.x client refuses (a `task` result, tasks/*): a fetch POST with
 * the standard headers. ext-tasks frames `_meta` itself and passes `Mcp-Name` for tasks/* in its context headers.
 */
export function fetchDispatch(url: string, token: string): RawClientDispatch {
  return async (request, options) => {
    const { method, params = {} } = request as { method: string; params?: Record<string, unknown> };
    const id = nextRequestId++;
    const message = { jsonrpc: '2.0' as const, id, method, params };
    const response = await fetch(url, {
      method: 'POST',
      headers: modernHeaders(message, token, options?.context?.headers),
      body: JSON.stringify(message),
      ...(options?.signal ? { signal: options.signal } : {}),
    });
    const answer = await responseTo(id, response);
    return (
      answer.error !== undefined
        ? { kind: 'error', error: answer.error }
        : { kind: 'result', result: answer.result as JsonValue }
    ) as JsonRpcResponse;
  };
}

/** A modern client and its ext-tasks session (which declares the Tasks extension on every task request). */
export interface ModernTaskClient {
  readonly client: Client;
  readonly session: TaskEnabledSession;
  close(): Promise<void>;
}

export interface TaskSessionOptions {
  /** Answers the tasks' input requests (elicitation, sampling, roots). */
  readonly onInputRequest?: ApplicationInputHandler['handle'];
  /** Another server instance on the same store to POST the answers (tasks/update) to, as a load balancer might. */
  readonly answerUrl?: string;
}

export async function connectTaskSession(
  url: string,
  token: string = TOKENS.alice,
  options: TaskSessionOptions = {},
): Promise<ModernTaskClient> {
  const client = await connectModernClient(url, token);
  const dispatch = fetchDispatch(url, token);
  const answerDispatch = options.answerUrl === undefined ? dispatch : fetchDispatch(options.answerUrl, token);
  const session = createTaskSessionFromClient(client, {
    endpointId: `${url}#${token}`,
    ...(options.onInputRequest !== undefined ? { onInputRequest: options.onInputRequest } : {}),
    rawDispatch: (request, dispatchOptions) =>
      ((request as { method: string }).method === 'tasks/update' ? answerDispatch : dispatch)(request, dispatchOptions),
    v2RequestFraming: { protocolVersion: MODERN_VERSION, clientInfo: { ...CLIENT_INFO }, clientCapabilities: {} },
  });
  return {
    client,
    session,
    close: async () => {
      await session.close();
      await client.close();
    },
  };
}
