// The proxy's access tokens: JWTs (RFC 9068 profile, `typ: at+jwt`) signed and checked with jose, bound to one
// resource (RFC 8707: `aud` is the MCP URL), naming the upstream subject as `sub`. HS256 with a key from Secrets
// Manager: only this endpoint's own two functions ever check these tokens, so no key pair needs publishing.
import { randomUUID } from 'node:crypto';
import { onceLoaded } from '../core/once-loaded.js';

// Loaded with the first token: a cold start that serves no authenticated request never parses it.
const jose = onceLoaded(() => import('jose'));

const ALGORITHM = 'HS256';
const TOKEN_TYPE = 'at+jwt';
/** An HMAC key shorter than the hash is weaker than the hash (RFC 2104). */
export const MIN_SIGNING_KEY_BYTES = 32;
/**
 * @default lifetime of an access token: 15 minutes. The MCP function checks a token without reading its grant, so a
 * grant revoked by a replay (or a person refused upstream at their next refresh) loses access when its last access
 * token expires; a short life bounds that at no cost per request. Clients refresh, and each refresh is checked.
 */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 15 * 60;

export interface AccessTokenKeys {
  readonly issuer: string;
  /** The MCP URL: the only audience minted and accepted. */
  readonly resource: string;
  /** Read when first needed. */
  readonly signingKey: () => Promise<Uint8Array>;
}

export interface AccessTokenSubject {
  readonly subject: string;
  readonly clientId: string;
  readonly scope: string;
}

/**
 * The signing key from a secret's text, read and checked once (a key too short to be safe is refused), then kept:
 * every token check on the endpoint's hot path uses the same bytes.
 */
export function signingKeyFromSecret(secret: () => Promise<string>): () => Promise<Uint8Array> {
  return onceLoaded(async () => {
    const key = new TextEncoder().encode(await secret());
    if (key.byteLength < MIN_SIGNING_KEY_BYTES)
      throw new Error(`The access-token signing key must have at least ${MIN_SIGNING_KEY_BYTES} bytes`);
    return key;
  });
}

export async function mintAccessToken(
  keys: AccessTokenKeys,
  grant: AccessTokenSubject,
  nowMs: number,
  lifetimeSeconds = ACCESS_TOKEN_LIFETIME_SECONDS,
): Promise<string> {
  const now = Math.floor(nowMs / 1000);
  const { SignJWT } = await jose();
  return new SignJWT({ client_id: grant.clientId, scope: grant.scope })
    .setProtectedHeader({ alg: ALGORITHM, typ: TOKEN_TYPE })
    .setIssuer(keys.issuer)
    .setAudience(keys.resource)
    .setSubject(grant.subject)
    .setIssuedAt(now)
    .setExpirationTime(now + lifetimeSeconds)
    .setJti(randomUUID())
    .sign(await keys.signingKey());
}

export type AccessTokenCheck =
  | { readonly valid: true; readonly subject: string; readonly clientId: string }
  | { readonly valid: false; readonly description: string };

/** Checks signature, type, issuer, audience and lifetime; says what failed in words a client's developer can act on. */
export async function checkAccessToken(
  keys: AccessTokenKeys,
  token: string,
  nowMs = Date.now(),
): Promise<AccessTokenCheck> {
  const { errors, jwtVerify } = await jose();
  try {
    const { payload } = await jwtVerify(token, await keys.signingKey(), {
      algorithms: [ALGORITHM],
      typ: TOKEN_TYPE,
      issuer: keys.issuer,
      audience: keys.resource,
      currentDate: new Date(nowMs),
      requiredClaims: ['sub', 'exp', 'iat'],
    });
    return { valid: true, subject: payload.sub!, clientId: String(payload['client_id'] ?? '') };
  } catch (error) {
    if (error instanceof errors.JWTExpired) return { valid: false, description: 'The access token has expired' };
    if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'aud')
      return { valid: false, description: `The access token was issued for another resource, not ${keys.resource}` };
    if (error instanceof errors.JOSEError) return { valid: false, description: 'The access token is not valid here' };
    throw error;
  }
}
