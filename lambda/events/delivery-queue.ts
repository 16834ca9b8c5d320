// The queue every webhook delivery goes through: SQS FIFO in AWS (handlers/sqs-delivery-queue.ts), memory locally
// (in-memory-delivery-queue.ts). Deliveries with one group key are handed to the deliverer one at a time, in the order
// they were sent, and a delivery that must be tried again holds its group back until it is delivered or given up
// on: so a receiver gets one task's events in order.
import type { DeliveryErrorCategory } from '../core/webhook-subscription.js';

export interface WebhookDelivery {
  readonly owner: string;
  readonly subscriptionId: string;
  /** Standard Webhooks' `webhook-id`: the event's ID (`evt_…`), or `msg_<type>_<random>` for a control envelope. */
  readonly webhookId: string;
  /** One subscription and one task: deliveries that must arrive in order. */
  readonly groupKey: string;
  /** The JSON body, exactly as it is signed and sent. */
  readonly body: string;
  /**
   * The event ends the only task the subscription follows (it reached a terminal status): once it is delivered the
   * subscription is removed, so it stops counting toward its owner's limit.
   */
  readonly endsSubscription?: true;
}

export interface DeliveryQueue {
  /** Queues the deliveries, in order; the same `webhookId` for the same subscription twice is one delivery. */
  send(deliveries: readonly WebhookDelivery[]): Promise<void>;
}

/** What became of one attempt. */
export type DeliveryOutcome =
  | { readonly kind: 'delivered' }
  /** Not to be tried again: the subscription is gone or suspended, the receiver said 410 or 413, or it was given up. */
  | { readonly kind: 'dropped'; readonly reason: string }
  /** Try again after `afterMs` (backoff with jitter); the group waits. */
  | { readonly kind: 'retry'; readonly afterMs: number; readonly category: DeliveryErrorCategory };

/**
 * Makes one attempt at a delivery. `receive` counts the queue's hand-overs of it from 1 (SQS's receive count), for
 * logs: the deliverer counts the receiver's failed attempts itself, so a hand-over that throws costs none. Never
 * throws for the receiver's failures; throws when the server's side fails (a store it cannot read or write).
 */
export interface Deliverer {
  deliver(delivery: WebhookDelivery, receive: number): Promise<DeliveryOutcome>;
}
