// The standalone SSE stream of the 2025 revisions' Streamable HTTP (GET on the MCP endpoint): the channel a server
// uses to tell a client something unasked, here only that the tool list changed. A stateless server has nothing
// else to send on it, so it is served only where the tools can change at run time (discovered tools) and answered
// 405 otherwise, which the transport defines as "no stream here": an SDK client then stops asking, where an empty
// stream that ends at once would have it reconnect every second.
// The stream's life is bounded like every stream of this endpoint; its `retry` field tells the client when to open the
// next one. Each event's SSE id names the catalog the client was told of, and the client sends the last one back
// (Last-Event-ID) when it reconnects, so a change made while it was away is announced on the next stream.
import { randomUUID } from 'node:crypto';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { ToolListChanges } from '../service/tool-list-changes.js';
import { isAtLeast, ProtocolVersion } from './protocol-version.js';
import { sseMessage, sseStream } from './sse.js';

export interface StandaloneStreamOptions {
  /** How often the catalog is read, and how long the client waits before it opens the next stream. */
  readonly pollIntervalMs: number;
  /** How long one stream stays open. */
  readonly maxLifetimeMs: number;
  readonly keepAliveMs: number;
  readonly clock: { now(): number };
}

const ALLOWED_METHODS = 'POST, DELETE';
const NO_CATALOG = 'none';

/**
 * An event id naming the catalog told of: its digest (or `none`), then a nonce, since an id must be unique across
 * all of a client's streams.
 */
function eventIdOf(digest: string | null): string {
  return `${digest ?? NO_CATALOG}.${randomUUID().slice(0, 8)}`;
}

/** The catalog a Last-Event-ID names; `undefined` when there is none, or it is not one of ours. */
function lastToldOf(request: Request): string | null | undefined {
  const told = request.headers.get('last-event-id')?.split('.')[0];
  if (told === NO_CATALOG) return null;
  return told !== undefined && /^[0-9a-f]{64}$/.test(told) ? told : undefined;
}

/**
 * The answer to a GET on the MCP endpoint: 405 where the tools never change at run time, the stream where they do,
 * `undefined` for a GET the SDK's transport should refuse itself (no `text/event-stream` in Accept, a protocol
 * version it does not know), so each refusal keeps its usual status and text.
 */
export function serveStandaloneStream(
  request: Request,
  changes: ToolListChanges | undefined,
  options: StandaloneStreamOptions,
): Response | undefined {
  if (changes === undefined)
    return new Response(
      JSON.stringify({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: 'Method not allowed: this server offers no standalone SSE stream' },
      }),
      { status: 405, headers: { 'content-type': 'application/json', allow: ALLOWED_METHODS } },
    );
  const version = request.headers.get('mcp-protocol-version');
  const accepts = request.headers.get('accept')?.includes('text/event-stream') ?? false;
  if (!accepts || (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version))) return undefined;
  const lastTold = lastToldOf(request);
  return sseStream(request.signal, options.keepAliveMs, async ({ write, signal }) => {
    write(`retry: ${options.pollIntervalMs}\n\n`);
    const until = options.clock.now() + options.maxLifetimeMs;
    const watch = {
      until,
      pollIntervalMs: options.pollIntervalMs,
      signal,
      ...(lastTold !== undefined ? { lastTold } : {}),
    };
    await changes.watch(watch, {
      // A priming event (empty data) gives the client an id to send back even if nothing changes. Clients before
      // 2025-11-25 cannot take empty data (the SDK's transport does not prime them either): their ids come with
      // changes.
      onStart: (told) => {
        if (isAtLeast(version ?? undefined, ProtocolVersion.Tasks)) write(`id: ${eventIdOf(told)}\ndata: \n\n`);
      },
      onChange: (digest) =>
        write(`id: ${eventIdOf(digest)}\n${sseMessage({ method: 'notifications/tools/list_changed' })}`),
    });
  });
}
