// One attempt at one webhook delivery, and what became of it. The subscription is read afresh each time (it may have
// gone, been suspended, verified or had its secret refreshed since the delivery was queued). An unverified URL gets the
// verification handshake first and nothing else until it passes. The body is signed (Standard Webhooks; with the
// previous secret too while it is in its grace window) and POSTed through safeFetch, which checks the addresses again
// at connect time, follows no redirect and caps time and size. 2xx is delivered; 410 (the receiver wants no more) and
// 413 (the body will never fit) are dropped at once; any other failure is tried again with backoff, until the last
// attempt, when the event is given up on and counted against the subscription (suspended after too many in a row).
// The attempts are the receiver's failures, counted in the subscription store as they happen, not the times the queue
// handed the delivery over: a hand-over that fails on the server's side (the store unreadable, say) throws, costs the
// receiver no attempt, and is bounded by the queue instead (SQS's maxReceiveCount, then the dead-letter queue).
// Logs name the subscription, the message and the category, never the secret, the URL's path or what the receiver said.
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { DeliveryErrorCategory, type WebhookSubscription } from '../core/webhook-subscription.js';
import { OutboundFetchError, safeFetch } from '../outbound/safe-fetch.js';
import type { WebhookSubscriptionStore } from '../store/webhook-subscription-store.js';
import { checkCallbackUrl, type CallbackPolicy } from './callback-url.js';
import { retryDelayMs, type DeliverySchedule } from './delivery-backoff.js';
import { categoryOf } from './delivery-errors.js';
import type { Deliverer, DeliveryOutcome, WebhookDelivery } from './delivery-queue.js';
import { verifyCallback } from './verification-handshake.js';
import { signedHeaders } from './webhook-signature.js';

export interface WebhookDelivererOptions {
  readonly subscriptions: WebhookSubscriptionStore;
  readonly policy: CallbackPolicy;
  readonly schedule: DeliverySchedule;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The jitter of the backoff: a value in [0, 1). @default Math.random */
  readonly random?: () => number;
}

/** Statuses after which trying again cannot help: the receiver is gone for good, or the body will never fit. */
const FINAL_STATUSES = new Set([410, 413]);

export class WebhookDeliverer implements Deliverer {
  private readonly options: WebhookDelivererOptions;

  constructor(options: WebhookDelivererOptions) {
    this.options = options;
  }

  async deliver(delivery: WebhookDelivery, receive: number): Promise<DeliveryOutcome> {
    const { subscriptions, clock, logger } = this.options;
    const subscription = await subscriptions.get(delivery.owner, delivery.subscriptionId);
    const fields = { subscriptionId: delivery.subscriptionId, webhookId: delivery.webhookId, receive };
    if (subscription === null) {
      logger.info('Webhook dropped: the subscription is gone', fields);
      return { kind: 'dropped', reason: 'subscription gone' };
    }
    if (!subscription.delivery.active) {
      logger.info('Webhook dropped: delivery to the subscription is suspended', fields);
      return { kind: 'dropped', reason: 'suspended' };
    }
    const checked = checkCallbackUrl(subscription.url, this.options.policy);
    if (!checked.ok) {
      // The URL passed when it was subscribed; the policy changed since (an origin no longer trusted, say). No attempt
      // could succeed, so it is given up on at once, and the subscription's status says so.
      logger.warn('Webhook callback URL no longer allowed', { ...fields, origin: originOf(subscription.url) });
      return this.giveUp(subscription, delivery, { receive }, DeliveryErrorCategory.ConnectionRefused);
    }
    if (!subscription.verified && !isVerificationEnvelope(delivery.body)) {
      const handshake = await verifyCallback({
        url: checked.url,
        subscriptionId: subscription.id,
        secret: subscription.secret,
        policy: this.options.policy,
        timeoutMs: this.options.schedule.timeoutMs,
        at: clock.now(),
      });
      if (!handshake.verified) return this.failed(subscription, delivery, receive, handshake.category);
      await subscriptions.markVerified(subscription.owner, subscription.id);
      logger.info('Webhook callback URL verified', { ...fields, origin: originOf(checked.url) });
    }
    return this.post(subscription, checked, delivery, receive);
  }

