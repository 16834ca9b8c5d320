// A webhook subscription (MCP Events, SEP-3415): a principal asks for an event type's events, filtered by its
// arguments, to be POSTed to a callback URL, signed with a secret the client chose. The subscription is named by what
// it is, (principal, URL, event name, arguments): subscribing again with the same four refreshes it, and its ID is
// derived from them, so it is stable across refreshes and restarts and never an input. Pure.
import { createHash } from 'node:crypto';

/** The categories a delivery failure is reported in: never the endpoint's own words (no response oracle). */
export const DeliveryErrorCategory = {
  ConnectionRefused: 'connection_refused',
  Timeout: 'timeout',
  TlsError: 'tls_error',
  Http4xx: 'http_4xx',
  Http5xx: 'http_5xx',
  ChallengeFailed: 'challenge_failed',
} as const;
export type DeliveryErrorCategory = (typeof DeliveryErrorCategory)[keyof typeof DeliveryErrorCategory];

/** How delivery to the subscription's URL is going, as `events/subscribe` and `tasks/get` report it. */
export interface DeliveryStatus {
  /** False once delivery was suspended after repeated failures; a refresh (subscribing again) sets it back. */
  readonly active: boolean;
  readonly lastDeliveryAt?: number;
  readonly lastError?: DeliveryErrorCategory;
  /** Epoch ms of the first failure since the last success. */
  readonly failedSince?: number;
  /** Events given up on (every attempt failed) since the last success: at the limit delivery is suspended. */
  readonly failedEvents: number;
}

export interface WebhookSubscription {
  /** `sub_` and 32 hex digits, derived from the key (see {@link subscriptionIdOf}). */
  readonly id: string;
  readonly owner: string;
  /** The event type. */
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly url: string;
  /** The Standard Webhooks secret (`whsec_…`) every delivery is signed with. */
  readonly secret: string;
  /** The secret a refresh replaced, still signed with beside the new one until `previousSecretUntil`. */
  readonly previousSecret?: string;
  readonly previousSecretUntil?: number;
  readonly createdAt: number;
  /** Epoch ms the subscription lapses unless refreshed; `null` for no expiry (only when the client asked for none). */
  readonly refreshBefore: number | null;
  /**
   * Whether the URL's intent to receive is confirmed (the handshake echoed the challenge, or its origin is trusted).
   * Nothing but a verification envelope is sent to an unverified URL.
   */
  readonly verified: boolean;
  readonly delivery: DeliveryStatus;
  /**
   * While the replay its cursor asked for is not yet all queued: the seq it replays after. Until the mark is cleared,
   * every delivery to the subscription is queued as the whole run of its task's events from here on, in seq order,
   * so a live event can never reach the queue ahead of an earlier one still to be replayed.
   */
  readonly replayAfter?: number;
}

/** A subscription without its secrets: what matching events and reporting delivery status need. */
export type WebhookSubscriptionSummary = Omit<WebhookSubscription, 'secret' | 'previousSecret' | 'previousSecretUntil'>;

export const HEALTHY_DELIVERY: DeliveryStatus = { active: true, failedEvents: 0 };

/** JSON with object keys sorted at every depth: equal arguments give equal text, whatever order they came in. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, each]) => each !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, each]) => `${JSON.stringify(key)}:${canonicalJson(each)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The subscription's ID: a routing handle, not a capability; the same for the same key, every time. */
export function subscriptionIdOf(key: {
  readonly owner: string;
  readonly url: string;
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}): string {
  const digest = createHash('sha256')
    .update(canonicalJson([key.owner, key.url, key.name, key.arguments]))
    .digest('hex');
  return `sub_${digest.slice(0, 32)}`;
}

/** Whether the subscription still holds at `now`. */
export function isLive(subscription: Pick<WebhookSubscription, 'refreshBefore'>, now: number): boolean {
  return subscription.refreshBefore === null || subscription.refreshBefore > now;
}
