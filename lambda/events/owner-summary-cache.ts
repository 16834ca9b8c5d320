// What tasks/get shows of an owner's webhooks, kept briefly per instance. Every poll of every task would otherwise
// query the owner's subscriptions (a second DynamoDB call, on a poll path that should cost one read), though most
// owners have none and delivery status changes far slower than clients poll. Matching events to subscriptions never
// reads through this: a new subscription must get its events at once, so the projector always reads the store.
import type { Clock } from '../core/clock.js';
import type { WebhookSubscriptionSummary } from '../core/webhook-subscription.js';

export interface OwnerSummaryCacheOptions {
  readonly clock: Clock;
  /** How long a read is kept: how late a change made on another instance may show in tasks/get. */
  readonly ttlMs: number;
  /** The most owners kept; the longest unread goes first. */
  readonly maxOwners: number;
}

/** A change of delivery status shows in tasks/get within this, at most one Query per owner per instance per window. */
export const DEFAULT_OWNER_SUMMARY_CACHE: Omit<OwnerSummaryCacheOptions, 'clock'> = {
  ttlMs: 10_000,
  maxOwners: 1_000,
};

export class OwnerSummaryCache {
  /** In the order last read: a Map keeps insertion order, and a read moves its owner to the end. */
  readonly #entries = new Map<
    string,
    { readonly at: number; readonly summaries: Promise<WebhookSubscriptionSummary[]> }
  >();

  constructor(private readonly options: OwnerSummaryCacheOptions) {}

  /** The owner's summaries, read through `read` when none are kept or they are older than the TTL. */
  get(owner: string, read: () => Promise<WebhookSubscriptionSummary[]>): Promise<WebhookSubscriptionSummary[]> {
    const now = this.options.clock.now();
    const kept = this.#entries.get(owner);
    this.#entries.delete(owner);
    if (kept !== undefined && now - kept.at < this.options.ttlMs) {
      this.#entries.set(owner, kept);
      return kept.summaries;
    }
    // Concurrent polls of one owner share one read; a failed read is not kept.
    const summaries = read();
    this.#entries.set(owner, { at: now, summaries });
    summaries.catch(() => this.#entries.delete(owner));
    while (this.#entries.size > this.options.maxOwners) this.#entries.delete(this.#entries.keys().next().value!);
    return summaries;
  }

  /** Forgets the owner's summaries: this instance changed their subscriptions. */
  forget(owner: string): void {
    this.#entries.delete(owner);
  }
}