  private async post(
    subscription: WebhookSubscription,
    target: { readonly url: string; readonly trusted: boolean },
    delivery: WebhookDelivery,
    receive: number,
  ): Promise<DeliveryOutcome> {
    const { subscriptions, policy, schedule, clock, logger } = this.options;
    const fields = { subscriptionId: subscription.id, webhookId: delivery.webhookId, receive };
    const headers = signedHeaders({
      secrets: secretsOf(subscription, clock.now()),
      webhookId: delivery.webhookId,
      body: delivery.body,
      at: clock.now(),
      subscriptionId: subscription.id,
    });
    let status: number;
    try {
      ({ status } = await safeFetch(
        target.url,
        { method: 'POST', headers, body: delivery.body },
        {
          timeoutMs: schedule.timeoutMs,
          maxBytes: schedule.maxResponseBytes,
          trusted: target.trusted,
          ...(policy.lookup === undefined ? {} : { lookup: policy.lookup }),
          ...(policy.ca === undefined ? {} : { ca: policy.ca }),
        },
      ));
    } catch (error) {
      if (!(error instanceof OutboundFetchError)) throw error;
      return this.failed(subscription, delivery, receive, categoryOf(error), { reason: error.reason });
    }
    if (status >= 200 && status < 300) {
      await subscriptions.recordDelivered(subscription.owner, subscription.id, clock.now(), delivery.webhookId);
      logger.info('Webhook delivered', { ...fields, status });
      if (delivery.endsSubscription === true) {
        // Its task has ended and the receiver has the terminal event: the slot in the owner's limit is freed now,
        // not when the grant runs out.
        await subscriptions.delete(subscription.owner, subscription.id);
        logger.info('Webhook subscription ended: its task ended and its last event was delivered', fields);
      }
      return { kind: 'delivered' };
    }
    if (FINAL_STATUSES.has(status)) {
      logger.warn('Webhook dropped: the receiver refused it for good', {
        ...fields,
        status,
        category: categoryOf({ status }),
      });
      return { kind: 'dropped', reason: `receiver answered ${status}` };
    }
    return this.failed(subscription, delivery, receive, categoryOf({ status }), { status });
  }

  /** The receiver failed an attempt: counted, then tried again later, or given up on after the last one. */
  private async failed(
    subscription: WebhookSubscription,
    delivery: WebhookDelivery,
    receive: number,
    category: DeliveryErrorCategory,
    detail: Record<string, unknown> = {},
  ): Promise<DeliveryOutcome> {
    const { subscriptions, schedule, logger } = this.options;
    const attempt = await subscriptions.recordFailedAttempt(subscription.owner, subscription.id, delivery.webhookId);
    if (attempt === null) {
      logger.info('Webhook dropped: the subscription is gone', {
        subscriptionId: subscription.id,
        webhookId: delivery.webhookId,
        receive,
      });
      return { kind: 'dropped', reason: 'subscription gone' };
    }
    if (attempt < schedule.attempts) {
      const afterMs = retryDelayMs(schedule, attempt, this.options.random);
      logger.warn('Webhook attempt failed; will try again', {
        subscriptionId: subscription.id,
        webhookId: delivery.webhookId,
        attempt,
        receive,
        category,
        afterMs,
        ...detail,
      });
      return { kind: 'retry', afterMs, category };
    }
    return this.giveUp(subscription, delivery, { attempt, receive }, category, detail);
  }

  /** Gives the event up, after the receiver's last attempt or at once (`attempt` absent: no attempt could succeed). */
  private async giveUp(
    subscription: WebhookSubscription,
    delivery: WebhookDelivery,
    counts: { readonly attempt?: number; readonly receive: number },
    category: DeliveryErrorCategory,
    detail: Record<string, unknown> = {},
  ): Promise<DeliveryOutcome> {
    const { subscriptions, schedule, clock, logger } = this.options;
    const status = await subscriptions.recordAbandoned(subscription.owner, subscription.id, {
      category,
      at: clock.now(),
      suspendAfter: schedule.suspendAfter,
      webhookId: delivery.webhookId,
    });
    logger.warn('Webhook given up on', {
      subscriptionId: subscription.id,
      webhookId: delivery.webhookId,
      ...counts,
      category,
      failedEvents: status?.failedEvents,
      suspended: status !== null && !status.active,
      ...detail,
    });
    return { kind: 'dropped', reason: 'given up' };
  }
}

/** The secrets to sign with: the current one, then the previous one while its grace window lasts. */
function secretsOf(subscription: WebhookSubscription, now: number): string[] {
  const { secret, previousSecret, previousSecretUntil } = subscription;
  const inGrace = previousSecret !== undefined && previousSecretUntil !== undefined && now < previousSecretUntil;
  return inGrace ? [secret, previousSecret] : [secret];
}

/** Whether the body is itself the verification envelope (sent as it is, not preceded by another handshake). */
function isVerificationEnvelope(body: string): boolean {
  try {
    const parsed: unknown = JSON.parse(body);
    return parsed !== null && typeof parsed === 'object' && (parsed as { type?: unknown }).type === 'verification';
  } catch {
    return false;
  }
}

/** The scheme, host and port alone: a URL's path or query may hold a token of the receiver's. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'unparsable';
  }
}
