// A raw JSON-RPC client written against the SEP-1686 text (the seed), since no SDK speaks that dialect.
// It posts over Streamable HTTP and reads either a JSON answer or an SSE stream of messages.

export interface JsonRpcMessage {
  readonly jsonrpc: '2.0';
  readonly id?: string | number;
  readonly method?: string;
  readonly params?: Record<string, unknown> & { _meta?: Record<string, unknown> };
  readonly result?: Record<string, unknown> & { _meta?: Record<string, unknown> };
  readonly error?: { code: number; message: string };
}

export interface Exchange {
  readonly status: number;
  /** Every message the server sent on this request's stream, in order. */
  readonly messages: JsonRpcMessage[];
  /** The response to the request, if the stream carried one. */
  readonly response?: JsonRpcMessage;
}

export const TASK_META = 'modelcontextprotocol.io/task';
export const RELATED_TASK = 'modelcontextprotocol.io/related-task';

let nextId = 1;

export class Sep1686Client {
  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  private async post(
    body: unknown,
    signal?: AbortSignal,
    onMessage?: (message: JsonRpcMessage) => void,
  ): Promise<Exchange> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${this.token}`,
      },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });
    const messages: JsonRpcMessage[] = [];
    if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream') && response.body) {
      const decoder = new TextDecoder();
      let buffer = '';
      const reader = response.body.getReader();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        buffer += decoder.decode(chunk.value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = event
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trim())
            .join('\n');
          if (data === '') continue;
          const message = JSON.parse(data) as JsonRpcMessage;
          messages.push(message);
          onMessage?.(message);
        }
      }
    } else {
      const text = await response.text();
      if (text !== '') messages.push(JSON.parse(text) as JsonRpcMessage);
    }
    const id = (body as { id?: unknown }).id;
    const answer = messages.find(
      (message) => message.id === id && (message.result !== undefined || message.error !== undefined),
    );
    return { status: response.status, messages, ...(answer ? { response: answer } : {}) };
  }

  /** Sends a request; `onMessage` sees each streamed message as it arrives. */
  request(
    method: string,
    params: Record<string, unknown>,
    options: { id?: string | number; signal?: AbortSignal; onMessage?: (message: JsonRpcMessage) => void } = {},
  ): Promise<Exchange> {
    return this.post(
      { jsonrpc: '2.0', id: options.id ?? `req-${nextId++}`, method, params },
      options.signal,
      options.onMessage,
    );
  }

  async notify(method: string, params: Record<string, unknown>): Promise<number> {
    return (await this.post({ jsonrpc: '2.0', method, params })).status;
  }

  /** A task-augmented tools/call as in seed section 3.1. */
  callToolAsTask(
    name: string,
    args: Record<string, unknown>,
    task: { taskId: string; keepAlive?: number },
    options: { id?: string | number; signal?: AbortSignal; onMessage?: (message: JsonRpcMessage) => void } = {},
  ): Promise<Exchange> {
    return this.request('tools/call', { name, arguments: args, _meta: { [TASK_META]: task } }, options);
  }

  /** tasks/get, tasks/result and tasks/delete name the task in the related-task meta too, as the seed's examples do. */
  taskRequest(method: 'tasks/get' | 'tasks/result' | 'tasks/delete', taskId: string): Promise<Exchange> {
    return this.request(method, { taskId, _meta: { [RELATED_TASK]: { taskId } } });
  }
}
