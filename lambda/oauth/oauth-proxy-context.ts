// What every endpoint of the OAuth proxy works with, built once by the composition root (handlers/oauth-proxy-core.ts).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AccessTokenKeys } from './access-tokens.js';
import type { ClientResolver } from './client-resolver.js';
import type { OAuthStore, RegistrationLimits } from './oauth-store.js';
import type { OAuthProxyMetrics, SourceLimiter } from './source-limits.js';
import type { UpstreamProvider } from './upstream-provider.js';

/** The one scope this server grants: calling the endpoint's tools and managing one's own tasks. */
export const OAUTH_PROXY_SCOPE = 'mcp';

export interface OAuthProxyLogger {
  info(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
  error(message: string, details?: Record<string, unknown>): void;
}

export interface OAuthProxyContext {
  /** The issuer, without a trailing slash; every URL this server hands out starts with it. */
  readonly issuer: string;
  /** The MCP URL: the one resource tokens are minted for. */
  readonly resource: string;
  readonly store: OAuthStore;
  readonly upstream: UpstreamProvider;
  readonly clients: ClientResolver;
  readonly tokens: AccessTokenKeys;
  /** Redirect URI policy (see contract/redirect-uri-policy.ts). */
  readonly allowedRedirectUris: readonly string[];
  /** Whether `client_id` may be a metadata document URL. */
  readonly clientIdMetadataDocuments: boolean;
  /** Dynamic Client Registration and its limits; absent when it is turned off. */
  readonly registration?: RegistrationLimits;
  /** Per-source limits on sign-ins and metadata document fetches. */
  readonly limiter: SourceLimiter;
  readonly metrics: OAuthProxyMetrics;
  readonly now: () => number;
  readonly logger: OAuthProxyLogger;
}

/** An unguessable token for a code, refresh token, state, nonce or PKCE verifier: 256 bits, base64url. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** How a code, refresh token or client secret is kept: its SHA-256, never itself. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Constant-time comparison of two strings (for hashes and PKCE challenges). */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
