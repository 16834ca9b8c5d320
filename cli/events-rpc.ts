// The Events extension's wire from the client side: its names and error codes, and one JSON-RPC request POSTed to the
// MCP endpoint with the CLI's bearer token, answered as JSON or as a server-sent event stream. The stream follower
// (event-stream.ts) and the webhook subscription build on it.
import { ServerError } from './cli-errors.js';
import type { Endpoint } from './endpoint.js';
import { readSse } from './sse-parser.js';

export const EVENTS_EXTENSION = 'io.modelcontextprotocol/events';
/** One task's sequenced log; its cursor is the seq as a decimal string, `"0"` for the start. */
export const TASK_EVENTS = 'task.events';
/** Every change of any of the caller's tasks (webhook delivery only). */
export const TASKS_UPDATED = 'tasks.updated';

/** The JSON-RPC error codes the Events extension answers with (lambda/protocol's events errors). */
export const EVENTS_ERROR = {
  methodNotFound: -32601,
  invalidParams: -32602,
  notFound: -32011,
  forbidden: -32012,
  resourceExhausted: -32013,
  unsupported: -32014,
  callbackEndpointError: -32015,
} as const;

/** A JSON-RPC error answer to an events/* request. */
export class EventsRpcError extends Error {
  override name = 'EventsRpcError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export interface JsonRpcMessage {
  readonly id?: string | number | null;
  readonly method?: string;
  readonly params?: unknown;
  readonly result?: unknown;
  readonly error?: { readonly code?: unknown; readonly message?: unknown; readonly data?: unknown };
}

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface EventsTransport {
  readonly endpoint: Endpoint;
  /** The fetch to send with; the global one unless a test gives its own. */
  readonly fetch?: FetchLike;
}

/** POSTs one JSON-RPC request to the MCP endpoint, accepting a JSON or an event-stream answer. */
export function postJsonRpc(
  transport: EventsTransport,
  request: { id: number; method: string; params: Record<string, unknown> },
  options: { signal?: AbortSignal; lastEventId?: string } = {},
): Promise<Response> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  if (transport.endpoint.token) headers['authorization'] = `Bearer ${transport.endpoint.token}`;
  if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
  return (transport.fetch ?? fetch)(transport.endpoint.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', ...request }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function contentTypeOf(response: Response): string {
  return (response.headers.get('content-type') ?? '').toLowerCase();
}

export function rpcErrorOf(message: JsonRpcMessage): EventsRpcError {
  const { code, message: text, data } = message.error ?? {};
  return new EventsRpcError(typeof code === 'number' ? code : 0, typeof text === 'string' ? text : 'error', data);
}

/** The first JSON-RPC answer to `id` in a response, JSON or an event stream. */
export async function answerOf(response: Response, id: number): Promise<JsonRpcMessage> {
  const contentType = contentTypeOf(response);
  if (contentType.includes('text/event-stream') && response.body !== null) {
    for await (const frame of readSse(response.body)) {
      const message = JSON.parse(frame.data) as JsonRpcMessage;
      if (isRecord(message) && message.method === undefined && message.id === id) return message;
    }
    throw new ServerError('The server ended its answer without a response.');
  }
  if (contentType.includes('json')) return (await response.json()) as JsonRpcMessage;
  throw new ServerError(`The server answered HTTP ${response.status} (${contentType || 'no content type'}).`);
}

/** An error and up to two of its causes, as one line. */
export function describeError(error: unknown): string {
  const messages: string[] = [];
  for (let current: unknown = error; current instanceof Error && messages.length < 3; current = current.cause)
    messages.push(current.message);
  return messages.join(': ') || String(error);
}
