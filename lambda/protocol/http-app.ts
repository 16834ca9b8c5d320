// The Web-standard core of the endpoint: Request in, Response out. The Lambda handler and the local dev
// server are thin adapters around it, so both run exactly this code.
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { onceLoaded } from '../core/once-loaded.js';
import { acceptClientResponse, clientResponseOf } from './client-input-requests.js';
import { LEGACY_SDK_VALIDATED, sdkParamsErrorOf } from './invalid-params.js';
import { createLegacyMcpServer } from './legacy-server.js';
import { answerTaskPoll, taskPollOf } from './legacy-task-poll.js';
import type { McpServerDependencies } from './mcp-dependencies.js';
import { progressTokenOf } from './progress-notifications.js';
import { sep1686TaskRequestOf } from './sep-1686.js';
import { ProtocolError, toMcpError } from './protocol-errors.js';
import { eraOf, isSurelyLegacy } from './era-router.js';
import { sessionDeclaresApps, sessionDeclaresTasks, sessionIdForInitialize } from './declared-task-support.js';
import { isEventsMessage } from './events-extension.js';
import { isAtLeast, ProtocolVersion } from './protocol-version.js';
import { UNAUTHORIZED_ERROR_CODE, UNAUTHORIZED_MESSAGE } from '../contract/unauthorized-error.js';
import { SYSTEM_CLOCK } from '../core/clock.js';
import { serveStandaloneStream } from './standalone-stream.js';

/** Comment frames on a long stream this often, well inside API Gateway's idle limit. */
const SSE_KEEP_ALIVE_MS = 15_000;
/** The SDK's default cap (4 MiB), checked before parsing: a body over it is refused unread. */
const MAX_REQUEST_BODY_BYTES = 4 * 1024 * 1024;
/** Request IDs are echoed and stored (SEP-1686 keeps one per task): longer than any real client needs. */
const MAX_REQUEST_ID_LENGTH = 256;

export interface McpHttpAppOptions extends McpServerDependencies {
  /** @default '/mcp' */
  readonly path?: string;
  /**
   * Host names (any port) that the Host and Origin headers may name: DNS-rebinding protection for a server on
   * loopback. Unset accepts any, as behind API Gateway, whose own domain routing already pins the host.
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Serves the declared tools before the first request that may need them (one read per instance); what it throws is
   * answered as a JSON-RPC error.
   */
  readonly declaredTools?: { load(): Promise<unknown> };
  /** Brings the tools up to the discovered-tools catalog before a request is served (read at most twice a minute). */
  readonly discoveredTools?: { freshen(): Promise<unknown> };
}

export interface McpHttpApp {
  /** Serves one HTTP request for `owner`, the authenticated principal (`null` when the caller is not authenticated). */
  handle(request: Request, owner: string | null): Promise<Response>;
}

/** The host name in a Host header or Origin URL, without the port; `null` when it does not parse. */
function hostnameOf(value: string, isOrigin: boolean): string | null {
  try {
    return new URL(isOrigin ? value : `http://${value}`).hostname;
  } catch {
    return null;
  }
}

function rejectedHost(request: Request, allowed: readonly string[]): string | null {
  const host = request.headers.get('host') ?? '';
  if (!allowed.includes(hostnameOf(host, false) ?? '')) return `Host '${host}'`;
  const origin = request.headers.get('origin');
  if (origin !== null && !allowed.includes(hostnameOf(origin, true) ?? '')) return `Origin '${origin}'`;
  return null;
}

