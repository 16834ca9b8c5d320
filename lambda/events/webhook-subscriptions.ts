// Webhook subscriptions' use cases: events/subscribe (create or refresh), events/unsubscribe, and the delivery status
// a task shows its owner. The checks run in the order the refusals should come: the event type, its delivery mode,
// the secret, the URL, the arguments, the task, the limit, the URL's addresses, then the endpoint's consent.
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import {
  HEALTHY_DELIVERY,
  isLive,
  subscriptionIdOf,
  type DeliveryStatus,
  type WebhookSubscription,
} from '../core/webhook-subscription.js';
import type { TaskEventStore } from '../store/task-event-store.js';
import type { WebhookSubscriptionStore } from '../store/webhook-subscription-store.js';
import { checkCallbackUrl, resolveCallbackHost, type CallbackPolicy } from './callback-url.js';
import type { DeliveryQueue } from './delivery-queue.js';
import {
  CallbackEndpointError,
  EventTaskNotFoundError,
  InvalidEventParamsError,
  SubscriptionLimitError,
  SubscriptionNotFoundError,
} from './event-errors.js';
import {
  cursorOf,
  eventTypeNamed,
  filterOf,
  requireMode,
  seqOfCursor,
  TASK_EVENTS,
  type EventFilter,
} from './event-catalog.js';
import { DEFAULT_OWNER_SUMMARY_CACHE, OwnerSummaryCache } from './owner-summary-cache.js';
import { deliveryFor } from './task-event-projector.js';
import { verifyCallback } from './verification-handshake.js';
import { isStandardWebhooksSecret } from './webhook-signature.js';

export interface WebhookSubscriptionSettings {
  /** Live subscriptions one principal may hold. */
  readonly maxPerOwner: number;
  /** The grant when the client suggests none. */
  readonly defaultTtlMs: number;
  /** Suggestions under this are raised to it (a refresh storm protects nobody). */
  readonly minTtlMs: number;
  /** Suggestions over this, and a request for no expiry, get this. */
  readonly maxTtlMs: number;
  /** How long a replaced secret still signs beside the new one, so deliveries in flight verify under either. */
  readonly secretGraceMs: number;
}

export const DEFAULT_SUBSCRIPTION_SETTINGS: WebhookSubscriptionSettings = {
  maxPerOwner: 20,
  defaultTtlMs: 24 * 60 * 60 * 1000,
  minTtlMs: 60 * 1000,
  maxTtlMs: 30 * 24 * 60 * 60 * 1000,
  secretGraceMs: 10 * 60 * 1000,
};

/** The params of events/subscribe and events/unsubscribe, as they came. */
export interface SubscriptionParams {
  readonly name?: unknown;
  readonly arguments?: unknown;
  readonly delivery?: unknown;
  readonly cursor?: unknown;
  readonly ttlMs?: unknown;
}

export interface SubscribeResult {
  readonly id: string;
  /** Epoch ms the grant ends. */
  readonly refreshBefore: number;
  readonly cursor: string | null;
  readonly truncated: boolean;
  /** On a refresh: how delivery had been going. */
  readonly deliveryStatus?: DeliveryStatus;
}

export interface WebhookSubscriptionsOptions {
  readonly store: WebhookSubscriptionStore;
  readonly events: TaskEventStore;
  readonly queue: DeliveryQueue;
  readonly policy: CallbackPolicy;
  /** Whether the principal has a live task with this ID (tasks of others, expired and unknown ones alike: false). */
  readonly taskExists: (owner: string, taskId: string) => Promise<boolean>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly settings?: WebhookSubscriptionSettings;
}

interface Delivery {
  readonly url: string;
  readonly secret?: string;
}

function deliveryOf(value: unknown, needsSecret: boolean): { url: unknown; secret: unknown } {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new InvalidEventParamsError('params.delivery must be an object: {"mode": "webhook", "url", "secret"}');
  const { mode, url, secret } = value as Record<string, unknown>;
  if (mode !== undefined && mode !== 'webhook')
    throw new InvalidEventParamsError('params.delivery.mode must be "webhook": events/subscribe is for webhooks only');
  if (needsSecret && secret === undefined)
    throw new InvalidEventParamsError(
      'params.delivery.secret is required: a Standard Webhooks secret, "whsec_" and the base64 of 24 to 64 bytes',
    );
  return { url, secret };
}

