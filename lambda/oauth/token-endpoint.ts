// /token: the authorization_code grant (single-use code, PKCE S256, same client, same redirect URI, same resource)
// and the refresh_token grant (rotated on every use, re-checked upstream). Every refusal is an RFC 6749 5.2 error,
// and no token is minted or stored before every check has passed. A code is spent by its first redemption, whether
// that passes or not: a stolen code cannot be tried against many verifiers.
import { calculatePKCECodeChallenge } from 'openid-client';
import {
  InvalidClientError,
  InvalidGrantError,
  InvalidRequestError,
  InvalidTargetError,
  OAuthError,
  TemporarilyUnavailableError,
  TooManyRequestsError,
  UnsupportedGrantTypeError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { UpstreamRefusedError } from './upstream-provider.js';
import { ACCESS_TOKEN_LIFETIME_SECONDS, mintAccessToken } from './access-tokens.js';
import { formBody } from './form-body.js';
import type { KnownClient } from './client-resolver.js';
import { GrantRevokedError, type Grant, type Redemption } from './oauth-store.js';
import { json, oauthErrorResponse } from './oauth-responses.js';
import { randomToken, sameSecret, tokenHash, type OAuthProxyContext } from './oauth-proxy-context.js';

/** How long a refresh token lives; each refresh replaces it with a new one. */
const REFRESH_TOKEN_MS = 30 * 24 * 60 * 60 * 1000;
/** How long a registered client stays after it last received tokens. */
export const REGISTRATION_IDLE_MS = 90 * 24 * 60 * 60 * 1000;
/** RFC 7636 4.1. */
const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
const MAX_FORM_BYTES = 16 * 1024;

function required(form: URLSearchParams, name: string): string {
  const value = form.get(name);
  if (value === null || value === '') throw new InvalidRequestError(`${name} is required`);
  return value;
}

/** The token endpoint, for a request from `source` (a counting source, see source-limits.ts). */
export async function token(request: Request, source: string, context: OAuthProxyContext): Promise<Response> {
  try {
    const form = await formBody(request, MAX_FORM_BYTES, 'The token request');
    const client = await authenticateClient(request, form, source, context);
    const grantType = form.get('grant_type');
    const issued =
      grantType === 'authorization_code'
        ? await redeemCode(form, client, context)
        : grantType === 'refresh_token'
          ? await refresh(form, client, context)
          : (() => {
              throw new UnsupportedGrantTypeError(
                `grant_type must be 'authorization_code' or 'refresh_token', got '${grantType ?? ''}'`,
              );
            })();
    if (client.kind === 'registered')
      await context.store.extendClient(client.clientId, context.now() + REGISTRATION_IDLE_MS);
    return json(issued);
  } catch (error) {
    if (error instanceof InvalidClientError)
      return oauthErrorResponse(error, 401, { 'www-authenticate': 'Basic realm="token"' });
    if (error instanceof TemporarilyUnavailableError) return oauthErrorResponse(error, 503, { 'retry-after': '5' });
    if (error instanceof TooManyRequestsError) return oauthErrorResponse(error, 429, { 'retry-after': '3600' });
    if (error instanceof OAuthError) return oauthErrorResponse(error);
    throw error;
  }
}

/** RFC 6749 2.3.1: HTTP Basic (URL-encoded ID and secret) or the secret in the form; a public client sends its ID. */
async function authenticateClient(
  request: Request,
  form: URLSearchParams,
  source: string,
  context: OAuthProxyContext,
): Promise<KnownClient> {
  const basic = /^Basic (.+)$/i.exec(request.headers.get('authorization') ?? '');
  let clientId: string;
  let secret: string | undefined;
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new InvalidClientError('Malformed Basic credentials');
    clientId = formDecoded(decoded.slice(0, colon));
    secret = formDecoded(decoded.slice(colon + 1));
  } else {
    clientId = required(form, 'client_id');
    secret = form.get('client_secret') ?? undefined;
  }
  if (form.has('client_id') && form.get('client_id') !== clientId)
    throw new InvalidClientError('client_id in the form differs from the authenticated client');
  const client = await context.clients(clientId, context.now(), source);
  if (client.tokenEndpointAuthMethod === 'none') {
    if (secret !== undefined) throw new InvalidClientError(`Client '${clientId}' is public: it has no secret to send`);
    return client;
  }
  if (secret === undefined) throw new InvalidClientError(`Client '${clientId}' must authenticate with its secret`);
  if (client.clientSecretHash === undefined || !sameSecret(tokenHash(secret), client.clientSecretHash))
    throw new InvalidClientError('Client authentication failed');
  return client;
}

