// The cold-start baseline of `npm run bench:startup`: the least an MCP server on the official SDK can be, a stateless
// server and transport per request with one tool, bundled and started exactly like the project's handler.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';

export async function handle(request: Request): Promise<Response> {
  const server = new McpServer({ name: 'minimal', version: '1.0.0' });
  server.registerTool('noop', {}, async () => ({ content: [] }));
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  return transport.handleRequest(request);
}
