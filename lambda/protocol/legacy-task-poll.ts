// A legacy-era poll, answered without an SDK server and transport built for it. A polling client repeats one request,
// a plain tasks/get, every few seconds, and building, connecting and closing a 1.x `Server` and its transport cost a
// poll more CPU than the rest of the MCP layer. Only a request the SDK would take as it is comes here: anything else
// (another method, _meta, a header the transport refuses, a malformed message) goes to the SDK, whose refusals stay
// the reference. What is answered here is the SDK's answer to the same request, byte for byte
// (test/unit/protocol/legacy-task-poll.test.ts holds the two side by side).
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import { answerGetTask } from './legacy-server.js';
import type { McpServerDependencies } from './mcp-dependencies.js';
import { toMcpError } from './protocol-errors.js';

/** A plain tasks/get: nothing in it but what the SDK path would read. */
export interface TaskPoll {
  readonly id: string | number;
  readonly taskId: string;
  /** The MCP-Protocol-Version header, which picks the answer's dialect; `null` when the client sent none. */
  readonly protocolVersion: string | null;
}

/** The keys a JSON-RPC request may have: the 1.x SDK's JSONRPCRequestSchema is strict. */
const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

function isPlainRequestId(id: unknown): id is string | number {
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
}

/**
 * The poll in a request of the legacy era, when it is a plain one that the SDK transport would accept as it is (both
 * media types in Accept, a JSON Content-Type, a supported protocol version or none); `undefined` for anything else.
 */
export function taskPollOf(request: Request, body: unknown): TaskPoll | undefined {
  if (request.method !== 'POST' || typeof body !== 'object' || body === null) return undefined;
  const message = body as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
  if (message.method !== 'tasks/get' || message.jsonrpc !== '2.0' || !isPlainRequestId(message.id)) return undefined;
  if (Object.keys(message).some((key) => !REQUEST_KEYS.has(key))) return undefined;
  const params = message.params as { taskId?: unknown } | null | undefined;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return undefined;
  if (typeof params.taskId !== 'string' || Object.keys(params).length !== 1) return undefined;
  const accept = request.headers.get('accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (!isJsonContentType(request.headers.get('content-type'))) return undefined;
  const protocolVersion = request.headers.get('mcp-protocol-version');
  if (protocolVersion !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(protocolVersion)) return undefined;
  return { id: message.id, taskId: params.taskId, protocolVersion };
}

/** The poll's answer as the SDK writes it: a JSON-RPC response (or error) in a 200 JSON body. */
export async function answerTaskPoll(deps: McpServerDependencies, owner: string, poll: TaskPoll): Promise<Response> {
  const headers = poll.protocolVersion === null ? {} : { 'mcp-protocol-version': poll.protocolVersion };
  let message: Record<string, unknown>;
  try {
    const result = await answerGetTask(deps, owner, poll.taskId, { requestInfo: { headers } });
    message = { result, jsonrpc: '2.0', id: poll.id };
  } catch (error) {
    const { code, message: text, data } = toMcpError(error, deps.logger);
    message = { jsonrpc: '2.0', id: poll.id, error: { code, message: text, ...(data !== undefined ? { data } : {}) } };
  }
  return new Response(JSON.stringify(message), { status: 200, headers: { 'Content-Type': 'application/json' } });
}
