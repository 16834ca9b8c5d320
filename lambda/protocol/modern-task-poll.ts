// A modern-era (2026-07-28) poll, answered without the 2.x SDK server built for it. A polling client repeats one
// request, a plain tasks/get, every few seconds, and createMcpHandler builds an McpServer per request, connects it to a
// per-request transport and closes it after the answer: that made this era's poll cost a third more CPU than the 2025
// era's (bench:poll-layers). Only a request the SDK would serve as it is comes here; anything else (another method,
// other params, a header the SDK refuses or would have to decode, an envelope without the Tasks extension) goes to the
// SDK, whose refusals stay the reference. What is answered here is the SDK's answer to the same request, byte for byte
// (test/unit/protocol/modern-task-poll.test.ts holds the two side by side). The SDK's classification of a message is
// kept for the client's next poll of the same task (classifiedModern). The Host and Origin checks come before
// either path (http-app.ts), which loads this file with the modern era.
import {
  classifyInboundRequest,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  isJSONRPCRequest,
  isJsonContentType,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  type ClientCapabilities,
} from '@modelcontextprotocol/server';
import { missingCapabilities } from './client-capabilities.js';
import { SERVER_INFO, type McpServerDependencies } from './mcp-dependencies.js';
import { answerTasksGet } from './modern-server.js';
import { toMcpError } from './protocol-errors.js';
import { TASKS_EXTENSION_CAPABILITY } from './tasks-extension.js';

/**
 * The one revision served here: the SDK serves only it (its SUPPORTED_MODERN_PROTOCOL_VERSIONS, not exported), and a
 * later one goes to the SDK until this path is checked against it.
 */
const MODERN_REVISION = '2026-07-28';
/** What a plain poll's params may hold: the rest (requestState, inputResponses, anything else) is the SDK's to read. */
const PARAMS_KEYS = new Set(['taskId', '_meta']);
/** What its `_meta` may hold: the envelope, as a 2.x SDK client frames it; a progressToken or any other key is not. */
const META_KEYS = new Set([
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
]);
/** The 2.x SDK's -32002 (resource not found) leaves as -32602 on this revision (its codec's encodeErrorCode). */
const RESOURCE_NOT_FOUND = -32002;
const INVALID_PARAMS = -32602;
/** The one error a handler throws that the SDK answers with an HTTP status other than 200 (its in-band exception). */
const MISSING_CAPABILITY = -32021;

