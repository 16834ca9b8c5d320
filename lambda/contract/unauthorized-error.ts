// The one JSON-RPC error a 401 carries, wherever it is made: by the function (protocol/http-app.ts,
// protocol/unauthorized.ts) or by API Gateway itself (lib/api/mcp-rest-api.ts). -32000 is what the SDK's HTTP
// transports answer transport-level refusals with; MCP defines no code for authentication.

export const UNAUTHORIZED_ERROR_CODE = -32000;
export const UNAUTHORIZED_MESSAGE = 'Unauthorized: send a valid bearer token';
