// The delivery queue in memory: the local stack's stand-in for SQS FIFO and the Lambda that consumes it
// (handlers/webhook-delivery-core.ts), with the same guarantees. Deliveries of one group go to the deliverer one at a
// time, in the order sent, and one to be tried again holds its group back for its wait; groups run side by side. The
// same webhook ID for the same subscription within five minutes is one delivery (SQS FIFO's deduplication window).
// A delivery whose attempts throw (the store is down, say) is tried again after a short pause; once it has been
// handed over `maxReceives` times without an outcome that ends it, it goes to `deadLetters` (SQS's redrive to the
// DLQ). As on SQS, every hand-over counts as a receive, a thrown one too; the deliverer counts the receiver's attempts
// itself, so a thrown hand-over costs the receiver none.
import { SYSTEM_CLOCK, type Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { Deliverer, DeliveryQueue, WebhookDelivery } from './delivery-queue.js';

export interface InMemoryDeliveryQueueOptions {
  readonly deliverer: Deliverer;
  /** Times the deduplication window and waits between attempts. @default SYSTEM_CLOCK */
  readonly clock?: Clock;
  readonly logger: Logger;
  /** Hand-overs of one delivery before it is dead-lettered (SQS's maxReceiveCount). @default 10 */
  readonly maxReceives?: number;
}

/** SQS FIFO's deduplication window. */
export const DEDUPLICATION_WINDOW_MS = 5 * 60 * 1000;
/** The pause before a delivery whose attempt threw is handed over again (SQS: its visibility timeout). */
export const THROWN_ATTEMPT_PAUSE_MS = 1_000;
export const DEFAULT_MAX_RECEIVES = 10;

interface Queued {
  readonly delivery: WebhookDelivery;
  receives: number;
}

export class InMemoryDeliveryQueue implements DeliveryQueue {
  private readonly deliverer: Deliverer;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly maxReceives: number;
  /** Per group, what waits, head first (the head is the one being tried, while its worker runs). */
  private readonly groups = new Map<string, Queued[]>();
  /** Groups with a worker running. */
  private readonly running = new Set<string>();
  /** Deduplication key → epoch ms it was sent, oldest first. */
  private readonly sent = new Map<string, number>();
  private readonly idleWaiters: (() => void)[] = [];
  private readonly stopping = new AbortController();
  private readonly dead: WebhookDelivery[] = [];
  private handedOver = 0;

  constructor(options: InMemoryDeliveryQueueOptions) {
    this.deliverer = options.deliverer;
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.logger = options.logger;
    this.maxReceives = options.maxReceives ?? DEFAULT_MAX_RECEIVES;
  }

  /** Hand-overs to the deliverer so far, retries and thrown ones included. */
  get attempts(): number {
    return this.handedOver;
  }

  /** The deliveries given up on after `maxReceives` hand-overs, oldest first. */
  get deadLetters(): readonly WebhookDelivery[] {
    return this.dead;
  }

  async send(deliveries: readonly WebhookDelivery[]): Promise<void> {
    if (this.stopping.signal.aborted) throw new Error('The delivery queue is stopped');
    const now = this.clock.now();
    this.forgetSentBefore(now - DEDUPLICATION_WINDOW_MS);
    for (const delivery of deliveries) {
      const key = `${delivery.subscriptionId}\n${delivery.webhookId}`;
      if (this.sent.has(key)) continue;
      this.sent.set(key, now);
      const group = this.groups.get(delivery.groupKey) ?? [];
      this.groups.set(delivery.groupKey, group);
      group.push({ delivery, receives: 0 });
      if (!this.running.has(delivery.groupKey)) this.start(delivery.groupKey);
    }
  }

  /** Resolves once nothing is queued and no attempt is under way (after `stop`, once no attempt is under way). */
  idle(): Promise<void> {
    if (this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Hands nothing more over and cuts every wait short; an attempt under way finishes. Queued deliveries stay. */
  stop(): void {
    this.stopping.abort();
  }

  private forgetSentBefore(cutoff: number): void {
    for (const [key, at] of this.sent) {
      if (at > cutoff) break;
      this.sent.delete(key);
    }
  }

  private start(groupKey: string): void {
    this.running.add(groupKey);
    void this.work(groupKey)
      .catch((error: unknown) => {
        this.logger.error('Delivery queue worker failed', { groupKey, error: String(error) });
      })
      .finally(() => {
        this.running.delete(groupKey);
        const left = this.groups.get(groupKey)?.length ?? 0;
        // A send between the worker's last look and now found it still running: start it again for that one.
        if (left > 0 && !this.stopping.signal.aborted) return this.start(groupKey);
        if (left === 0) this.groups.delete(groupKey);
        if (this.running.size === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
      });
  }

  /** Works through one group, head first, until it is empty or the queue stops. */
  private async work(groupKey: string): Promise<void> {
    const group = this.groups.get(groupKey)!;
    const signal = this.stopping.signal;
    while (group.length > 0 && !signal.aborted) {
      const head = group[0]!;
      head.receives += 1;
      this.handedOver += 1;
      const fields = { subscriptionId: head.delivery.subscriptionId, webhookId: head.delivery.webhookId };
      let waitMs: number;
      try {
        const outcome = await this.deliverer.deliver(head.delivery, head.receives);
        if (outcome.kind !== 'retry') {
          group.shift();
          continue;
        }
        waitMs = outcome.afterMs;
      } catch (error) {
        this.logger.warn('Webhook delivery attempt threw; it will be handed over again', {
          ...fields,
          attempt: head.receives,
          error: error instanceof Error ? error.message : String(error),
        });
        waitMs = THROWN_ATTEMPT_PAUSE_MS;
      }
      if (head.receives >= this.maxReceives) {
        group.shift();
        this.dead.push(head.delivery);
        this.logger.error('Webhook delivery dead-lettered', { ...fields, receives: head.receives });
        continue;
      }
      await this.clock.sleep(waitMs, signal);
    }
  }
}
