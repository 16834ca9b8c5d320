// The MCP Events extension (`io.modelcontextprotocol/events`) from the client side, over plain fetch: a task's event
// log as a server-sent event stream (`events/stream`, event type `task.events`), followed across dropped connections,
// and webhook subscriptions (`events/subscribe`). Each request is one JSON-RPC POST (events-rpc.ts); the server answers
// events/stream with text/event-stream, each frame a JSON-RPC notification (active, event, heartbeat) and, when the
// task has ended or the server's own time limit is up, the final response. The follower remembers the cursor of the
// last event it saw and resumes from it, so a reader sees each event once, in order, whatever happens to the
// connection.
import { EventStreamUnavailableError, ServerError, UnknownTaskError, UsageError } from './cli-errors.js';
import type { Endpoint } from './endpoint.js';
import {
  answerOf,
  contentTypeOf,
  describeError,
  EVENTS_ERROR,
  EVENTS_EXTENSION,
  EventsRpcError,
  TASK_EVENTS,
  isRecord,
  postJsonRpc,
  rpcErrorOf,
  type EventsTransport,
  type JsonRpcMessage,
} from './events-rpc.js';
import { readSse } from './sse-parser.js';
import {
  isTerminal,
  type FollowItem,
  type FollowOptions,
  type TaskEventOccurrence,
  type TaskEvents,
  type TaskStatus,
  type WebhookSubscribeRequest,
  type WebhookSubscriptionInfo,
} from './task-client.js';

const STATUSES: ReadonlySet<string> = new Set<TaskStatus>([
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
]);
/**
 * Statuses a server may report beyond the five every dialect shares, read as 2025-11-25 shows them: this project's
 * server reports a task it has accepted but not yet seen running as `submitted`, and one whose execution's state
 * cannot be told as `unknown` (terminal).
 */
const STATUS_ALIASES: Readonly<Record<string, TaskStatus>> = { submitted: 'working', unknown: 'failed' };

/**
 * A status in the CLI's words; one it has never heard of counts as still running (the stream's end, or tasks/get,
 * then says how the task ended).
 */
function statusOf(status: string): TaskStatus {
  return STATUSES.has(status) ? (status as TaskStatus) : (STATUS_ALIASES[status] ?? 'working');
}

/**
 * A `notifications/events/event`'s params, when they are a task event as `task.events` defines it, with the task's
 * status in the CLI's words.
 */
export function occurrenceOf(params: unknown): TaskEventOccurrence | undefined {
  if (!isRecord(params) || typeof params['eventId'] !== 'string' || !isRecord(params['data'])) return undefined;
  const data = params['data'];
  const task = data['task'];
  if (typeof data['taskId'] !== 'string' || !Number.isSafeInteger(data['seq']) || !isRecord(task)) return undefined;
  if (typeof task['taskId'] !== 'string' || typeof task['status'] !== 'string') return undefined;
  if (!Array.isArray(data['changes'])) return undefined;
  const cursor = params['cursor'];
  return {
    ...params,
    data: { ...data, task: { ...task, status: statusOf(task['status']) } },
    eventId: params['eventId'],
    name: typeof params['name'] === 'string' ? params['name'] : TASK_EVENTS,
    timestamp: typeof params['timestamp'] === 'string' ? params['timestamp'] : '',
    cursor: typeof cursor === 'string' ? cursor : null,
  } as TaskEventOccurrence;
}

/** What one connection of events/stream produces, frame by frame. */
type StreamMessage =
  | { readonly kind: 'active'; readonly cursor?: string; readonly truncated: boolean }
  | { readonly kind: 'event'; readonly occurrence: TaskEventOccurrence }
  | { readonly kind: 'heartbeat' };

/** How one connection ended: with the server's final response, or cut (by the network, a timeout, or the server). */
type StreamEnd = { readonly kind: 'complete' } | { readonly kind: 'dropped'; readonly reason: string };

class IdleTimeout extends Error {}

/**
 * One POST of events/stream: yields its frames, returns how it ended. Throws `EventsRpcError` for a JSON-RPC error
 * answer, `EventStreamUnavailableError` for an answer that is no event stream (a 4xx without JSON-RPC), and the
 * abort reason when `signal` aborts; everything else (a refused connection, a 5xx, a cut or silent stream) is a drop.
 */
