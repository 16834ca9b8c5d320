// WebhookSubscriptionStore in memory, for fast unit tests and the local stack's stand-ins: the same guarantees as the
// DynamoDB store, held by one contract suite (test/contract/webhook-subscription-store-contract.ts). Subscriptions are
// kept per owner, so one owner's ID never reaches another's; each write is one synchronous step. Secrets are kept as
// given (nothing here is at rest). Not for production.
import type { Clock } from '../core/clock.js';
import {
  isLive,
  type DeliveryErrorCategory,
  type DeliveryStatus,
  type WebhookSubscriptionSummary,
  type WebhookSubscription,
} from '../core/webhook-subscription.js';
import type { WebhookSubscriptionStore } from './webhook-subscription-store.js';

export interface InMemoryWebhookSubscriptionsOptions {
  /** Judges which subscriptions are past their grant. */
  readonly clock: Pick<Clock, 'now'>;
}

export class InMemoryWebhookSubscriptions implements WebhookSubscriptionStore {
  private readonly clock: Pick<Clock, 'now'>;
  /** Per owner, the subscriptions by ID. */
  private readonly byOwner = new Map<string, Map<string, WebhookSubscription>>();
  /** Failed attempts by owner, subscription ID and webhook ID (see {@link attemptKey}). */
  private readonly failedAttempts = new Map<string, number>();

  constructor(options: InMemoryWebhookSubscriptionsOptions) {
    this.clock = options.clock;
  }

  async put(subscription: WebhookSubscription): Promise<void> {
    const owned = this.byOwner.get(subscription.owner) ?? new Map<string, WebhookSubscription>();
    this.byOwner.set(subscription.owner, owned);
    owned.set(subscription.id, structuredClone(subscription));
    this.forgetAttempts(subscription.owner, subscription.id);
  }

  async get(owner: string, id: string): Promise<WebhookSubscription | null> {
    const stored = this.live(owner, id);
    return stored === undefined ? null : structuredClone(stored);
  }

  async delete(owner: string, id: string): Promise<boolean> {
    const found = this.live(owner, id) !== undefined;
    this.byOwner.get(owner)?.delete(id);
    this.forgetAttempts(owner, id);
    return found;
  }

  async listForOwner(owner: string): Promise<WebhookSubscription[]> {
    const now = this.clock.now();
    // In ID order, as DynamoDB returns a partition by its sort key.
    return [...(this.byOwner.get(owner)?.values() ?? [])]
      .filter((subscription) => isLive(subscription, now))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((subscription) => structuredClone(subscription));
  }

  async summariesForOwner(owner: string): Promise<WebhookSubscriptionSummary[]> {
    return (await this.listForOwner(owner)).map(summaryOf);
  }

  async endReplay(owner: string, id: string, replayAfter: number): Promise<void> {
    this.update(owner, id, (stored) => {
      if (stored.replayAfter !== replayAfter) return stored;
      const { replayAfter: _ended, ...rest } = stored;
      return rest;
    });
  }

  async markVerified(owner: string, id: string): Promise<void> {
    this.update(owner, id, (stored) => ({ ...stored, verified: true }));
  }

  async recordDelivered(owner: string, id: string, at: number, webhookId?: string): Promise<void> {
    if (webhookId !== undefined && this.live(owner, id) !== undefined)
      this.failedAttempts.delete(attemptKey(owner, id, webhookId));
    this.update(owner, id, (stored) => {
      const { lastError: _error, failedSince: _since, ...delivery } = stored.delivery;
      return { ...stored, delivery: { ...delivery, lastDeliveryAt: at, failedEvents: 0 } };
    });
  }

  async recordFailedAttempt(owner: string, id: string, webhookId: string): Promise<number | null> {
    if (this.live(owner, id) === undefined) return null;
    const key = attemptKey(owner, id, webhookId);
    const failed = (this.failedAttempts.get(key) ?? 0) + 1;
    this.failedAttempts.set(key, failed);
    return failed;
  }

  async recordAbandoned(
    owner: string,
    id: string,
    failure: {
      readonly category: DeliveryErrorCategory;
      readonly at: number;
      readonly suspendAfter: number;
      readonly webhookId?: string;
    },
  ): Promise<DeliveryStatus | null> {
    if (failure.webhookId !== undefined && this.live(owner, id) !== undefined)
      this.failedAttempts.delete(attemptKey(owner, id, failure.webhookId));
    const written = this.update(owner, id, (stored) => {
      const failedEvents = stored.delivery.failedEvents + 1;
      const delivery: DeliveryStatus = {
        ...stored.delivery,
        active: stored.delivery.active && failedEvents < failure.suspendAfter,
        lastError: failure.category,
        failedSince: stored.delivery.failedSince ?? failure.at,
        failedEvents,
      };
      return { ...stored, delivery };
    });
    return written === undefined ? null : structuredClone(written.delivery);
  }

  /** Forgets the failed attempts of every delivery to the subscription, as a new item in DynamoDB would. */
  private forgetAttempts(owner: string, id: string): void {
    const prefix = attemptKey(owner, id, '');
    for (const key of [...this.failedAttempts.keys()]) if (key.startsWith(prefix)) this.failedAttempts.delete(key);
  }

  /** The owner's subscription with this ID while it is live. */
  private live(owner: string, id: string): WebhookSubscription | undefined {
    const stored = this.byOwner.get(owner)?.get(id);
    return stored !== undefined && isLive(stored, this.clock.now()) ? stored : undefined;
  }

  /** Replaces the live subscription with what `change` makes of it; nothing (and `undefined`) when it is gone. */
  private update(
    owner: string,
    id: string,
    change: (stored: WebhookSubscription) => WebhookSubscription,
  ): WebhookSubscription | undefined {
    const stored = this.live(owner, id);
    if (stored === undefined) return undefined;
    const written = change(stored);
    this.byOwner.get(owner)!.set(id, written);
    return written;
  }
}

function summaryOf(subscription: WebhookSubscription): WebhookSubscriptionSummary {
  const { secret: _secret, previousSecret: _previous, previousSecretUntil: _until, ...summary } = subscription;
  return summary;
}

/** One key per owner, subscription and delivery; the separator is in none of the three. */
function attemptKey(owner: string, id: string, webhookId: string): string {
  return `${owner}\n${id}\n${webhookId}`;
}
