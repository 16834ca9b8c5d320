// The one JSON-RPC error a 401 carries, wherever it is made: by the function (http-app.ts, api-gateway.ts) or by
// API Gateway itself (lib/mcp-rest-api.ts). -32000 is what the SDK's HTTP transports answer transport-level refusals
// with; MCP defines no code for authentication. Dependency-free, so the CDK construct can import it.

export const UNAUTHORIZED_ERROR_CODE = -32000;
export const UNAUTHORIZED_MESSAGE = 'Unauthorized: send a valid bearer token';

/** The MCP authorization spec's 401: a JSON-RPC error, and a `WWW-Authenticate` challenge that says where to start. */
export function unauthorizedResponse(challenge: string): Response {
  const body = { jsonrpc: '2.0', id: null, error: { code: UNAUTHORIZED_ERROR_CODE, message: UNAUTHORIZED_MESSAGE } };
  return new Response(JSON.stringify(body), {
    status: 401,
    headers: { 'content-type': 'application/json', 'www-authenticate': challenge },
  });
}