/** Whether a subscription has a log to replay and a cursor to give: task.events about one task. */
function followsOneLog(name: string, filter: EventFilter): filter is EventFilter & { readonly taskId: string } {
  return name === TASK_EVENTS && filter.taskId !== undefined;
}

/**
 * The replay mark a subscription is saved with: a new subscription to one task's log with a cursor replays after it;
 * a refresh replays nothing of its own, but finishes a replay an earlier subscribe left unfinished.
 */
function replayMark(
  existing: WebhookSubscription | undefined,
  cursorSeq: number | null,
  replays: boolean,
): { replayAfter?: number } {
  if (existing !== undefined) return existing.replayAfter === undefined ? {} : { replayAfter: existing.replayAfter };
  return cursorSeq === null || !replays ? {} : { replayAfter: cursorSeq };
}

export class WebhookSubscriptions {
  private readonly settings: WebhookSubscriptionSettings;
  private readonly statusCache: OwnerSummaryCache;

  constructor(private readonly options: WebhookSubscriptionsOptions) {
    this.settings = options.settings ?? DEFAULT_SUBSCRIPTION_SETTINGS;
    this.statusCache = new OwnerSummaryCache({ clock: options.clock, ...DEFAULT_OWNER_SUMMARY_CACHE });
  }

  /**
   * The checks of {@link subscribe} that need no task and no network: the event type, its mode, the secret and the
   * URL's text. A tools/call that attaches a webhook to the task it creates runs them first, so a refused webhook
   * starts nothing.
   */
  async check(params: Pick<SubscriptionParams, 'name' | 'delivery'>): Promise<void> {
    requireMode(eventTypeNamed(params.name), 'webhook');
    this.checkedDelivery(params.delivery, true);
  }

  async subscribe(owner: string, params: SubscriptionParams): Promise<SubscribeResult> {
    const type = eventTypeNamed(params.name);
    requireMode(type, 'webhook');
    const delivery = this.checkedDelivery(params.delivery, true);
    const filter = filterOf(type, params.arguments);
    const cursorSeq = seqOfCursor(params.cursor);
    if (filter.taskId !== undefined && !(await this.options.taskExists(owner, filter.taskId)))
      throw new EventTaskNotFoundError(filter.taskId);
    const args = { ...filter };
    const id = subscriptionIdOf({ owner, url: delivery.url, name: type.name, arguments: args });
    const { store, clock } = this.options;
    const live = await store.listForOwner(owner);
    const existing = live.find((each) => each.id === id);
    if (existing === undefined && live.length >= this.settings.maxPerOwner)
      throw new SubscriptionLimitError(this.settings.maxPerOwner);

    const grantMs = this.grantMs(params.ttlMs);
    const verified =
      existing?.verified === true ||
      live.some((each) => each.url === delivery.url && each.verified) ||
      (await this.confirmEndpoint(delivery, id));
    const now = clock.now();
    const secret = delivery.secret!;
    const rotated = existing !== undefined && existing.secret !== secret;
    const subscription: WebhookSubscription = {
      id,
      owner,
      name: type.name,
      arguments: args,
      url: delivery.url,
      secret,
      ...(rotated
        ? { previousSecret: existing.secret, previousSecretUntil: now + this.settings.secretGraceMs }
        : existing?.previousSecret !== undefined && (existing.previousSecretUntil ?? 0) > now
          ? { previousSecret: existing.previousSecret, previousSecretUntil: existing.previousSecretUntil! }
          : {}),
      createdAt: existing?.createdAt ?? now,
      refreshBefore: now + grantMs,
      verified,
      // A refresh is the client's sign of life: suspended delivery resumes.
      delivery: existing === undefined ? HEALTHY_DELIVERY : { ...existing.delivery, active: true },
      ...replayMark(existing, cursorSeq, followsOneLog(type.name, filter)),
    };
    await store.put(subscription);
    this.statusCache.forget(owner);
    this.options.logger.info(
      existing === undefined ? 'Webhook subscription created' : 'Webhook subscription refreshed',
      {
        subscriptionId: id,
        eventType: type.name,
        verified,
      },
    );
    const cursor = await this.startDelivery(subscription, filter);
    return {
      id,
      refreshBefore: subscription.refreshBefore!,
      cursor,
      truncated: false,
      ...(existing !== undefined ? { deliveryStatus: existing.delivery } : {}),
    };
  }