/** The JSON-RPC id of a single request body, so an error about it names it; `null` when there is none. */
function requestIdOf(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function jsonRpcError(
  id: string | number | null,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

export function createMcpHttpApp(options: McpHttpAppOptions): McpHttpApp {
  const path = options.path ?? '/mcp';
  // Every stream served here (listen streams, the standalone GET stream): read every poll interval, kept alive, and
  // ended at the longest a request may wait.
  const streams = {
    pollIntervalMs: options.settings.pollIntervalMs,
    maxLifetimeMs: options.settings.resultWaitMs,
    keepAliveMs: SSE_KEEP_ALIVE_MS,
    clock: SYSTEM_CLOCK,
  };
  // The modern era (2026-07-28), loaded by the first request that may be modern: a cold start that serves only 2025-era
  // requests never loads the 2.x SDK.
  const modernEndpoint = onceLoaded(async () =>
    (await import('./modern-endpoint.js')).createModernEndpoint(options, streams),
  );
  const modernTaskPoll = onceLoaded(() => import('./modern-task-poll.js'));
  /**
   * The request a modern polling client repeats, answered as the SDK would answer it without building a server for
   * it; undefined for any other request. modernTaskPollOf takes only what the SDK's own classifyInboundRequest calls
   * modern, the rule isLegacyRequest applies, so such a request needs no era rule after it: classified once.
   */
  const answerModernPoll = async (request: Request, parsedBody: unknown, owner: string) => {
    const { modernTaskPollOf, answerModernTaskPoll } = await modernTaskPoll();
    const poll = modernTaskPollOf(request, parsedBody);
    return poll === undefined ? undefined : answerModernTaskPoll(options, owner, poll, request.signal);
  };
  /** The modern era (2026-07-28): the 2.x SDK's per-request server. */
  const serveModern = async (request: Request, parsedBody: unknown, owner: string): Promise<Response> => {
    const answer = await (await modernEndpoint()).serve(request, parsedBody, owner);
    return answer instanceof ProtocolError
      ? jsonRpcError(requestIdOf(parsedBody), 200, answer.code, answer.message)
      : answer;
  };
  /** The legacy era (2025 revisions): a fresh 1.x server and transport for this one request, but for a plain poll. */
  const serveLegacy = async (request: Request, parsedBody: unknown, owner: string): Promise<Response> => {
    // The request a polling client repeats, answered as the SDK would answer it without building one for it.
    const poll = taskPollOf(request, parsedBody);
    if (poll !== undefined) return answerTaskPoll(options, owner, poll);
    // The 1.x SDK would answer params that fail its own schemas -32603 with a validator dump.
    const invalid = await sdkParamsErrorOf(parsedBody, LEGACY_SDK_VALIDATED);
    if (invalid !== undefined) return jsonRpcError(requestIdOf(parsedBody), 200, invalid.code, invalid.message);
    // Stateless: a fresh server and transport per request, so any instance can serve any request.
    // Plain JSON answers, except where the request needs a stream: SEP-1686's task-created notification
    // precedes the response on the same stream.
    // So does a request that waits on a task and asked for progress notifications, and one that waits on
    // a task from a client that can be asked for input: its questions go to the client on the stream.
    const streaming =
      parsedBody !== undefined &&
      (hasSep1686Meta(parsedBody) || waitsWithProgress(parsedBody) || mayAskClient(request, parsedBody));
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !streaming,
    });
    const pending: Promise<unknown>[] = [];
    const server = createLegacyMcpServer(options, {
      owner,
      endResponseStream: (requestId) => transport.closeSSEStream(requestId),
      waitFor: (work) => void pending.push(work),
      askClient: (message, relatedRequestId) => transport.send(message, { relatedRequestId }),
      ...initializeVersionOf(parsedBody),
      clientDeclaresTasks: sessionDeclaresTasks(request.headers.get('mcp-session-id')),
      clientDeclaresApps: sessionDeclaresApps(request.headers.get('mcp-session-id')),
    });
    await server.connect(transport);
    // A client that goes away aborts its running handlers (a plain tools/call then stops its execution).
    request.signal.addEventListener('abort', () => void server.close(), { once: true });
    let response: Response;
    try {
      response = await transport.handleRequest(request, parsedBody === undefined ? undefined : { parsedBody });
      await Promise.allSettled(pending);
    } catch (error) {
      await server.close();
      throw error;
    }
    const sessionId = response.ok ? sessionIdForInitialize(parsedBody) : undefined;
    if (sessionId !== undefined) response = withHeader(response, 'mcp-session-id', sessionId);
    if (!streaming || response.body === null) {
      await server.close();
      return response;
    }
    // A streamed answer is still being written: close the server when the stream ends, not before.
    const body = response.body.pipeThrough(new TransformStream({ flush: () => void server.close() }));
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return {
    async handle(request, owner) {
      if (new URL(request.url).pathname !== path)
        return jsonRpcError(null, 404, -32000, `Not found: the MCP endpoint is ${path}`);
      // Checked here rather than by the SDK transport, whose allowedHosts needs exact host:port values.
      const rejected = options.allowedHosts ? rejectedHost(request, options.allowedHosts) : null;
      if (rejected !== null)
        return jsonRpcError(null, 403, -32000, `Forbidden: ${rejected} is not allowed (DNS rebinding protection)`);
      const read = await readBody(request);
      if (read.tooLarge)
        return jsonRpcError(
          null,
          413,
          -32600,
          `Payload too large: a request body may have at most ${MAX_REQUEST_BODY_BYTES} bytes`,
        );
      const { parsedBody } = read;
      // Before anything that echoes the id (the 401, the Events methods, the SDKs): every answer stays small.
      const oversizedId = requestIdOf(parsedBody);
      if (typeof oversizedId === 'string' && oversizedId.length > MAX_REQUEST_ID_LENGTH)
        return jsonRpcError(
          null,
          400,
          -32600,
          `Invalid Request: the id may have at most ${MAX_REQUEST_ID_LENGTH} characters`,
        );
      if (owner === null)
        return jsonRpcError(requestIdOf(parsedBody), 401, UNAUTHORIZED_ERROR_CODE, UNAUTHORIZED_MESSAGE, {
          'www-authenticate': 'Bearer',
        });
      if (read.unparsable) return jsonRpcError(null, 400, -32700, 'Parse error: the request body is not valid JSON');
      // Batching left MCP in 2025-06-18; refused before anything runs, so one request cannot carry a hundred calls.
      if (Array.isArray(parsedBody))
        return jsonRpcError(
          null,
          400,
          -32600,
          'Invalid Request: Batches are not supported; send one JSON-RPC message per request',
        );
      if (request.method === 'GET') {
        const stream = serveStandaloneStream(request, options.toolListChanges, streams);
        if (stream !== undefined) return stream;
      }
      // A client's answer to an input request asked on some instance's stream: delivered here, before any
      // SDK, whose stateless transport would drop a response to a request it did not send itself.
      const clientResponse = clientResponseOf(parsedBody);
      if (clientResponse !== undefined)
        return acceptClientResponse(options.inputs, owner, clientResponse, options.logger);
      // The Events extension's methods, for either era: neither SDK knows them.
      if (options.events !== undefined && isEventsMessage(parsedBody))
        return (await import('./events-endpoint.js')).serveEvents(request, parsedBody, owner, {
          ...options,
          events: options.events,
        });
      try {
        // The catalog is read at the first request that may need a tool: a session's initialize and a ping answer
        // without it, so a cold start does not load the AWS SDK for them.
        if (mayNeedTools(parsedBody)) await options.declaredTools?.load();
      } catch (error) {
        const refused = toMcpError(error, options.logger);
        return jsonRpcError(requestIdOf(parsedBody), 500, refused.code, refused.message);
      }
      await options.discoveredTools?.freshen();
      if (isSurelyLegacy(request, parsedBody)) return serveLegacy(request, parsedBody, owner);
      const poll = await answerModernPoll(request, parsedBody, owner);
      if (poll !== undefined) return poll;
      const sdkRule = async () => (await modernEndpoint()).isLegacy;
      if ((await eraOf(request, parsedBody, sdkRule)) === 'legacy') return serveLegacy(request, parsedBody, owner);
      return serveModern(request, parsedBody, owner);
    },
  };
}

/** Methods answered without the tool catalog: the handshake, a ping and notifications. */
const ANSWERED_WITHOUT_TOOLS = new Set(['initialize', 'ping']);

/** Whether the request may use the tool catalog: anything but a single handshake, ping or notification. */
function mayNeedTools(body: unknown): boolean {
  const method = (body as { method?: unknown } | null)?.method;
  if (Array.isArray(body) || typeof method !== 'string') return true;
  return !ANSWERED_WITHOUT_TOOLS.has(method) && !method.startsWith('notifications/');
}

type Body =
  | { readonly tooLarge: true }
  | { readonly tooLarge: false; readonly unparsable: boolean; readonly parsedBody: unknown };

/**
 * A body's text, read up to `maxBytes`: a declared Content-Length over it is refused unread, otherwise the read stops
 * as soon as more has arrived. The 2.x SDK's readRequestBody does the same, but importing it loads that whole SDK.
 * A body of a declared length within the cap is read whole with `text()`: Node's HTTP parser ends it at that length,
 * the local server (@hono/node-server) then reads it from the socket without making a web stream of it, and in Lambda
 * it is in memory already, in the event. The length read is checked all the same: API Gateway passes the header on as
 * the client sent it.
 */
async function readRequestText(
  request: Request,
  maxBytes: number,
): Promise<{ readonly tooLarge: true } | { readonly tooLarge: false; readonly text: string }> {
  const declared = request.headers.get('content-length');
  if (Number(declared) > maxBytes) return { tooLarge: true };
  if (declared !== null && /^\d+$/.test(declared)) {
    const text = await request.text();
    return Buffer.byteLength(text) > maxBytes ? { tooLarge: true } : { tooLarge: false, text };
  }
  if (request.body === null) return { tooLarge: false, text: '' };
  const reader = request.body.getReader();
  const decoder = new TextDecoder();
  let received = 0;
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { tooLarge: false, text: text + decoder.decode() };
      received += value.byteLength;
      if (received > maxBytes) return { tooLarge: true };
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * The JSON body of a POST, read up to the size cap; other methods have none. Read once, here: every SDK entry below
 * is handed the parsed body and reads the stream no more, so no clone (a copy of every body) is needed.
 */
async function readBody(request: Request): Promise<Body> {
  if (request.method !== 'POST') return { tooLarge: false, unparsable: false, parsedBody: undefined };
  const read = await readRequestText(request, MAX_REQUEST_BODY_BYTES);
  if (read.tooLarge) return read;
  try {
    return { tooLarge: false, unparsable: false, parsedBody: JSON.parse(read.text) };
  } catch {
    return { tooLarge: false, unparsable: true, parsedBody: undefined };
  }
}

function withHeader(response: Response, name: string, value: string): Response {
  const headers = new Headers(response.headers);
  headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

function initializeVersionOf(body: unknown): { initializeVersion?: string } {
  const message = body as { method?: unknown; params?: { protocolVersion?: unknown } } | null;
  const version = message?.method === 'initialize' ? message.params?.protocolVersion : undefined;
  return typeof version === 'string' ? { initializeVersion: version } : {};
}

function safeMeta(message: unknown): Record<string, unknown> | undefined {
  const params = (message as { params?: { _meta?: unknown } } | null)?.params;
  const meta = params?._meta;
  return typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>) : undefined;
}

/** A tools/call or tasks/result with a progressToken: its answer may be preceded by notifications/progress. */
function waitsWithProgress(message: unknown): boolean {
  const method = (message as { method?: unknown } | null)?.method;
  return (method === 'tools/call' || method === 'tasks/result') && progressTokenOf(safeMeta(message)) !== undefined;
}

/** A plain tools/call or a tasks/result from a client that may be asked for input while it waits. */
function mayAskClient(request: Request, message: unknown): boolean {
  const { method, params } = (message as { method?: unknown; params?: { task?: unknown } } | null) ?? {};
  const waits = (method === 'tools/call' && params?.task === undefined) || method === 'tasks/result';
  return waits && isAtLeast(request.headers.get('mcp-protocol-version') ?? undefined, ProtocolVersion.Elicitation);
}

function hasSep1686Meta(message: unknown): boolean {
  try {
    return sep1686TaskRequestOf(safeMeta(message)) !== undefined;
  } catch {
    // Malformed task meta still gets a stream; the handler answers it with -32602.
    return true;
  }
}