async function* streamOnce(
  transport: EventsTransport,
  request: { id: number; taskId: string; cursor: string; lastEventId?: string },
  options: { signal?: AbortSignal; idleTimeoutMs: number },
): AsyncGenerator<StreamMessage, StreamEnd> {
  const connection = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, connection.signal]) : connection.signal;
  let idle: ReturnType<typeof setTimeout> | undefined;
  const armIdle = () => {
    clearTimeout(idle);
    idle = setTimeout(() => connection.abort(new IdleTimeout()), options.idleTimeoutMs);
  };
  try {
    armIdle();
    let response: Response;
    try {
      response = await postJsonRpc(
        transport,
        {
          id: request.id,
          method: 'events/stream',
          params: { name: TASK_EVENTS, arguments: { taskId: request.taskId }, cursor: request.cursor },
        },
        { signal, ...(request.lastEventId !== undefined ? { lastEventId: request.lastEventId } : {}) },
      );
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      return { kind: 'dropped', reason: dropReason(error, connection.signal, options.idleTimeoutMs) };
    }
    const contentType = contentTypeOf(response);
    if (contentType.includes('application/json')) {
      const message = (await response.json().catch(() => ({}))) as JsonRpcMessage;
      if (message.error !== undefined) throw rpcErrorOf(message);
      if (message.result !== undefined) return { kind: 'complete' };
      return { kind: 'dropped', reason: `HTTP ${response.status} with no JSON-RPC answer` };
    }
    if (!contentType.includes('text/event-stream') || response.body === null) {
      await response.body?.cancel().catch(() => {});
      if (response.status >= 500 || response.status === 429 || response.status === 408)
        return { kind: 'dropped', reason: `HTTP ${response.status}` };
      throw new EventStreamUnavailableError(
        `events/stream got HTTP ${response.status} (${contentType || 'no content type'}), not an event stream`,
      );
    }
    try {
      for await (const frame of readSse(response.body)) {
        armIdle();
        let message: JsonRpcMessage;
        try {
          message = JSON.parse(frame.data) as JsonRpcMessage;
        } catch {
          return { kind: 'dropped', reason: 'a frame that is not JSON' };
        }
        if (!isRecord(message)) continue;
        if (message.method === undefined) {
          // One request per connection: its response is the final frame, however the server spelled the ID.
          if (message.error !== undefined) throw rpcErrorOf(message);
          if (message.result !== undefined) return { kind: 'complete' };
          continue;
        }
        const params = isRecord(message.params) ? message.params : {};
        if (message.method === 'notifications/events/event') {
          const occurrence = occurrenceOf(params);
          if (occurrence === undefined) return { kind: 'dropped', reason: 'an event of an unknown shape' };
          yield { kind: 'event', occurrence };
        } else if (message.method === 'notifications/events/active') {
          const cursor = params['cursor'];
          yield {
            kind: 'active',
            ...(typeof cursor === 'string' ? { cursor } : {}),
            truncated: params['truncated'] === true,
          };
        } else if (message.method === 'notifications/events/heartbeat') yield { kind: 'heartbeat' };
      }
    } catch (error) {
      if (error instanceof EventsRpcError) throw error;
      if (options.signal?.aborted) throw options.signal.reason;
      return { kind: 'dropped', reason: dropReason(error, connection.signal, options.idleTimeoutMs) };
    }
    return { kind: 'dropped', reason: 'the stream ended before the final response' };
  } finally {
    clearTimeout(idle);
    connection.abort();
  }
}

function dropReason(error: unknown, connection: AbortSignal, idleTimeoutMs: number): string {
  if (!connection.aborted || !(connection.reason instanceof IdleTimeout)) return describeError(error);
  const silence = idleTimeoutMs >= 1000 ? `${Math.round(idleTimeoutMs / 1000)} s` : `${idleTimeoutMs} ms`;
  return `nothing from the server for ${silence}`;
}

