// The one place that decides which era a request belongs to: legacy (the 2025 revisions, served by the 1.x SDK) or
// modern (2026-07-28, the 2.x SDK). The common 2025-era request is told cheaply, so that a cold start that serves only
// those never loads the 2.x SDK; anything the cheap check does not call legacy is left to the 2.x SDK's own rule
// (isLegacyRequest), so the two can never disagree on a request.
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';

/** The reserved `_meta` key by which a 2026-07-28 request claims its era (the SDK's envelope claim). */
const ENVELOPE_CLAIM_KEY = 'io.modelcontextprotocol/protocolVersion';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isRequestId(id: unknown): boolean {
  return typeof id === 'string' || Number.isSafeInteger(id);
}

/**
 * True when the SDK would surely serve `request` as legacy: a GET or DELETE, or a well-formed JSON-RPC request or
 * notification that names no era in its `_meta` and at most a 2025-era (or older) MCP-Protocol-Version header.
 * False means "ask the SDK", not "modern".
 */
export function isSurelyLegacy(request: Request, parsedBody: unknown): boolean {
  if (request.method !== 'POST') return true;
  const header = request.headers.get('mcp-protocol-version')?.trim();
  if (header !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(header)) return false;
  if (!isPlainObject(parsedBody) || parsedBody.jsonrpc !== '2.0' || typeof parsedBody.method !== 'string') return false;
  if ('id' in parsedBody && !isRequestId(parsedBody.id)) return false;
  const { params } = parsedBody;
  if (params === undefined) return true;
  if (!isPlainObject(params)) return false;
  const meta = params._meta;
  return meta === undefined || (isPlainObject(meta) && !(ENVELOPE_CLAIM_KEY in meta));
}

export type Era = 'legacy' | 'modern';

/**
 * The era `request` is served in. `sdkRule` loads the 2.x SDK's rule; it is called only for a request the cheap check
 * cannot call legacy.
 */
export async function eraOf(
  request: Request,
  parsedBody: unknown,
  sdkRule: () => Promise<(request: Request, parsedBody: unknown) => Promise<boolean>>,
): Promise<Era> {
  if (isSurelyLegacy(request, parsedBody)) return 'legacy';
  return (await (await sdkRule())(request, parsedBody)) ? 'legacy' : 'modern';
}