/** A plain modern tasks/get: nothing in it but what the SDK path would read. */
export interface ModernTaskPoll {
  readonly id: string | number;
  readonly taskId: string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The poll in a modern-era request, when it is a plain one that the SDK would serve as it is; `undefined` for anything
 * else. It must pass every check the SDK's entry and server make of a tasks/get: a JSON Content-Type; the SDK's own
 * classification (classifyInboundRequest: the JSON-RPC shape, the `_meta` envelope against its schema, the headers
 * against the body); the revision it serves; the standard headers its entry requires (MCP-Protocol-Version,
 * Mcp-Method, and Mcp-Name naming the task); a non-empty taskId (the handler's params schema); and the Tasks extension
 * declared (the handler's requireTasks). The header checks are narrower than the SDK's (Mcp-Name must be the task ID
 * as it is, not the Base64 form the SDK decodes), so what they do not take is the SDK's to judge.
 */
export function modernTaskPollOf(request: Request, body: unknown): ModernTaskPoll | undefined {
  // Cheap checks first: every modern request comes this way.
  if (request.method !== 'POST' || !isPlainObject(body) || body.method !== 'tasks/get') return undefined;
  const { params } = body;
  if (!isPlainObject(params) || Object.keys(params).some((key) => !PARAMS_KEYS.has(key))) return undefined;
  const { taskId, _meta: meta } = params;
  if (typeof taskId !== 'string' || taskId.length === 0 || !isPlainObject(meta)) return undefined;
  if (Object.keys(meta).some((key) => !META_KEYS.has(key))) return undefined;
  // The SDK classifies the header values with optional whitespace stripped; Headers.get already strips it.
  const protocolVersionHeader = request.headers.get('mcp-protocol-version');
  const mcpMethodHeader = request.headers.get('mcp-method');
  const mcpNameHeader = request.headers.get('mcp-name');
  if (protocolVersionHeader !== MODERN_REVISION || mcpMethodHeader !== 'tasks/get') return undefined;
  // `=?base64?...?=` is an encoded name, which the SDK decodes (or refuses): not a plain poll.
  if (mcpNameHeader !== taskId || taskId.startsWith('=?')) return undefined;
  if (!isJsonContentType(request.headers.get('content-type'))) return undefined;
  if (request.signal.aborted) return undefined;
  if (!classifiedModern(body, taskId)) return undefined;
  // The handler's requireTasks, read from the same envelope key (client-capabilities.ts).
  const declared = (meta[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? {};
  if (missingCapabilities(TASKS_EXTENSION_CAPABILITY, declared) !== undefined) return undefined;
  return { id: body.id as string | number, taskId };
}

/** How many verdicts are kept (the oldest dropped first), and for messages how long (a client's is a few hundred). */
const VERDICTS_KEPT = 500;
const LONGEST_KEPT = 4_096;
const verdicts = new Map<string, boolean>();

/**
 * Whether the SDK classifies the poll `body` of `taskId` (with the headers modernTaskPollOf has required: this
 * revision, the method, the task's ID as its name) as a request of this revision. A polling client sends the same
 * message every time but for its id, and the SDK's classification (Zod parses of the whole message, then of the
 * envelope) cost a poll about 0.13 ms of the server's 0.9 ms of CPU, so its verdict is kept by the message without its
 * id, as JSON text. The id enters that classification only through the JSON-RPC id schema (the request and the two
 * response schemas; classifyRequestBody never reads it), which any two valid ids pass alike: a kept verdict serves only
 * a message whose id the SDK's own request schema takes, and the SDK classifies every other one itself.
 */
function classifiedModern(body: Record<string, unknown>, taskId: string): boolean {
  const { id, ...rest } = body;
  // JSON text stands for parsed JSON exactly but for numbers too large for a double: parsed as ±Infinity, which the
  // SDK's number schemas refuse, they are written back as null, which another message may hold where the SDK allows it.
  let finite = true;
  const key = JSON.stringify(rest, (_name, value: unknown) => {
    if (typeof value === 'number' && !Number.isFinite(value)) finite = false;
    return value;
  });
  const reusable =
    finite && key.length <= LONGEST_KEPT && isJSONRPCRequest({ jsonrpc: '2.0', id, method: 'tasks/get' });
  const kept = reusable ? verdicts.get(key) : undefined;
  if (kept !== undefined) return kept;
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: MODERN_REVISION,
    mcpMethodHeader: 'tasks/get',
    mcpNameHeader: taskId,
    body,
  });
  const verdict =
    route.kind === 'modern' && route.messageKind === 'request' && route.classification.revision === MODERN_REVISION;
  if (reusable) {
    if (verdicts.size >= VERDICTS_KEPT) verdicts.delete(verdicts.keys().next().value!);
    verdicts.set(key, verdict);
  }
  return verdict;
}

/**
 * What the SDK's encode step makes of tasks/get's answer on this revision: `resultType` "complete" added (the answer,
 * a DetailedTask, has none of its own), and the server's identity in `_meta` unless the answer put one there.
 */
function encodedResult(answer: Record<string, unknown>): Record<string, unknown> {
  const stamped = answer['resultType'] === undefined ? { ...answer, resultType: 'complete' } : answer;
  const meta = stamped['_meta'];
  if (meta === undefined) return { ...stamped, _meta: { [SERVER_INFO_META_KEY]: SERVER_INFO } };
  if (!isPlainObject(meta) || meta[SERVER_INFO_META_KEY] !== undefined) return stamped;
  return { ...stamped, _meta: { ...meta, [SERVER_INFO_META_KEY]: SERVER_INFO } };
}

/** The poll's answer as the SDK's per-request transport writes it: a JSON-RPC response (or error) in a JSON body. */
export async function answerModernTaskPoll(
  deps: McpServerDependencies,
  owner: string,
  poll: ModernTaskPoll,
  signal: AbortSignal,
): Promise<Response> {
  let message: Record<string, unknown>;
  let status = 200;
  try {
    const result = encodedResult(await answerTasksGet(deps, owner, poll.taskId));
    message = { result, jsonrpc: '2.0', id: poll.id };
  } catch (error) {
    const refused = toMcpError(error, deps.logger);
    const code = refused.code === RESOURCE_NOT_FOUND ? INVALID_PARAMS : refused.code;
    if (code === MISSING_CAPABILITY) status = 400;
    const data = refused.data !== undefined ? { data: refused.data } : {};
    message = { jsonrpc: '2.0', id: poll.id, error: { code, message: refused.message, ...data } };
  }
  // A client gone while the answer was read: the SDK's transport closes, and its entry answers 499 with no body.
  if (signal.aborted) return new Response(null, { status: 499 });
  return new Response(JSON.stringify(message), { status, headers: { 'Content-Type': 'application/json' } });
}
