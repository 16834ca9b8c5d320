// WebhookSubscriptionStore over the events table: one item per subscription, in its owner's partition
// (store/event-table-keys.ts), sorted by ID. The signing secrets are sealed before they are stored (secret-sealer.ts),
// so the table never holds one in clear. A subscription lapses at `refreshBefore`: reads and conditional writes judge
// by it, and DynamoDB's TTL removes the item a day later, so a read in between still finds it gone rather than absent
// for another reason. Delivery bookkeeping is conditional UpdateItem on the live item: a write to a subscription that
// is gone does nothing, and never brings it back.
import { fieldsOf, type Item } from './item-fields.js';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { EVENT_PARTITION_KEY, EVENT_SORT_KEY, EVENT_TTL_ATTRIBUTE } from '../contract/event-table-schema.js';
import { SYSTEM_CLOCK, type Clock } from '../core/clock.js';
import { onceLoaded } from '../core/once-loaded.js';
import {
  canonicalJson,
  isLive,
  type DeliveryErrorCategory,
  type DeliveryStatus,
  type WebhookSubscription,
  type WebhookSubscriptionSummary,
} from '../core/webhook-subscription.js';
import { updateIfAllowed } from './dynamodb-conditions.js';
import { subscriptionSortKey, subscriptionsKey } from './event-table-keys.js';
import type { SecretSealer } from './secret-sealer.js';
import type { WebhookSubscriptionStore } from './webhook-subscription-store.js';

/** The attributes of a subscription item besides its keys and TTL. */
export const SUBSCRIPTION_ATTRIBUTE = {
  id: 'id',
  owner: 'owner',
  name: 'name',
  /** Canonical JSON text (core canonicalJson). */
  arguments: 'arguments',
  url: 'url',
  /** Sealed (SecretSealer), never in clear. */
  secret: 'secret',
  /** Sealed, like `secret`. */
  previousSecret: 'previousSecret',
  previousSecretUntil: 'previousSecretUntil',
  createdAt: 'createdAt',
  /** Epoch ms; absent for a subscription with no expiry. */
  refreshBefore: 'refreshBefore',
  verified: 'verified',
  active: 'active',
  lastDeliveryAt: 'lastDeliveryAt',
  lastError: 'lastError',
  failedSince: 'failedSince',
  failedEvents: 'failedEvents',
  /** The seq a replay not yet all queued starts after; absent once it is. */
  replayAfter: 'replayAfter',
} as const;
const A = SUBSCRIPTION_ATTRIBUTE;

/**
 * The attribute counting the receiver's failed attempts at one delivery, on its subscription's item: read with nothing
 * else, so no attempt that succeeds pays a read for it, and gone with the item (a refresh puts a new one).
 */
export function failedAttemptsAttribute(webhookId: string): string {
  return `failedAttempts#${webhookId}`;
}

/** How long past `refreshBefore` DynamoDB's TTL keeps the item; reads judge by `refreshBefore` all the same. */
export const SUBSCRIPTION_TTL_GRACE_MS = 24 * 60 * 60 * 1000;

/** The subscription is there, is the owner's, and has not lapsed. */
const LIVE_CONDITION =
  'attribute_exists(#pk) AND #owner = :owner AND (attribute_not_exists(#refreshBefore) OR #refreshBefore > :nowMs)';

/** The attribute names the updates use. */
const UPDATE_NAMES: Record<string, string> = {
  '#pk': EVENT_PARTITION_KEY,
  '#owner': A.owner,
  '#refreshBefore': A.refreshBefore,
  '#verified': A.verified,
  '#active': A.active,
  '#lastDeliveryAt': A.lastDeliveryAt,
  '#lastError': A.lastError,
  '#failedSince': A.failedSince,
  '#failedEvents': A.failedEvents,
  '#replayAfter': A.replayAfter,
};

export interface DynamoDbWebhookSubscriptionsOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  /**
   * Seals the secrets at rest; a function is called on the first read or write that needs a secret (its key may have
   * to be fetched), so listing summaries never waits for it.
   */
  readonly sealer: SecretSealer | (() => Promise<SecretSealer>);
  /** @default SYSTEM_CLOCK */
  readonly clock?: Pick<Clock, 'now'>;
}

export class DynamoDbWebhookSubscriptions implements WebhookSubscriptionStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly sealer: () => Promise<SecretSealer>;
  private readonly clock: Pick<Clock, 'now'>;

  constructor(options: DynamoDbWebhookSubscriptionsOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
    const { sealer } = options;
    this.sealer = typeof sealer === 'function' ? onceLoaded(sealer) : async () => sealer;
    this.clock = options.clock ?? SYSTEM_CLOCK;
  }

  async put(subscription: WebhookSubscription): Promise<void> {
    const item = this.toItem(subscription, await this.sealer());
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: item }));
  }

  async get(owner: string, id: string): Promise<WebhookSubscription | null> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: keyOf(owner, id), ConsistentRead: true }),
    );
    return Item !== undefined && this.isLiveFor(Item, owner) ? this.fromItem(Item, await this.sealer()) : null;
  }

  async delete(owner: string, id: string): Promise<boolean> {
    try {
      // A lapsed one goes too (TTL would take it later): only a live one counts as found.
      const { Attributes } = await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: keyOf(owner, id),
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': A.owner },
          ExpressionAttributeValues: { ':owner': owner },
          ReturnValues: 'ALL_OLD',
        }),
      );
      return Attributes !== undefined && this.isLiveFor(Attributes, owner);
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async listForOwner(owner: string): Promise<WebhookSubscription[]> {
    const items = await this.liveItems(owner);
    if (items.length === 0) return [];
    const sealer = await this.sealer();
    return items.map((item) => this.fromItem(item, sealer));
  }

  async summariesForOwner(owner: string): Promise<WebhookSubscriptionSummary[]> {
    return (await this.liveItems(owner)).map(summaryFromItem);
  }

  /** The owner's live subscription items, in ID order. */
  private async liveItems(owner: string): Promise<Item[]> {
    const found: Item[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: '#pk = :pk',
          FilterExpression: 'attribute_not_exists(#refreshBefore) OR #refreshBefore > :nowMs',
          ExpressionAttributeNames: { '#pk': EVENT_PARTITION_KEY, '#refreshBefore': A.refreshBefore },
          ExpressionAttributeValues: { ':pk': subscriptionsKey(owner), ':nowMs': this.clock.now() },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) if (this.isLiveFor(item, owner)) found.push(item);
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    return found;
  }

  async endReplay(owner: string, id: string, replayAfter: number): Promise<void> {
    await updateIfAllowed(
      this.client,
      this.liveUpdate(owner, id, 'REMOVE #replayAfter', { ':replayAfter': replayAfter }, [
        '#replayAfter = :replayAfter',
      ]),
    );
  }

  async markVerified(owner: string, id: string): Promise<void> {
    await updateIfAllowed(this.client, this.liveUpdate(owner, id, 'SET #verified = :true', { ':true': true }));
  }

  async recordDelivered(owner: string, id: string, at: number, webhookId?: string): Promise<void> {
    const attempts = webhookId === undefined ? '' : ', #attempts';
    await updateIfAllowed(
      this.client,
      this.liveUpdate(
        owner,
        id,
        `SET #lastDeliveryAt = :at, #failedEvents = :zero REMOVE #lastError, #failedSince${attempts}`,
        { ':at': at, ':zero': 0 },
        [],
        webhookId,
      ),
    );
  }

  async recordFailedAttempt(owner: string, id: string, webhookId: string): Promise<number | null> {
    try {
      // ADD counts atomically: attempts at one delivery never overlap, but a retried write must not lose one.
      const { Attributes } = await this.client.send(
        this.liveUpdate(owner, id, 'ADD #attempts :one', { ':one': 1 }, [], webhookId),
      );
      const failed = Attributes?.[failedAttemptsAttribute(webhookId)];
      return typeof failed === 'number' ? failed : null;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return null;
      throw error;
    }
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
    const attempts = failure.webhookId === undefined ? '' : ' REMOVE #attempts';
    // The count goes up atomically, whatever else gives up on an event of the subscription at the same moment.
    const counted = await this.updateReturning(
      this.liveUpdate(
        owner,
        id,
        `SET #lastError = :category, #failedSince = if_not_exists(#failedSince, :at) ADD #failedEvents :one${attempts}`,
        { ':category': failure.category, ':at': failure.at, ':one': 1 },
        [],
        failure.webhookId,
      ),
    );
    if (counted === null || counted.failedEvents < failure.suspendAfter || !counted.active) return counted;
    // At the limit: suspend, unless a delivery got through meanwhile (it reset the count).
    const suspended = await this.updateReturning(
      this.liveUpdate(owner, id, 'SET #active = :false', { ':false': false, ':limit': failure.suspendAfter }, [
        '#failedEvents >= :limit',
      ]),
    );
    return suspended ?? (await this.get(owner, id))?.delivery ?? null;
  }

  /**
   * A conditional UpdateItem, returning the item after, on the owner's live subscription `id`; `#attempts` in `update`
   * names the failed attempts counted for `webhookId`.
   */
  private liveUpdate(
    owner: string,
    id: string,
    update: string,
    values: Record<string, unknown>,
    conditions: readonly string[] = [],
    webhookId?: string,
  ): UpdateCommand {
    const expressions = [update, LIVE_CONDITION, ...conditions].join(' ');
    const known =
      webhookId === undefined ? UPDATE_NAMES : { ...UPDATE_NAMES, '#attempts': failedAttemptsAttribute(webhookId) };
    // DynamoDB refuses attribute names that the expressions do not use.
    const names = Object.fromEntries(Object.entries(known).filter(([name]) => expressions.includes(name)));
    return new UpdateCommand({
      TableName: this.tableName,
      Key: keyOf(owner, id),
      UpdateExpression: update,
      ConditionExpression: [LIVE_CONDITION, ...conditions].join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: { ...values, ':owner': owner, ':nowMs': this.clock.now() },
      ReturnValues: 'ALL_NEW',
    });
  }

  /** Sends a conditional update: the delivery status after it, or `null` when its condition refused it. */
  private async updateReturning(update: UpdateCommand): Promise<DeliveryStatus | null> {
    try {
      const { Attributes } = await this.client.send(update);
      return Attributes === undefined ? null : deliveryFromItem(Attributes);
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return null;
      throw error;
    }
  }

  private isLiveFor(item: Item, owner: string): boolean {
    // Another owner's item is never decoded, even one planted in the reader's partition.
    if (item[A.owner] !== owner) return false;
    const refreshBefore = item[A.refreshBefore];
    return isLive({ refreshBefore: typeof refreshBefore === 'number' ? refreshBefore : null }, this.clock.now());
  }

  private toItem(subscription: WebhookSubscription, sealer: SecretSealer): Item {
    const { delivery } = subscription;
    const item: Item = {
      ...keyOf(subscription.owner, subscription.id),
      [A.id]: subscription.id,
      [A.owner]: subscription.owner,
      [A.name]: subscription.name,
      [A.arguments]: canonicalJson(subscription.arguments),
      [A.url]: subscription.url,
      [A.secret]: sealer.seal(subscription.secret, sealedFor(subscription)),
      [A.createdAt]: subscription.createdAt,
      [A.verified]: subscription.verified,
      [A.active]: delivery.active,
      [A.failedEvents]: delivery.failedEvents,
    };
    if (subscription.previousSecret !== undefined)
      item[A.previousSecret] = sealer.seal(subscription.previousSecret, sealedFor(subscription));
    if (subscription.previousSecretUntil !== undefined) item[A.previousSecretUntil] = subscription.previousSecretUntil;
    if (subscription.refreshBefore !== null) {
      item[A.refreshBefore] = subscription.refreshBefore;
      item[EVENT_TTL_ATTRIBUTE] = Math.ceil((subscription.refreshBefore + SUBSCRIPTION_TTL_GRACE_MS) / 1000);
    }
    if (delivery.lastDeliveryAt !== undefined) item[A.lastDeliveryAt] = delivery.lastDeliveryAt;
    if (delivery.lastError !== undefined) item[A.lastError] = delivery.lastError;
    if (delivery.failedSince !== undefined) item[A.failedSince] = delivery.failedSince;
    if (subscription.replayAfter !== undefined) item[A.replayAfter] = subscription.replayAfter;
    return item;
  }

  private fromItem(item: Item, sealer: SecretSealer): WebhookSubscription {
    const field = fieldsOf(item, SUBSCRIPTION_ITEM);
    const previousSecret = field.optionalString(A.previousSecret);
    const previousSecretUntil = field.optionalNumber(A.previousSecretUntil);
    const summary = summaryFromItem(item);
    // The ID the item is stored under, not the one it says it has: the key is what a copy cannot keep.
    const boundTo = sealedFor({ owner: summary.owner, id: String(item[EVENT_SORT_KEY]) });
    return {
      ...summary,
      secret: sealer.unseal(field.string(A.secret), boundTo),
      ...(previousSecret !== undefined ? { previousSecret: sealer.unseal(previousSecret, boundTo) } : {}),
      ...(previousSecretUntil !== undefined ? { previousSecretUntil } : {}),
    };
  }
}

