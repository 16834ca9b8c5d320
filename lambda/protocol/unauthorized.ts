// The 401 the function answers (api-gateway.ts, the local dev server): the JSON-RPC error of
// contract/unauthorized-error.ts, which API Gateway's own 401 carries too (lib/api/mcp-rest-api.ts).
import { UNAUTHORIZED_ERROR_CODE, UNAUTHORIZED_MESSAGE } from '../contract/unauthorized-error.js';

/** The MCP authorization spec's 401: a JSON-RPC error, and a `WWW-Authenticate` challenge that says where to start. */
export function unauthorizedResponse(challenge: string): Response {
  const body = { jsonrpc: '2.0', id: null, error: { code: UNAUTHORIZED_ERROR_CODE, message: UNAUTHORIZED_MESSAGE } };
  return new Response(JSON.stringify(body), {
    status: 401,
    headers: { 'content-type': 'application/json', 'www-authenticate': challenge },
  });
}
