// A stand-in for the server's events/stream, as a fetch function: it serves one task's event log as SSE from the
// cursor each request names (Last-Event-ID first, then params.cursor), and ends each connection as its plan says
// (the final response, a clean close without it, a network error, half a frame, or silence), so a test can drop the
// connection anywhere and see what the client does next.
import type { FetchLike } from '../../../cli/events-rpc.js';
import type { TaskEventOccurrence, TaskStatus } from '../../../cli/task-client.js';

export const TASK_ID = 'task-1';

/** Event `seq` of the test task's log: `working` with a count, unless a status is given. */
export function occurrence(seq: number, status: TaskStatus = 'working'): TaskEventOccurrence {
  return {
    eventId: `evt_${TASK_ID}_${seq}`,
    name: 'task.events',
    timestamp: new Date(Date.UTC(2026, 11, 3, 0, 0, seq)).toISOString(),
    data: {
      taskId: TASK_ID,
      seq,
      changes: seq === 1 ? ['status'] : ['progress'],
      task: {
        taskId: TASK_ID,
        toolName: 'analyze_documents',
        status,
        ...(status === 'working' ? { statusMessage: `Step ${seq}`, progress: { progress: seq, total: 10 } } : {}),
      },
    },
    cursor: String(seq),
    _meta: { 'io.modelcontextprotocol/subscriptionId': 1 },
  };
}

/** A log of `length` events, the last one `completed`. */
export function logOf(length: number): TaskEventOccurrence[] {
  return Array.from({ length }, (_, index) => occurrence(index + 1, index + 1 === length ? 'completed' : 'working'));
}

export type ConnectionPlan =
  | {
      /** Events to send after the cursor before the connection ends (all that remain when absent). */
      readonly events?: number;
      /**
       * How it ends: `final` (the final response), `close` (closed without it), `error` (a network error), `cut`
       * (half of the next frame, then closed), `hang` (nothing more until the client aborts).
       */
      readonly end?: 'final' | 'close' | 'error' | 'cut' | 'hang';
      /** Send a heartbeat before the events. */
      readonly heartbeat?: boolean;
      /** Serve from the start whatever the cursor (a server that repeats itself). */
      readonly ignoreCursor?: boolean;
    }
  | { readonly rpcError: { readonly code: number; readonly message: string } }
  | { readonly refuse: true }
  | { readonly http: number };

export interface RecordedRequest {
  readonly id: number;
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly headers: Record<string, string>;
}

function sse(id: string | undefined, message: unknown): string {
  return `${id !== undefined ? `id: ${id}\n` : ''}data: ${JSON.stringify(message)}\n\n`;
}

/** The fetch of a server whose log for TASK_ID is `log`, answering the n-th request as `plans[n]` says. */
export function fakeEventsServer(
  log: readonly TaskEventOccurrence[],
  plans: readonly ConnectionPlan[] = [],
): { fetch: FetchLike; requests: RecordedRequest[] } {
  const requests: RecordedRequest[] = [];
  const fetch: FetchLike = async (_url, init) => {
    const body = JSON.parse(String(init.body)) as RecordedRequest;
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    requests.push({ id: body.id, method: body.method, params: body.params, headers });
    const plan = plans[requests.length - 1] ?? {};
    if ('refuse' in plan) throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') });
    if ('http' in plan)
      return new Response('Bad gateway', { status: plan.http, headers: { 'content-type': 'text/plain' } });
    if ('rpcError' in plan)
      return Response.json({ jsonrpc: '2.0', id: body.id, error: plan.rpcError }, { status: 200 });

    const cursor = headers['last-event-id'] ?? String(body.params['cursor']);
    const after = plan.ignoreCursor ? 0 : Number(cursor);
    const remaining = log.filter((event) => event.data.seq > after);
    const sent = remaining.slice(0, plan.events ?? remaining.length);
    const meta = { 'io.modelcontextprotocol/subscriptionId': body.id };
    const chunks = [
      sse(String(after), {
        jsonrpc: '2.0',
        method: 'notifications/events/active',
        params: { cursor: String(after), truncated: false, _meta: meta },
      }),
    ];
    if (plan.heartbeat)
      chunks.push(
        sse(undefined, {
          jsonrpc: '2.0',
          method: 'notifications/events/heartbeat',
          params: { cursor: String(after), _meta: meta },
        }),
      );
    for (const event of sent)
      chunks.push(
        sse(event.cursor ?? undefined, { jsonrpc: '2.0', method: 'notifications/events/event', params: event }),
      );
    const end = plan.end ?? 'final';
    if (end === 'final')
      chunks.push(sse(undefined, { jsonrpc: '2.0', id: body.id, result: { resultType: 'complete', _meta: meta } }));
    if (end === 'cut') {
      const next = remaining[sent.length];
      const whole = next
        ? sse(next.cursor ?? undefined, { jsonrpc: '2.0', method: 'notifications/events/event', params: next })
        : sse(undefined, { jsonrpc: '2.0', id: body.id, result: { resultType: 'complete' } });
      chunks.push(whole.slice(0, Math.floor(whole.length / 2)));
    }

    const encoder = new TextEncoder();
    const signal = init.signal ?? undefined;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        signal?.addEventListener('abort', () => {
          try {
            controller.error(signal.reason);
          } catch {
            // already closed
          }
        });
      },
      // One chunk per read, so an error comes only after every chunk before it was read.
      pull(controller) {
        const chunk = chunks.shift();
        if (chunk !== undefined) return controller.enqueue(encoder.encode(chunk));
        if (end === 'error')
          return controller.error(new TypeError('terminated', { cause: new Error('other side closed') }));
        if (end === 'hang') return new Promise<void>(() => {});
        controller.close();
      },
    });
    return new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
  return { fetch, requests };
}
