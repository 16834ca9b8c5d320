// The Web-standard core of the endpoint: Request in, Response out. The Lambda handler and the local dev
// server are thin adapters around it, so both run exactly this code.
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { createMcpServer, type McpServerDependencies } from './mcp-server.js';

export interface McpHttpAppOptions extends McpServerDependencies {
  /** @default '/mcp' */
  readonly path?: string;
  /**
   * Host names (any port) that the Host and Origin headers may name: DNS-rebinding protection for a server on
   * loopback. Unset accepts any, as behind API Gateway, whose own domain routing already pins the host.
   */
  readonly allowedHosts?: readonly string[];
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

function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

export function createMcpHttpApp(options: McpHttpAppOptions): McpHttpApp {
  const path = options.path ?? '/mcp';
  return {
    async handle(request, owner) {
      if (new URL(request.url).pathname !== path) return jsonRpcError(404, -32000, `Not found: the MCP endpoint is ${path}`);
      // Checked here rather than by the SDK transport, whose allowedHosts needs exact host:port values.
      const rejected = options.allowedHosts ? rejectedHost(request, options.allowedHosts) : null;
      if (rejected !== null) return jsonRpcError(403, -32000, `Forbidden: ${rejected} is not allowed (DNS rebinding protection)`);
      if (owner === null) return jsonRpcError(401, -32000, 'Unauthorized: send a valid bearer token', { 'www-authenticate': 'Bearer' });
      // Stateless: a fresh server and transport per request, so any instance can serve any request.
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      const server = createMcpServer(options, owner);
      await server.connect(transport);
      try {
        return await transport.handleRequest(request);
      } finally {
        await server.close();
      }
    },
  };
}
