// The raw request path ext-tasks needs on the 2026-07-28 wire: the 2.x client's codecs refuse task-shaped results
// (a `task` tools/call result, tasks/*), so ext-tasks frames those requests itself and hands them here to POST.
// Each request carries the standard modern headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name) and the token.
import type { JsonValue } from '@modelcontextprotocol/ext-tasks/core';
import type { JsonRpcResponse, RawClientDispatch } from '@modelcontextprotocol/ext-tasks/client';
import type { Endpoint } from './endpoint.js';

export const MODERN_VERSION = '2026-07-28';

type JsonRpcAnswer = {
  id?: string | number | null;
  method?: string;
  result?: JsonValue;
  error?: { code: number; message: string; data?: JsonValue };
};

/** What `Mcp-Name` carries: the tool, resource or task a request names. */
export function mcpNameOf(method: string, params: Record<string, unknown>): string | undefined {
  const source =
    method === 'tools/call' || method === 'prompts/get'
      ? params['name']
      : method === 'resources/read'
        ? params['uri']
        : method.startsWith('tasks/')
          ? params['taskId']
          : undefined;
  return typeof source === 'string' ? source : undefined;
}

/** The first JSON-RPC message answering `id` in an SSE body; notifications before it are skipped. */
async function answerFromStream(id: number, response: Response): Promise<JsonRpcAnswer> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const data = buffer
          .slice(0, end)
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n');
        buffer = buffer.slice(end + 2);
        if (data === '') continue;
        const message = JSON.parse(data) as JsonRpcAnswer;
        if (message.id === id && message.method === undefined) return message;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  throw new Error(`The server's stream ended without answering request ${id}.`);
}

export function fetchDispatch(endpoint: Endpoint): RawClientDispatch {
  let nextId = 1;
  return async (request, options) => {
    const { method, params = {} } = request as { method: string; params?: Record<string, unknown> };
    const id = nextId++;
    const headers = new Headers(options?.context?.headers);
    headers.set('content-type', 'application/json');
    headers.set('accept', 'application/json, text/event-stream');
    headers.set('mcp-protocol-version', MODERN_VERSION);
    headers.set('mcp-method', method);
    const name = mcpNameOf(method, params);
    if (name !== undefined) headers.set('mcp-name', name);
    if (endpoint.token) headers.set('authorization', `Bearer ${endpoint.token}`);
    const response = await fetch(endpoint.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      ...(options?.signal ? { signal: options.signal } : {}),
    });
    const isStream = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    if (!response.ok && !isStream && !(response.headers.get('content-type') ?? '').includes('json')) {
      throw new Error(`HTTP ${response.status} from ${endpoint.url}`);
    }
    const answer = isStream ? await answerFromStream(id, response) : ((await response.json()) as JsonRpcAnswer);
    return (
      answer.error !== undefined
        ? { kind: 'error', error: answer.error }
        : { kind: 'result', result: answer.result as JsonValue }
    ) as JsonRpcResponse;
  };
}
