// `subscriptions/listen` (2026-07-28) streams that this endpoint serves itself: which listen requests they are, and the
// stream every one of them is written on: the acknowledgement first, every notification stamped with the listen
// request's id as its subscription id, keep-alives, and a bounded life (Lambda and API Gateway bound a response) that
// ends with the listen request's result, so the client can tell a deliberate end from a dropped connection and listen
// again. What is listened to (tasks, the tool list) is read from storage, never from this process: any instance can
// serve any stream.
import {
  classifyInboundRequest,
  SERVER_INFO_META_KEY,
  SUBSCRIPTION_ID_META_KEY,
  type JSONRPCRequest,
} from '@modelcontextprotocol/server';
import { SYSTEM_CLOCK, type Clock } from '../core/clock.js';
import { SERVER_INFO } from './mcp-dependencies.js';
import { sseMessage, sseStream } from './sse.js';

export interface ListenStreamOptions {
  /** How often what a stream watches is read from storage. */
  readonly pollIntervalMs: number;
  /** How long one stream stays open before it ends cleanly and the client listens again. */
  readonly maxLifetimeMs: number;
  /** SSE comment frames this often keep proxies from closing a quiet stream. */
  readonly keepAliveMs: number;
  /** @default SYSTEM_CLOCK */
  readonly clock?: Clock;
}

/** A validated modern-era `subscriptions/listen` request and its `notifications` filter, or `undefined`. */
export function listenRequestOf(
  request: Request,
  body: unknown,
): { message: JSONRPCRequest; filter: Record<string, unknown> } | undefined {
  if (request.method !== 'POST' || (body as { method?: unknown } | null)?.method !== 'subscriptions/listen')
    return undefined;
  const outcome = classifyInboundRequest({
    httpMethod: request.method,
    body,
    ...headerValue(request, 'mcp-protocol-version', 'protocolVersionHeader'),
    ...headerValue(request, 'mcp-method', 'mcpMethodHeader'),
    ...headerValue(request, 'mcp-name', 'mcpNameHeader'),
  });
  // Anything the SDK's ladder rejects goes to the SDK, which answers it.
  if (outcome.kind !== 'modern' || outcome.messageKind !== 'request') return undefined;
  const filter = (outcome.message.params as { notifications?: unknown } | undefined)?.notifications;
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) return undefined;
  return { message: outcome.message, filter: filter as Record<string, unknown> };
}

function headerValue<K extends string>(request: Request, name: string, key: K): Partial<Record<K, string>> {
  const value = request.headers.get(name);
  return value === null ? {} : ({ [key]: value } as Record<K, string>);
}

/** What a listen stream's body writes with. */
export interface ListenStream {
  /** Sends a notification, its `_meta` stamped with the subscription id (its own `_meta` kept beside it). */
  notify(method: string, params?: Record<string, unknown>): void;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
  /** Epoch ms at which the stream's life is up. */
  readonly until: number;
  readonly clock: Clock;
}

/**
 * The SSE response of one listen request: `run` writes the acknowledgement and what follows; when it resolves, the
 * listen request's result ends the stream. When it rejects (a read failed), the stream ends without it.
 */
export function serveListenStream(
  message: JSONRPCRequest,
  signal: AbortSignal,
  options: ListenStreamOptions,
  run: (stream: ListenStream) => Promise<void>,
): Response {
  const subscriptionMeta = { [SUBSCRIPTION_ID_META_KEY]: message.id };
  const clock = options.clock ?? SYSTEM_CLOCK;
  return sseStream(signal, options.keepAliveMs, async ({ write, signal: stopped }) => {
    const notify = (method: string, params: Record<string, unknown> = {}): void => {
      const meta = params['_meta'] as Record<string, unknown> | undefined;
      write(sseMessage({ method, params: { ...params, _meta: { ...meta, ...subscriptionMeta } } }));
    };
    await run({ notify, signal: stopped, until: clock.now() + options.maxLifetimeMs, clock });
    write(
      sseMessage({
        id: message.id,
        result: { resultType: 'complete', _meta: { ...subscriptionMeta, [SERVER_INFO_META_KEY]: SERVER_INFO } },
      }),
    );
  });
}