const SUBSCRIPTION_ITEM = 'Webhook subscription item';

/** What an item says of its subscription but the secrets, which stay sealed. */
function summaryFromItem(item: Item): WebhookSubscriptionSummary {
  const field = fieldsOf(item, SUBSCRIPTION_ITEM);
  const replayAfter = field.optionalNumber(A.replayAfter);
  return {
    id: field.string(A.id),
    owner: field.string(A.owner),
    name: field.string(A.name),
    arguments: JSON.parse(field.string(A.arguments)) as Record<string, unknown>,
    url: field.string(A.url),
    createdAt: field.number(A.createdAt),
    refreshBefore: field.optionalNumber(A.refreshBefore) ?? null,
    verified: item[A.verified] === true,
    delivery: deliveryFromItem(item),
    ...(replayAfter !== undefined ? { replayAfter } : {}),
  };
}

/**
 * What a subscription's secrets are sealed for: its owner and ID, so a sealed secret copied to another subscription's
 * item, in the same partition or another owner's, does not open.
 */
function sealedFor(subscription: Pick<WebhookSubscriptionSummary, 'owner' | 'id'>): string {
  return `${subscription.owner}\n${subscription.id}`;
}

function keyOf(owner: string, id: string): Item {
  return { [EVENT_PARTITION_KEY]: subscriptionsKey(owner), [EVENT_SORT_KEY]: subscriptionSortKey(id) };
}

function deliveryFromItem(item: Item): DeliveryStatus {
  const field = fieldsOf(item, SUBSCRIPTION_ITEM);
  const lastDeliveryAt = field.optionalNumber(A.lastDeliveryAt);
  const lastError = field.optionalString(A.lastError) as DeliveryErrorCategory | undefined;
  const failedSince = field.optionalNumber(A.failedSince);
  return {
    active: item[A.active] !== false,
    ...(lastDeliveryAt !== undefined ? { lastDeliveryAt } : {}),
    ...(lastError !== undefined ? { lastError } : {}),
    ...(failedSince !== undefined ? { failedSince } : {}),
    failedEvents: field.optionalNumber(A.failedEvents) ?? 0,
  };
}
