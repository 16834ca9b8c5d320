// The contract of webhook subscriptions' storage, per owner: one owner never reads, refreshes or removes another's.
// A subscription past its grant (`refreshBefore`) reads as absent, as if already gone (DynamoDB's TTL removes it
// later). DynamoDB implements it, secrets sealed at rest (dynamodb-webhook-subscriptions.ts); so does memory
// (in-memory-webhook-subscriptions.ts); test/contract/webhook-subscription-store-contract.ts holds both to it.
import type {
  DeliveryErrorCategory,
  DeliveryStatus,
  WebhookSubscription,
  WebhookSubscriptionSummary,
} from '../core/webhook-subscription.js';

export interface WebhookSubscriptionStore {
  /** Creates the subscription, or replaces the one with its ID (a refresh). */
  put(subscription: WebhookSubscription): Promise<void>;
  /** The owner's live subscription with this ID, or `null`. */
  get(owner: string, id: string): Promise<WebhookSubscription | null>;
  /** Removes it; `false` when the owner had no live subscription with this ID. */
  delete(owner: string, id: string): Promise<boolean>;
  /** Every live subscription of the owner. */
  listForOwner(owner: string): Promise<WebhookSubscription[]>;
  /**
   * The same, without their secrets: for matching events and reporting delivery status, which must not cost an
   * unsealing (nor, in AWS, a read of the sealing key on a tasks/get).
   */
  summariesForOwner(owner: string): Promise<WebhookSubscriptionSummary[]>;
  /**
   * The replay after `replayAfter` is all queued: clears the subscription's mark, so deliveries go one event at a
   * time again. Nothing when it is gone or carries another mark (a later subscribe started its own replay).
   */
  endReplay(owner: string, id: string, replayAfter: number): Promise<void>;
  /** Marks the subscription's URL as verified (the handshake succeeded); nothing when it is gone. */
  markVerified(owner: string, id: string): Promise<void>;
  /**
   * A delivery was accepted at `at`: the failure count and category clear, and so do the failed attempts counted for
   * `webhookId`, when given. Nothing when it is gone.
   */
  recordDelivered(owner: string, id: string, at: number, webhookId?: string): Promise<void>;
  /**
   * The receiver failed one attempt at the delivery `webhookId`: counts it, atomically, and returns the attempts at
   * that delivery failed so far, this one included; `null` when the subscription is gone. Only the receiver's failures
   * are counted here, so a delivery whose attempt failed on the server's side (this store unreadable, say) keeps every
   * attempt of its budget. The counts go with the subscription, and a refresh (`put`) starts them again.
   */
  recordFailedAttempt(owner: string, id: string, webhookId: string): Promise<number | null>;
  /**
   * An event was given up on after its last attempt failed with `category` at `at`. At `suspendAfter` events given up
   * on in a row, delivery is suspended (`active: false`). The failed attempts counted for `webhookId`, when given,
   * clear. Returns the status after, or `null` when it is gone.
   */
  recordAbandoned(
    owner: string,
    id: string,
    failure: {
      readonly category: DeliveryErrorCategory;
      readonly at: number;
      readonly suspendAfter: number;
      readonly webhookId?: string;
    },
  ): Promise<DeliveryStatus | null>;
}
