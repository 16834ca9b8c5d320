// Per-source limits on what a stranger can make the server do without signing in: store a pending sign-in (one
// item per GET /authorize) and fetch a client metadata document (one outbound request per unknown URL). Each counts
// against an hourly limit per source, with the same counters as the registration limit; a refusal is a 429 and a
// metric, so an operator sees a flood being turned away.
import ipaddr from 'ipaddr.js';
import { TooManyRequestsError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthStore } from './oauth-store.js';

/** Every limit the proxy enforces, as named in the `OAuthRequestsLimited` metric's `limit` dimension. */
export const OAUTH_LIMIT = {
  registrationsPerSource: 'registrations-per-source',
  registrationsTotal: 'registrations-total',
  signInsPerSource: 'sign-ins-per-source',
  metadataFetchesPerSource: 'metadata-fetches-per-source',
} as const;
export type OAuthLimit = (typeof OAUTH_LIMIT)[keyof typeof OAUTH_LIMIT];

/** The per-source limits counted by a {@link SourceLimiter}. */
export type SourceCounted = typeof OAUTH_LIMIT.signInsPerSource | typeof OAUTH_LIMIT.metadataFetchesPerSource;

export interface SourceLimits {
  /** Pending sign-ins (GET /authorize that reach the consent page) per source per hour. */
  readonly signInsPerSourcePerHour: number;
  /** Client metadata documents fetched (cache misses only) per source per hour. */
  readonly metadataFetchesPerSourcePerHour: number;
}

/** Generous for a person, or an office behind one address; small against a flood. */
export const DEFAULT_SOURCE_LIMITS: SourceLimits = { signInsPerSourcePerHour: 60, metadataFetchesPerSourcePerHour: 30 };

/** Where a refusal is counted for operators (CloudWatch in AWS). */
export interface OAuthProxyMetrics {
  limitReached(limit: OAuthLimit): void;
}

export const NO_OAUTH_METRICS: OAuthProxyMetrics = { limitReached: () => undefined };

/**
 * The source a request is counted under: its IPv4 address, or the /64 of its IPv6 address. One subscriber is routinely
 * given a whole /64, so counting single IPv6 addresses would give one attacker 2^64 sources.
 */
export function countingSource(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...prefix, 0, 0, 0, 0]).toString()}/64`;
}

export interface SourceLimiter {
  /**
   * Counts one `what` from `source` (already a {@link countingSource}) this hour. Throws `TooManyRequestsError`, and
   * counts the refusal in the metrics, when the source has used up its limit.
   */
  admit(what: SourceCounted, source: string, now: number): Promise<void>;
}

export interface SourceLimiterOptions {
  readonly store: OAuthStore;
  readonly limits: SourceLimits;
  readonly metrics: OAuthProxyMetrics;
}

const REFUSALS: Record<SourceCounted, { readonly perHour: keyof SourceLimits; readonly what: string }> = {
  [OAUTH_LIMIT.signInsPerSource]: { perHour: 'signInsPerSourcePerHour', what: 'sign-ins' },
  [OAUTH_LIMIT.metadataFetchesPerSource]: {
    perHour: 'metadataFetchesPerSourcePerHour',
    what: 'client metadata document fetches',
  },
};

export function createSourceLimiter(options: SourceLimiterOptions): SourceLimiter {
  return {
    async admit(what, source, now) {
      const { perHour, what: words } = REFUSALS[what];
      const limit = options.limits[perHour];
      if (await options.store.countFromSource(what, source, now, limit)) return;
      options.metrics.limitReached(what);
      throw new TooManyRequestsError(`At most ${limit} ${words} an hour from one network: try again later`);
    },
  };
}
