// Server-sent event frames and the response that carries them, shared by the streams this endpoint serves of its own
// (subscriptions/listen in the 2026-07-28 era, the standalone GET stream of the 2025 revisions). No SDK import: the
// legacy path loads this without the 2.x SDK.

/** A JSON-RPC message as one SSE `message` event. */
export function sseMessage(message: Record<string, unknown>): string {
  return `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', ...message })}\n\n`;
}

/** A comment frame: keeps proxies (and API Gateway's idle limit) from closing a quiet stream. */
export const SSE_KEEP_ALIVE = ': keepalive\n\n';

export function sseResponse(body: ReadableStream<Uint8Array>): Response {
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    },
  });
}

/** What a stream's body is given to write with. */
export interface SseWriter {
  /** Writes a frame; nothing once the stream was stopped. */
  write(frame: string): void;
  /** Aborted when the client goes away (or the stream ended). */
  readonly signal: AbortSignal;
}

/**
 * An SSE response whose body `run` writes, with a keep-alive comment every `keepAliveMs`; the stream closes when
 * `run` settles (a rejection ends it just the same: the client listens again) or the client goes away (`signal`).
 */
export function sseStream(
  signal: AbortSignal,
  keepAliveMs: number,
  run: (writer: SseWriter) => Promise<void>,
): Response {
  const encoder = new TextEncoder();
  const stopped = new AbortController();
  signal.addEventListener('abort', () => stopped.abort(), { once: true });
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const write = (frame: string): void => {
        if (!stopped.signal.aborted) controller.enqueue(encoder.encode(frame));
      };
      const keepAlive = setInterval(() => write(SSE_KEEP_ALIVE), keepAliveMs);
      try {
        await run({ write, signal: stopped.signal });
      } catch {
        // A read failed mid-stream: end it without its last frame; the client listens again.
      } finally {
        clearInterval(keepAlive);
        if (!stopped.signal.aborted) controller.close();
        stopped.abort();
      }
    },
    cancel() {
      stopped.abort();
    },
  });
  return sseResponse(body);
}