/** RFC 6749 2.3.1: the ID and secret in Basic credentials are form-encoded first. */
function formDecoded(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    throw new InvalidClientError('Malformed Basic credentials');
  }
}

function checkResource(form: URLSearchParams, grant: Grant): void {
  const resource = form.get('resource');
  if (resource !== null && resource !== grant.resource)
    throw new InvalidTargetError(`This grant is for ${grant.resource}, not ${resource}`);
}

/**
 * The code or refresh token a redemption found, if it was this client's and not used before. One used twice was
 * probably stolen, so its whole grant is revoked (RFC 6749 4.1.2 for codes, RFC 9700 4.14.2 for refresh tokens).
 */
async function redeemedBy<T extends Grant>(
  client: KnownClient,
  redemption: Redemption<T>,
  what: 'authorization code' | 'refresh token',
  context: OAuthProxyContext,
): Promise<T> {
  if (redemption.outcome === 'reused') {
    await context.store.revokeGrant(redemption.record.grantId, context.now());
    context.logger.warn(`A ${what} was replayed; its grant is revoked`, { clientId: client.clientId });
  }
  if (redemption.outcome !== 'redeemed') throw new InvalidGrantError(`The ${what} is invalid, expired or already used`);
  if (redemption.record.clientId !== client.clientId)
    throw new InvalidGrantError(`The ${what} was issued to another client`);
  return redemption.record;
}

async function redeemCode(form: URLSearchParams, client: KnownClient, context: OAuthProxyContext) {
  const code = required(form, 'code');
  const redirectUri = required(form, 'redirect_uri');
  const verifier = required(form, 'code_verifier');
  const redemption = await context.store.redeemAuthorizationCode(tokenHash(code), context.now());
  const grant = await redeemedBy(client, redemption, 'authorization code', context);
  if (grant.redirectUri !== redirectUri)
    throw new InvalidGrantError('redirect_uri differs from the one in the authorization request');
  if (!CODE_VERIFIER.test(verifier))
    throw new InvalidGrantError('code_verifier must be 43-128 characters of A-Z a-z 0-9 - . _ ~');
  if (!sameSecret(await calculatePKCECodeChallenge(verifier), grant.codeChallenge))
    throw new InvalidGrantError('code_verifier does not match the code_challenge of the authorization request');
  checkResource(form, grant);
  return issueTokens(grant, context);
}

async function refresh(form: URLSearchParams, client: KnownClient, context: OAuthProxyContext) {
  const redemption = await context.store.redeemRefreshToken(tokenHash(required(form, 'refresh_token')), context.now());
  const presented = await redeemedBy(client, redemption, 'refresh token', context);
  checkResource(form, presented);
  let upstreamRefreshToken = presented.upstreamRefreshToken;
  if (upstreamRefreshToken !== undefined) {
    try {
      upstreamRefreshToken =
        (await context.upstream.refresh(upstreamRefreshToken)).refreshToken ?? upstreamRefreshToken;
    } catch (error) {
      if (error instanceof UpstreamRefusedError) {
        context.logger.info('Upstream refused a refresh', { error: String(error) });
        throw new InvalidGrantError('The identity provider no longer accepts this sign-in: sign in again');
      }
      // The provider could not be asked: the token stays good, so the client can try again.
      context.logger.warn('Upstream refresh failed', { error: String(error) });
      await context.store.restoreRefreshToken(presented);
      throw new TemporarilyUnavailableError('The identity provider could not be reached: try again shortly');
    }
  }
  return issueTokens(upstreamRefreshToken === undefined ? presented : { ...presented, upstreamRefreshToken }, context);
}

/** Mints an access token and a refresh token for a grant; the refresh token becomes the grant's current one. */
async function issueTokens(grant: Grant, context: OAuthProxyContext) {
  const now = context.now();
  const accessToken = await mintAccessToken(context.tokens, grant, now);
  const refreshToken = randomToken();
  try {
    await context.store.putRefreshToken({
      tokenHash: tokenHash(refreshToken),
      grantId: grant.grantId,
      clientId: grant.clientId,
      resource: grant.resource,
      scope: grant.scope,
      subject: grant.subject,
      ...(grant.upstreamRefreshToken ? { upstreamRefreshToken: grant.upstreamRefreshToken } : {}),
      expiresAt: now + REFRESH_TOKEN_MS,
    });
  } catch (error) {
    // A replay seen meanwhile revoked the grant: this request gets nothing either.
    if (error instanceof GrantRevokedError) throw new InvalidGrantError('This grant was revoked: sign in again');
    throw error;
  }
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_LIFETIME_SECONDS,
    refresh_token: refreshToken,
    scope: grant.scope,
  };
}
