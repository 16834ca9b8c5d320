// The Events extension (SEP-3415, `io.modelcontextprotocol/events`) on the wire: events/list, events/poll,
// events/stream, events/subscribe and events/unsubscribe, answered here for both eras before either SDK sees the
// request (neither SDK knows these methods). events/stream is an SSE response: every frame carries the event's cursor
// as its SSE `id`, so a client whose stream dropped sends the same request again with `Last-Event-ID` (or the cursor
// in params) and continues with the next event: no gap, no repeat.
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { TaskExpiredError, TaskNotFoundError } from '../core/errors.js';
import { isTerminal } from '../core/task-status.js';
import type { Logger } from '../core/logger.js';
import {
  cursorOf,
  EVENT_TYPES,
  eventTypeNamed,
  filterOf,
  occurrenceOf,
  requireMode,
  seqOfCursor,
} from '../events/event-catalog.js';
import {
  DeliveryModeUnsupportedError,
  EventTaskNotFoundError,
  InvalidEventParamsError,
} from '../events/event-errors.js';
import { MAX_PAGE_EVENTS } from '../events/task-event-feed.js';
import type { TaskEventsAccess } from './events-access.js';
import type { McpServerDependencies } from './mcp-dependencies.js';
import { ProtocolError, toMcpError } from './protocol-errors.js';

const SUBSCRIPTION_ID_META = 'io.modelcontextprotocol/subscriptionId';

type RequestId = string | number;

interface EventsRequest {
  readonly id: RequestId;
  readonly method: string;
  readonly params: Record<string, unknown>;
}

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

function errorResponse(id: RequestId | null, error: ProtocolError): Response {
  const { code, message, data } = error;
  return json({ jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined ? { data } : {}) } });
}

function result(id: RequestId, value: Record<string, unknown>): Response {
  return json({ jsonrpc: '2.0', id, result: { resultType: 'complete', ...value } });
}

export async function serveEvents(
  request: Request,
  body: unknown,
  owner: string,
  deps: McpServerDependencies & { readonly events: TaskEventsAccess },
): Promise<Response> {
  const message = body as { id?: unknown; method: string; params?: unknown };
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
  if (id === null)
    return errorResponse(
      null,
      new ProtocolError(ErrorCode.InvalidRequest, `Invalid Request: ${message.method} is a request and needs an id`),
    );
  const params =
    typeof message.params === 'object' && message.params !== null && !Array.isArray(message.params)
      ? (message.params as Record<string, unknown>)
      : {};
  const call: EventsRequest = { id, method: message.method, params };
  try {
    return await dispatch(request, call, owner, deps);
  } catch (error) {
    return errorResponse(id, toMcpError(error, deps.logger));
  }
}

async function dispatch(
  request: Request,
  call: EventsRequest,
  owner: string,
  deps: McpServerDependencies & { readonly events: TaskEventsAccess },
): Promise<Response> {
  const access = deps.events;
  const taskOf = async (taskId: string) => {
    try {
      return await deps.service.getTask(owner, taskId);
    } catch (error) {
      if (error instanceof TaskNotFoundError || error instanceof TaskExpiredError)
        throw new EventTaskNotFoundError(taskId);
      throw error;
    }
  };
  switch (call.method) {
    case 'events/list':
      if (call.params['cursor'] !== undefined && call.params['cursor'] !== null)
        throw new InvalidEventParamsError('params.cursor: events/list has one page, so no cursor is valid');
      return result(call.id, { events: EVENT_TYPES });
    case 'events/poll': {
      const type = eventTypeNamed(call.params['name']);
      requireMode(type, 'poll');
      const taskId = filterOf(type, call.params['arguments']).taskId!;
      const after = seqOfCursor(call.params['cursor']);
      const limit = maxEventsOf(call.params['maxEvents']);
      await taskOf(taskId);
      const nextPollMs = deps.settings.pollIntervalMs;
      if (after === null) {
        const now = await access.feed.now(owner, taskId);
        return result(call.id, { events: [], cursor: cursorOf(now), hasMore: false, truncated: false, nextPollMs });
      }
      const page = await access.feed.page(owner, taskId, after, limit);
      return result(call.id, {
        events: page.events.map((event) => occurrenceOf(type.name, event)),
        cursor: cursorOf(page.after),
        hasMore: page.hasMore,
        truncated: false,
        nextPollMs,
      });
    }
    case 'events/stream': {
      const type = eventTypeNamed(call.params['name']);
      requireMode(type, 'push');
      const taskId = filterOf(type, call.params['arguments']).taskId!;
      const resumeFrom = request.headers.get('last-event-id');
      const after = seqOfCursor(resumeFrom ?? call.params['cursor']);
      const task = await taskOf(taskId);
      const start = after ?? (await access.feed.now(owner, taskId));
      return pushStream(
        request,
        call.id,
        {
          owner,
          taskId,
          name: type.name,
          after: start,
          ended: isTerminal(task.status),
          refresh: () => taskOf(taskId),
          refreshEveryMs: deps.settings.pollIntervalMs,
        },
        access,
        deps.logger,
      );
    }
    case 'events/subscribe':
    case 'events/unsubscribe': {
      const subscriptions = access.subscriptions;
      if (subscriptions === undefined) {
        // The name is still checked first: an unknown type is NotFound whether or not webhooks are on.
        eventTypeNamed(call.params['name']);
        throw new DeliveryModeUnsupportedError(
          'webhook',
          'Webhooks are turned off on this endpoint: use events/poll or events/stream',
        );
      }
      if (call.method === 'events/unsubscribe') {
        await subscriptions.unsubscribe(owner, call.params);
        return result(call.id, {});
      }
      const granted = await subscriptions.subscribe(owner, call.params);
      return result(call.id, {
        id: granted.id,
        refreshBefore: new Date(granted.refreshBefore).toISOString(),
        cursor: granted.cursor,
        truncated: granted.truncated,
        ...(granted.deliveryStatus
          ? {
              deliveryStatus: {
                active: granted.deliveryStatus.active,
                lastDeliveryAt:
                  granted.deliveryStatus.lastDeliveryAt === undefined
                    ? null
                    : new Date(granted.deliveryStatus.lastDeliveryAt).toISOString(),
                lastError: granted.deliveryStatus.lastError ?? null,
                ...(granted.deliveryStatus.failedSince !== undefined
                  ? { failedSince: new Date(granted.deliveryStatus.failedSince).toISOString() }
                  : {}),
              },
            }
          : {}),
      });
    }
    default:
      return errorResponse(call.id, new ProtocolError(ErrorCode.MethodNotFound, `Method not found: ${call.method}`));
  }
}

