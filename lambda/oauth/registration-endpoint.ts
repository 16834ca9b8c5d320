// /register: RFC 7591 Dynamic Client Registration, for the clients that do not use metadata documents yet. The
// metadata is checked with the MCP SDK's schema, every redirect URI against the team's policy, and each registration
// counts against a per-source and a total limit before anything is stored. A registration nobody uses expires.
import { randomUUID } from 'node:crypto';
import {
  InvalidClientMetadataError,
  InvalidRequestError,
  OAuthError,
  TooManyRequestsError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { OAuthClientMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import { InvalidRedirectUriError } from './oauth-errors.js';
import { json, oauthErrorResponse } from './oauth-responses.js';
import { CLIENT_AUTH_METHODS, type ClientAuthMethod, type RegistrationLimits } from './oauth-store.js';
import { isAllowedRedirectUri } from '../contract/redirect-uri-policy.js';
import { randomToken, tokenHash, type OAuthProxyContext } from './oauth-proxy-context.js';
import { OAUTH_LIMIT } from './source-limits.js';

/** A registration that has not received a token within this time is forgotten. */
export const UNUSED_REGISTRATION_MS = 24 * 60 * 60 * 1000;
const MAX_REGISTRATION_BYTES = 16 * 1024;
/**
 * How deep the metadata may nest, the document itself being level 1. A JWK set needs 5 (document, jwks, keys, a key,
 * its x5c). The byte cap alone lets 16 KB of brackets nest thousands of levels, which overflows the stack of anything
 * that walks the value recursively (JSON.stringify, the DynamoDB marshaller).
 */
const MAX_METADATA_DEPTH = 8;
const SUPPORTED_GRANT_TYPES = ['authorization_code', 'refresh_token'];

/** Registers a client for a request from `source` (a counting source, see source-limits.ts). */
export async function register(
  request: Request,
  source: string,
  limits: RegistrationLimits,
  context: OAuthProxyContext,
): Promise<Response> {
  try {
    const metadata = await checkedMetadata(request, context);
    const now = context.now();
    const refused = await context.store.countRegistration(source, now, limits);
    if (refused !== null) {
      context.logger.warn('Client registration refused by a limit', { limit: refused });
      context.metrics.limitReached(
        refused === 'per-source' ? OAUTH_LIMIT.registrationsPerSource : OAUTH_LIMIT.registrationsTotal,
      );
      const error = new TooManyRequestsError(
        refused === 'per-source'
          ? `At most ${limits.perSourcePerHour} registrations per hour from one network: try again later`
          : 'This server takes no more registrations today: try again tomorrow',
      );
      return oauthErrorResponse(error, 429, { 'retry-after': refused === 'per-source' ? '3600' : '86400' });
    }
    const clientId = randomUUID();
    const secret = metadata.token_endpoint_auth_method === 'none' ? undefined : randomToken();
    await context.store.putClient({
      clientId,
      redirectUris: metadata.redirect_uris,
      tokenEndpointAuthMethod: metadata.token_endpoint_auth_method,
      ...(secret ? { clientSecretHash: tokenHash(secret) } : {}),
      metadata,
      issuedAt: now,
      expiresAt: now + UNUSED_REGISTRATION_MS,
    });
    return json(
      {
        ...metadata,
        client_id: clientId,
        client_id_issued_at: Math.floor(now / 1000),
        ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
      },
      201,
    );
  } catch (error) {
    if (error instanceof OAuthError) return oauthErrorResponse(error);
    throw error;
  }
}

async function checkedMetadata(request: Request, context: OAuthProxyContext) {
  if (!(request.headers.get('content-type') ?? '').toLowerCase().startsWith('application/json'))
    throw new InvalidRequestError('The registration request must be application/json');
  const text = await request.text();
  if (Buffer.byteLength(text) > MAX_REGISTRATION_BYTES)
    throw new InvalidClientMetadataError(`Client metadata may have at most ${MAX_REGISTRATION_BYTES} bytes`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new InvalidClientMetadataError('The client metadata is not valid JSON');
  }
  if (nestingDepth(body) > MAX_METADATA_DEPTH)
    throw new InvalidClientMetadataError(
      `Client metadata may nest at most ${MAX_METADATA_DEPTH} levels deep: publish large key sets at jwks_uri instead`,
    );
  const parsed = OAuthClientMetadataSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InvalidClientMetadataError(`${issue.path.join('.') || 'metadata'}: ${issue.message}`);
  }
  const metadata = parsed.data;
  if (metadata.redirect_uris.length === 0)
    throw new InvalidRedirectUriError('redirect_uris must list at least one URI');
  const refused = metadata.redirect_uris.find((uri) => !isAllowedRedirectUri(uri, context.allowedRedirectUris));
  if (refused !== undefined)
    throw new InvalidRedirectUriError(
      `redirect_uri '${refused}' is not allowed by this server's redirect URI policy ` +
        "(loopback and the known clients' callbacks are; the endpoint's owner can add more)",
    );
  // RFC 7591's default is client_secret_basic; MCP clients that are public say 'none'.
  const method = (metadata.token_endpoint_auth_method ?? 'client_secret_basic') as ClientAuthMethod;
  if (!CLIENT_AUTH_METHODS.includes(method))
    throw new InvalidClientMetadataError(
      `token_endpoint_auth_method must be one of ${CLIENT_AUTH_METHODS.join(', ')}, got '${method}'`,
    );
  const grantTypes = metadata.grant_types ?? ['authorization_code'];
  const unsupported = grantTypes.filter((grant) => !SUPPORTED_GRANT_TYPES.includes(grant));
  if (unsupported.length > 0 || !grantTypes.includes('authorization_code'))
    throw new InvalidClientMetadataError(
      `grant_types may be authorization_code and refresh_token, and must include authorization_code`,
    );
  const responseTypes = metadata.response_types ?? ['code'];
  if (responseTypes.some((type) => type !== 'code'))
    throw new InvalidClientMetadataError("response_types may only be 'code'");
  return {
    ...metadata,
    token_endpoint_auth_method: method,
    grant_types: grantTypes,
    response_types: responseTypes,
  };
}

/** How deeply a parsed JSON value nests objects and arrays (a scalar is 0), found without recursion. */
export function nestingDepth(value: unknown): number {
  let deepest = 0;
  const stack: Array<{ readonly value: unknown; readonly depth: number }> = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const { value: next, depth } = stack.pop()!;
    if (typeof next !== 'object' || next === null) continue;
    deepest = Math.max(deepest, depth);
    for (const child of Object.values(next)) stack.push({ value: child, depth: depth + 1 });
  }
  return deepest;
}