export interface FollowTaskEventsOptions extends FollowOptions, EventsTransport {
  readonly taskId: string;
  /** Reconnections in a row, without a new event or heartbeat between them, before giving up. Default 3. */
  readonly retries?: number;
  /** The pause before reconnection `attempt` (1, 2, …). Default 0.5 s, 1 s, 2 s, … */
  readonly backoffMs?: (attempt: number) => number;
  /** A connection with no frame for this long counts as dropped (the server sends a heartbeat every ~15 s). */
  readonly idleTimeoutMs?: number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

const DEFAULT_RETRIES = 3;
const DEFAULT_IDLE_TIMEOUT_MS = 45_000;
const defaultBackoff = (attempt: number) => 500 * 2 ** (attempt - 1);

/** Waits `ms`, or rejects with the abort reason as soon as `signal` aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Follows one task's `task.events` until its terminal event. Starts at `cursor` ("0": the whole log); after a dropped
 * connection it reconnects with the cursor of the last event it yielded (as params.cursor and Last-Event-ID) after a
 * short backoff, and skips any event it has already yielded, so each event comes once and in order. When the server
 * ends a stream without a terminal event (its own time limit), it asks `isEnded` and reconnects unless the task has
 * ended. Throws `UnknownTaskError` for a task the server does not know, `EventStreamUnavailableError` for any other
 * refusal or after `retries` failed reconnections in a row.
 */
export async function* followTaskEvents(options: FollowTaskEventsOptions): AsyncGenerator<FollowItem, void> {
  const retries = options.retries ?? DEFAULT_RETRIES;
  const backoff = options.backoffMs ?? defaultBackoff;
  const sleep = options.sleep ?? abortableSleep;
  let cursor = options.cursor ?? '0';
  let lastSeq = /^\d+$/.test(cursor) ? Number(cursor) : 0;
  let failures = 0;
  let requestId = 0;
  for (;;) {
    const connection = streamOnce(
      options,
      {
        id: ++requestId,
        taskId: options.taskId,
        cursor,
        // A reconnection names its position the SSE way too; the server prefers the header.
        ...(requestId > 1 ? { lastEventId: cursor } : {}),
      },
      {
        ...(options.signal ? { signal: options.signal } : {}),
        idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
      },
    );
    let end: StreamEnd;
    let heard = false;
    try {
      for (;;) {
        const step = await connection.next();
        if (step.done) {
          end = step.value;
          break;
        }
        const message = step.value;
        if (message.kind === 'heartbeat') {
          heard = true;
          failures = 0;
        } else if (message.kind === 'active') {
          if (message.truncated) yield { kind: 'truncated', cursor };
        } else {
          const { occurrence } = message;
          if (occurrence.data.taskId !== options.taskId || occurrence.data.seq <= lastSeq) continue;
          heard = true;
          failures = 0;
          lastSeq = occurrence.data.seq;
          cursor = occurrence.cursor ?? String(occurrence.data.seq);
          yield { kind: 'event', occurrence };
          if (isTerminal(occurrence.data.task.status)) return;
        }
      }
    } catch (error) {
      if (error instanceof EventsRpcError) throw translateStreamError(error, options.taskId);
      throw error;
    } finally {
      await connection.return({ kind: 'complete' }).catch(() => {});
    }
    if (end.kind === 'complete') {
      if (await options.isEnded()) return;
      // The server's own time limit: reconnect at once, unless it ended a stream that told nothing (then pause).
      if (!heard) await sleep(backoff(1), options.signal);
      continue;
    }
    failures++;
    if (failures > retries)
      throw new EventStreamUnavailableError(
        `The event stream dropped ${failures} times in a row (last: ${end.reason}).`,
      );
    yield { kind: 'reconnecting', cursor, attempt: failures, reason: end.reason };
    await sleep(backoff(failures), options.signal);
  }
}

function translateStreamError(error: EventsRpcError, taskId: string): Error {
  if (error.code === EVENTS_ERROR.notFound) return new UnknownTaskError(taskId, { cause: error });
  if (error.code === EVENTS_ERROR.methodNotFound)
    return new EventStreamUnavailableError('The server does not offer events/stream.', { cause: error });
  return new EventStreamUnavailableError(`events/stream was refused: ${error.message} (${error.code})`, {
    cause: error,
  });
}

/** The Events extension over HTTP, for a server that advertises it. */
export class HttpTaskEvents implements TaskEvents {
  constructor(private readonly transport: EventsTransport) {}

  follow(taskId: string, options: FollowOptions): AsyncIterable<FollowItem> {
    return followTaskEvents({ ...this.transport, ...options, taskId });
  }

  async subscribe(request: WebhookSubscribeRequest): Promise<WebhookSubscriptionInfo> {
    const id = 1;
    let answer: JsonRpcMessage;
    try {
      answer = await answerOf(
        await postJsonRpc(this.transport, {
          id,
          method: 'events/subscribe',
          params: {
            name: request.name,
            arguments: request.arguments,
            delivery: { mode: 'webhook', url: request.url, secret: request.secret },
            cursor: request.cursor ?? null,
            ...(request.ttlMs !== undefined ? { ttlMs: request.ttlMs } : {}),
          },
        }),
        id,
      );
    } catch (error) {
      if (error instanceof ServerError) throw error;
      throw new ServerError(`Cannot reach the MCP server at ${this.transport.endpoint.url}: ${describeError(error)}`, {
        cause: error,
      });
    }
    if (answer.error !== undefined) throw translateSubscribeError(rpcErrorOf(answer), request);
    const result = answer.result;
    if (!isRecord(result) || typeof result['id'] !== 'string')
      throw new ServerError('The server answered events/subscribe without a subscription ID.');
    return result as WebhookSubscriptionInfo;
  }
}

function translateSubscribeError(error: EventsRpcError, request: WebhookSubscribeRequest): Error {
  const taskId = request.arguments['taskId'];
  const data = isRecord(error.data) ? error.data : {};
  const detail = typeof data['reason'] === 'string' ? ` (${data['reason']})` : '';
  if (error.code === EVENTS_ERROR.notFound && data['kind'] === 'task' && typeof taskId === 'string')
    return new UnknownTaskError(taskId, { cause: error });
  if (error.code === EVENTS_ERROR.methodNotFound)
    return new ServerError('The server does not offer the Events extension (events/subscribe).', { cause: error });
  const message = `The server refused the subscription: ${error.message}${detail}`;
  if (
    error.code === EVENTS_ERROR.invalidParams ||
    error.code === EVENTS_ERROR.unsupported ||
    error.code === EVENTS_ERROR.callbackEndpointError
  )
    return new UsageError(message);
  return new ServerError(message, { cause: error });
}

/** The Events extension, when `capabilities` (from initialize or server/discover) advertise it. */
export function eventsFor(
  endpoint: Endpoint,
  capabilities: { extensions?: Record<string, unknown> } | undefined,
): TaskEvents | undefined {
  return isRecord(capabilities?.extensions?.[EVENTS_EXTENSION]) ? new HttpTaskEvents({ endpoint }) : undefined;
}