  async unsubscribe(owner: string, params: SubscriptionParams): Promise<void> {
    const type = eventTypeNamed(params.name);
    requireMode(type, 'webhook');
    const { url } = this.checkedDelivery(params.delivery, false);
    const args = { ...filterOf(type, params.arguments) };
    const id = subscriptionIdOf({ owner, url, name: type.name, arguments: args });
    this.statusCache.forget(owner);
    if (!(await this.options.store.delete(owner, id))) throw new SubscriptionNotFoundError();
    this.options.logger.info('Webhook subscription removed', { subscriptionId: id });
  }

  /**
   * How delivery goes for each of the owner's live subscriptions that follow this task, as read within the last few
   * seconds (see owner-summary-cache.ts): a poll of a task costs its one read, not a second one for its webhooks.
   */
  async forTask(owner: string, taskId: string): Promise<Array<Pick<WebhookSubscription, 'id' | 'name' | 'delivery'>>> {
    const now = this.options.clock.now();
    const live = await this.statusCache.get(owner, () => this.options.store.summariesForOwner(owner));
    return live
      .filter(
        (each) => isLive(each, now) && (each.arguments['taskId'] === undefined || each.arguments['taskId'] === taskId),
      )
      .map(({ id, name, delivery }) => ({ id, name, delivery }));
  }

  private checkedDelivery(value: unknown, needsSecret: boolean): Delivery {
    const { url, secret } = deliveryOf(value, needsSecret);
    if (needsSecret && !isStandardWebhooksSecret(secret))
      throw new InvalidEventParamsError(
        'params.delivery.secret must be a Standard Webhooks secret: "whsec_" and the base64 of 24 to 64 random bytes',
      );
    const checked = checkCallbackUrl(url, this.options.policy);
    if (!checked.ok) throw new InvalidEventParamsError(checked.message);
    return needsSecret ? { url: checked.url, secret: secret as string } : { url: checked.url };
  }

  /**
   * Whether the endpoint agreed to receive, asked now: a listed origin has; an address that is not public is refused;
   * an endpoint that answers must echo the challenge; one that cannot be reached yet is accepted unverified (delivery
   * asks again before anything else is sent).
   */
  private async confirmEndpoint(delivery: Delivery, id: string): Promise<boolean> {
    const { policy } = this.options;
    const checked = checkCallbackUrl(delivery.url, policy);
    if (checked.ok && checked.listed) return true;
    const host = await resolveCallbackHost(delivery.url, policy);
    if (!host.ok) throw new InvalidEventParamsError(host.message);
    const reachable = host.resolved || (checked.ok && checked.trusted);
    if (!reachable) return false;
    const outcome = await verifyCallback({
      url: delivery.url,
      subscriptionId: id,
      secret: delivery.secret!,
      policy,
      at: this.options.clock.now(),
    });
    if (outcome.verified) return true;
    if (outcome.reachable) throw new CallbackEndpointError(outcome.category);
    return false;
  }

  private grantMs(ttlMs: unknown): number {
    const { defaultTtlMs, minTtlMs, maxTtlMs } = this.settings;
    if (ttlMs === undefined) return defaultTtlMs;
    // No expiry is not granted: a subscription nobody refreshes should not outlive its client forever.
    if (ttlMs === null) return maxTtlMs;
    if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0)
      throw new InvalidEventParamsError('params.ttlMs must be a positive number of milliseconds, or null');
    return Math.min(maxTtlMs, Math.max(minTtlMs, Math.floor(ttlMs)));
  }

  /**
   * The watermark the client may persist, and for a subscription to one task's log marked for a replay, the events
   * after the mark queued for delivery (the replay the cursor asked for), then the mark cleared. The subscription was
   * saved, marked, before the log is read: an event appended meanwhile is queued by the projector with the whole run
   * before it, so replay and live events reach the queue as one sequence in seq order.
   */
  private async startDelivery(subscription: WebhookSubscription, filter: EventFilter): Promise<string | null> {
    if (!followsOneLog(subscription.name, filter)) return null;
    const { events, queue, store } = this.options;
    const last = await events.lastSeq(subscription.owner, filter.taskId);
    const replayAfter = subscription.replayAfter;
    if (replayAfter === undefined) return cursorOf(last);
    if (replayAfter < last) {
      const missed = await events.readAfter(subscription.owner, filter.taskId, replayAfter, last - replayAfter);
      await queue.send(missed.map((event) => deliveryFor(subscription, event)));
    }
    await store.endReplay(subscription.owner, subscription.id, replayAfter);
    return cursorOf(Math.min(replayAfter, last));
  }
}
