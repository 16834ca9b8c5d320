// Raw JSON-RPC over HTTP for the Events extension's methods, as the conformance suite's harness sends them: neither
// official SDK client knows events/*, so a client sends them as plain requests.
import { TOKENS } from './local-backend.js';

export interface RpcError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

export type RpcAnswer<T> = { readonly result: T } | { readonly error: RpcError };

let nextId = 1;

export function headersFor(token: string = TOKENS.alice, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${token}`,
    ...extra,
  };
}

export async function rpc<T = Record<string, unknown>>(
  url: string,
  method: string,
  params: Record<string, unknown>,
  token?: string,
): Promise<RpcAnswer<T>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: headersFor(token),
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: RpcError };
  if (body.error !== undefined) return { error: body.error };
  return { result: body.result as T };
}

/** The result, or a thrown error naming the JSON-RPC error. */
export async function call<T = Record<string, unknown>>(
  url: string,
  method: string,
  params: Record<string, unknown>,
  token?: string,
): Promise<T> {
  const answer = await rpc<T>(url, method, params, token);
  if ('error' in answer) throw new Error(`${method} answered ${answer.error.code} ${answer.error.message}`);
  return answer.result;
}

/** Creates a task with the 2025-11-25 `params.task` and returns its ID. */
export async function createTask(
  url: string,
  name: string,
  args: Record<string, unknown>,
  token?: string,
): Promise<string> {
  const created = await call<{ task: { taskId: string } }>(
    url,
    'tools/call',
    { name, arguments: args, task: { ttl: 600_000 } },
    token,
  );
  return created.task.taskId;
}

export interface SseFrame {
  readonly id?: string;
  readonly data: { method?: string; params?: Record<string, unknown>; id?: unknown; result?: unknown };
}

/**
 * Opens events/stream and yields its SSE frames as they arrive; stops when the server ends the stream or `signal`
 * aborts (a dropped connection, as far as the server can tell).
 */
export async function* eventStream(
  url: string,
  params: Record<string, unknown>,
  options: { lastEventId?: string; signal?: AbortSignal; token?: string } = {},
): AsyncGenerator<SseFrame> {
  const response = await fetch(url, {
    method: 'POST',
    headers: headersFor(options.token, options.lastEventId ? { 'last-event-id': options.lastEventId } : {}),
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'events/stream', params }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (!response.headers.get('content-type')?.includes('text/event-stream'))
    throw new Error(`events/stream answered ${response.status} ${await response.text()}`);
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        let id: string | undefined;
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('id: ')) id = line.slice(4);
          else if (line.startsWith('data: ')) data.push(line.slice(6));
        }
        if (options.signal?.aborted) return;
        if (data.length > 0) yield { ...(id !== undefined ? { id } : {}), data: JSON.parse(data.join('\n')) };
      }
    }
  } catch (error) {
    if (!options.signal?.aborted) throw error;
  }
}
