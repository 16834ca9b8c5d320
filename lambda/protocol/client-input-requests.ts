// Input requests on the 2025-era streams: while a request waits on a task (a plain tools/call, a 2025-11-25
// tasks/result, a SEP-1686 tools/call), each open input request of the task goes to the client on that request's SSE
// stream as a server->client JSON-RPC request; the client POSTs its JSON-RPC response, to any instance.
//
// Routing without sessions: the request's JSON-RPC id names the task and the input key, so whichever instance the
// response reaches knows what it answers. The id is not a credential: the owner comes from the POST's own auth, and
// the task is looked up as that owner's (another owner's id finds nothing, exactly like an unknown one).
import { TaskExpiredError, TaskNotFoundError, InvalidInputResponseError, InputDeliveryError } from '../core/errors.js';
import { openInputRequests } from '../core/input-request.js';
import type { TaskRecord } from '../core/task.js';
import type { InputService } from '../service/input-service.js';
import type { Logger } from '../core/logger.js';
import { toMcpError } from './protocol-errors.js';

const ID_PREFIX = 'mcp-tasks-sfn/input/';

/** A server->client request as the 1.x transport sends it. */
export interface ClientInputRequest {
  readonly jsonrpc: '2.0';
  readonly id: string;
  readonly method: string;
  readonly params: Record<string, unknown>;
}

/** The JSON-RPC id of the request asking input `key` of task `taskId`: both, readable by any instance. */
export function inputRequestId(taskId: string, key: string): string {
  return ID_PREFIX + Buffer.from(JSON.stringify([taskId, key])).toString('base64url');
}

/** The task and input key an id made by {@link inputRequestId} names; `undefined` for any other id. */
export function inputRequestOf(id: unknown): { taskId: string; key: string } | undefined {
  if (typeof id !== 'string' || !id.startsWith(ID_PREFIX)) return undefined;
  try {
    const decoded: unknown = JSON.parse(Buffer.from(id.slice(ID_PREFIX.length), 'base64url').toString('utf8'));
    if (
      Array.isArray(decoded) &&
      decoded.length === 2 &&
      typeof decoded[0] === 'string' &&
      typeof decoded[1] === 'string'
    )
      return { taskId: decoded[0], key: decoded[1] };
  } catch {
    // not one of ours
  }
  return undefined;
}

/**
 * What to pass to a wait as its `onRead`: sends each open input request of the task once per stream, with `related`
 * as its `_meta` (the dialect's related-task key; none for a plain tools/call, whose task the client never sees).
 * A request whose answer was refused stays open but is not sent again on this stream; the client answers it again.
 */
export function inputRequestSender(
  send: (message: ClientInputRequest) => Promise<void>,
  related?: (taskId: string) => Record<string, unknown>,
): (task: TaskRecord) => Promise<void> {
  const sent = new Set<string>();
  return async (task) => {
    for (const { key, request } of openInputRequests(task.inputRequests)) {
      if (sent.has(key)) continue;
      sent.add(key);
      const meta = related?.(task.taskId);
      const params = { ...(request.params ?? {}), ...(meta !== undefined ? { _meta: meta } : {}) };
      // A client gone mid-wait must not fail the wait: its abort signal ends it anyway.
      await send({ jsonrpc: '2.0', id: inputRequestId(task.taskId, key), method: request.method, params }).catch(
        () => undefined,
      );
    }
  };
}

/** A JSON-RPC response (a result or an error, no method): what a client POSTs to answer a server->client request. */
export interface ClientResponse {
  readonly id: string | number;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string };
}

export function clientResponseOf(body: unknown): ClientResponse | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const message = body as Record<string, unknown>;
  if (message['jsonrpc'] !== '2.0' || 'method' in message) return undefined;
  const { id } = message;
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  if ('result' in message) return { id, result: message['result'] };
  const error = message['error'] as { code?: unknown; message?: unknown } | undefined;
  if (typeof error?.code === 'number')
    return { id, error: { code: error.code, message: typeof error.message === 'string' ? error.message : '' } };
  return undefined;
}

const accepted = (): Response => new Response(null, { status: 202 });

function errorResponse(status: number, error: { code: number; message: string; data?: unknown }): Response {
  const body = {
    jsonrpc: '2.0',
    id: null,
    error: { code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) },
  };
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/**
 * Delivers a client's response to the input request its id names, as `owner`, and answers the POST: 202 once it is
 * delivered or ignored (an unknown id, another owner's task, an answered request: indistinguishable, so nothing
 * leaks); 400 with -32602 when the answer does not fit its request (it stays open); 503 with a retryable -32603 when
 * Step Functions did not take it (it stays open; POST it again).
 */
export async function acceptClientResponse(
  inputs: InputService,
  owner: string,
  response: ClientResponse,
  logger: Logger,
): Promise<Response> {
  const target = inputRequestOf(response.id);
  // Not an id this server made: the stateless 1.x transport would drop it too.
  if (target === undefined) return accepted();
  try {
    if (response.error !== undefined) await inputs.refuse(owner, target.taskId, target.key, response.error);
    else await inputs.answer(owner, target.taskId, { [target.key]: response.result });
    return accepted();
  } catch (error) {
    if (error instanceof TaskNotFoundError || error instanceof TaskExpiredError) return accepted();
    const translated = toMcpError(error, logger);
    const status = error instanceof InvalidInputResponseError ? 400 : error instanceof InputDeliveryError ? 503 : 500;
    return errorResponse(status, translated);
  }
}