function maxEventsOf(value: unknown): number {
  if (value === undefined || value === null) return MAX_PAGE_EVENTS;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    throw new InvalidEventParamsError('params.maxEvents must be a positive integer');
  return Math.min(value, MAX_PAGE_EVENTS);
}

interface StreamSubject {
  readonly owner: string;
  readonly taskId: string;
  readonly name: string;
  /** The position to deliver after. */
  readonly after: number;
  /** The task had already finished when the stream opened. */
  readonly ended: boolean;
  /**
   * Reads the task as tasks/get does, which checks a running execution at most once per refresh interval: a status
   * change whose event was lost (or that no event announces, as locally) is found and recorded, and so streamed.
   */
  readonly refresh: () => Promise<unknown>;
  readonly refreshEveryMs: number;
}

/**
 * The SSE stream of one task's events: `active`, then each event as it is recorded (looked for every
 * `streamPollMs`), a heartbeat every `heartbeatMs`, and the final result frame once the task's terminal event was
 * sent or the stream's lifetime is up. A client that goes away ends it.
 */
function pushStream(
  request: Request,
  id: RequestId,
  subject: StreamSubject,
  access: TaskEventsAccess,
  logger: Logger,
): Response {
  const encoder = new TextEncoder();
  const meta = { [SUBSCRIPTION_ID_META]: id };
  const abort = new AbortController();
  request.signal.addEventListener('abort', () => abort.abort(), { once: true });
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (method: string, params: Record<string, unknown>, eventId?: string): void => {
        const frame = JSON.stringify({ jsonrpc: '2.0', method, params: { ...params, _meta: meta } });
        controller.enqueue(encoder.encode(`${eventId !== undefined ? `id: ${eventId}\n` : ''}data: ${frame}\n\n`));
      };
      const { clock } = access;
      let cursor = subject.after;
      let finished = subject.ended;
      send('notifications/events/active', { cursor: cursorOf(cursor), truncated: false }, cursorOf(cursor));
      const closesAt = clock.now() + access.streamLifetimeMs;
      let nextHeartbeat = clock.now() + access.heartbeatMs;
      let nextRefresh = clock.now() + subject.refreshEveryMs;
      try {
        while (!abort.signal.aborted) {
          const page = await access.feed.page(subject.owner, subject.taskId, cursor);
          for (const event of page.events) {
            cursor = event.seq;
            send('notifications/events/event', { ...occurrenceOf(subject.name, event) }, cursorOf(cursor));
            if (isTerminal(event.task.status)) finished = true;
          }
          if (page.hasMore) continue;
          if (finished || clock.now() >= closesAt) break;
          if (page.events.length === 0 && clock.now() >= nextRefresh) {
            await subject.refresh();
            nextRefresh = clock.now() + subject.refreshEveryMs;
          }
          if (clock.now() >= nextHeartbeat) {
            send('notifications/events/heartbeat', { cursor: cursorOf(cursor) });
            nextHeartbeat = clock.now() + access.heartbeatMs;
          }
          await clock.sleep(access.streamPollMs, abort.signal);
        }
        if (!abort.signal.aborted) {
          const final = JSON.stringify({ jsonrpc: '2.0', id, result: { resultType: 'complete', _meta: meta } });
          controller.enqueue(encoder.encode(`data: ${final}\n\n`));
        }
      } catch (error) {
        // A read failed mid-stream: the stream ends without its final frame, and the client resumes from its cursor.
        logger.warn('Event stream ended by a failed read', {
          taskId: subject.taskId,
          error: error instanceof Error ? error.message : String(error),
        });
      }
      controller.close();
    },
    cancel() {
      abort.abort();
    },
  });
  return new Response(body, {
    status: 200,
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' },
  });
}
