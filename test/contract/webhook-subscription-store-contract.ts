// The WebhookSubscriptionStore contract (lambda/store/webhook-subscription-store.ts) as one suite, run on every
// implementation: DynamoDB Local (test/integration/dynamodb-event-stores.test.ts) and in memory
// (test/unit/store/in-memory-event-stores.test.ts). What only DynamoDB has (secrets sealed at rest, the TTL attribute,
// the item layout) is tested beside it.
import { randomBytes, randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  DeliveryErrorCategory,
  HEALTHY_DELIVERY,
  subscriptionIdOf,
  type WebhookSubscription,
} from '../../lambda/core/webhook-subscription.js';
import type { WebhookSubscriptionStore } from '../../lambda/store/webhook-subscription-store.js';
import type { MakeFixture, ManualClock } from './task-fixtures.js';

export interface WebhookSubscriptionStoreFixture {
  readonly subscriptions: WebhookSubscriptionStore;
  readonly clock: ManualClock;
}

const HOUR_MS = 60 * 60 * 1000;

/** A Standard Webhooks secret, as a client chooses one. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** A live, verified subscription of a fresh owner (unless given) to one task's events, granted for an hour. */
export function newSubscription(
  clock: Pick<ManualClock, 'now'>,
  overrides: Partial<WebhookSubscription> = {},
): WebhookSubscription {
  const key = {
    owner: overrides.owner ?? `owner-${randomUUID()}`,
    url: overrides.url ?? `https://hooks.example.com/${randomUUID()}`,
    name: overrides.name ?? 'task.events',
    arguments: overrides.arguments ?? { taskId: randomUUID() },
  };
  return {
    ...key,
    id: subscriptionIdOf(key),
    secret: newWebhookSecret(),
    createdAt: clock.now(),
    refreshBefore: clock.now() + HOUR_MS,
    verified: true,
    delivery: HEALTHY_DELIVERY,
    ...overrides,
  };
}

export function webhookSubscriptionStoreContract(
  name: string,
  make: MakeFixture<WebhookSubscriptionStoreFixture>,
): void {
  describe(`${name} (WebhookSubscriptionStore contract)`, () => {
    let fixture: WebhookSubscriptionStoreFixture;
    beforeEach(async () => {
      fixture = await make();
    });
    const store = () => fixture.subscriptions;
    const now = () => fixture.clock.now();
    const stored = async (overrides: Partial<WebhookSubscription> = {}) => {
      const subscription = newSubscription(fixture.clock, overrides);
      await store().put(subscription);
      return subscription;
    };
    const reread = (subscription: WebhookSubscription) => store().get(subscription.owner, subscription.id);
    const abandon = (subscription: WebhookSubscription, category: DeliveryErrorCategory, at = now()) =>
      store().recordAbandoned(subscription.owner, subscription.id, { category, at, suspendAfter: 3 });

    it('keeps a subscription as put: every field, arguments at any depth, the secrets', async () => {
      const subscription = await stored({
        name: 'tasks.updated',
        arguments: { taskId: 'a', filter: { z: [1, { b: true, a: null }], a: 'x' } },
        previousSecret: newWebhookSecret(),
        previousSecretUntil: now() + 60_000,
        verified: false,
        delivery: {
          active: true,
          lastDeliveryAt: now() - 5,
          lastError: 'timeout',
          failedSince: now() - 9,
          failedEvents: 2,
        },
      });
      expect(await reread(subscription)).toEqual(subscription);
    });

    it('reads an unknown subscription as absent', async () => {
      expect(await store().get(`owner-${randomUUID()}`, 'sub_00000000000000000000000000000000')).toBeNull();
    });

    it('replaces a subscription put again with its ID (a refresh)', async () => {
      const subscription = await stored({ verified: false, delivery: { active: false, failedEvents: 3 } });
      fixture.clock.advance(1_000);
      const refreshed: WebhookSubscription = {
        ...subscription,
        secret: newWebhookSecret(),
        previousSecret: subscription.secret,
        previousSecretUntil: now() + 60_000,
        refreshBefore: now() + 2 * HOUR_MS,
        verified: true,
        delivery: HEALTHY_DELIVERY,
      };
      await store().put(refreshed);
      expect(await reread(subscription)).toEqual(refreshed);
      expect(await store().listForOwner(subscription.owner)).toEqual([refreshed]);
    });

    it("lists the owner's live subscriptions, none of another owner's", async () => {
      const first = await stored();
      const second = await stored({ owner: first.owner });
      await stored({ owner: first.owner, refreshBefore: now() + 1_000 });
      await stored();
      fixture.clock.advance(1_000);
      const listed = await store().listForOwner(first.owner);
      const byId = (a: WebhookSubscription, b: WebhookSubscription) => a.id.localeCompare(b.id);
      expect(listed.sort(byId)).toEqual([first, second].sort(byId));
      expect(await store().listForOwner(`owner-${randomUUID()}`)).toEqual([]);
    });

    it("summarises the owner's live subscriptions without their secrets, none of another owner's", async () => {
      const rotated = await stored({ previousSecret: newWebhookSecret(), previousSecretUntil: now() + 60_000 });
      const plain = await stored({ owner: rotated.owner });
      await stored({ owner: rotated.owner, refreshBefore: now() + 1_000 });
      await stored();
      fixture.clock.advance(1_000);
      const summaries = await store().summariesForOwner(rotated.owner);
      const withoutSecrets = ({
        secret: _secret,
        previousSecret: _previous,
        previousSecretUntil: _until,
        ...summary
      }: WebhookSubscription) => summary;
      const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
      expect(summaries.sort(byId)).toEqual([rotated, plain].map(withoutSecrets).sort(byId));
      for (const summary of summaries) expect(JSON.stringify(summary)).not.toContain('whsec_');
      expect(await store().summariesForOwner(`owner-${randomUUID()}`)).toEqual([]);
    });

    it('reads a subscription past its grant as gone: get, list and delete find none', async () => {
      const subscription = await stored({ refreshBefore: now() + 1_000 });
      fixture.clock.advance(999);
      expect(await reread(subscription)).toEqual(subscription);
      fixture.clock.advance(1);
      expect(await reread(subscription)).toBeNull();
      expect(await store().listForOwner(subscription.owner)).toEqual([]);
      expect(await store().delete(subscription.owner, subscription.id)).toBe(false);
    });

    it('keeps a subscription with no expiry for good', async () => {
      const subscription = await stored({ refreshBefore: null });
      fixture.clock.advance(10 * 366 * 24 * HOUR_MS);
      expect(await reread(subscription)).toEqual(subscription);
      expect(await store().listForOwner(subscription.owner)).toEqual([subscription]);
    });

    it('deletes a subscription once: then it reads as absent', async () => {
      const subscription = await stored();
      expect(await store().delete(subscription.owner, subscription.id)).toBe(true);
      expect(await reread(subscription)).toBeNull();
      expect(await store().listForOwner(subscription.owner)).toEqual([]);
      expect(await store().delete(subscription.owner, subscription.id)).toBe(false);
    });

    it("lets no owner read, change or delete another owner's subscription", async () => {
      const subscription = await stored({ verified: false });
      const stranger = `owner-${randomUUID()}`;
      expect(await store().get(stranger, subscription.id)).toBeNull();
      expect(await store().delete(stranger, subscription.id)).toBe(false);
      await store().markVerified(stranger, subscription.id);
      await store().recordDelivered(stranger, subscription.id, now());
      expect(
        await store().recordAbandoned(stranger, subscription.id, { category: 'timeout', at: now(), suspendAfter: 1 }),
      ).toBeNull();
      expect(await reread(subscription)).toEqual(subscription);
      expect(await store().get(stranger, subscription.id)).toBeNull();
    });

    it('keeps a replay mark, in the summary too, until the replay it names is ended', async () => {
      const subscription = await stored({ replayAfter: 0 });
      expect((await store().summariesForOwner(subscription.owner))[0]?.replayAfter).toBe(0);
      await store().endReplay(subscription.owner, subscription.id, 0);
      const { replayAfter: _mark, ...unmarked } = subscription;
      expect(await reread(subscription)).toEqual(unmarked);
    });

    it('leaves a replay mark that another replay set', async () => {
      const subscription = await stored({ replayAfter: 2 });
      await store().endReplay(subscription.owner, subscription.id, 0);
      await store().endReplay(`owner-${randomUUID()}`, subscription.id, 2);
      expect(await reread(subscription)).toEqual(subscription);
    });

    it('marks a subscription verified', async () => {
      const subscription = await stored({ verified: false });
      await store().markVerified(subscription.owner, subscription.id);
      expect(await reread(subscription)).toEqual({ ...subscription, verified: true });
    });

    it('counts events given up on, keeps when failing began, and suspends delivery at the limit', async () => {
      const subscription = await stored();
      const start = now();
      expect(await abandon(subscription, DeliveryErrorCategory.Timeout)).toEqual({
        active: true,
        lastError: 'timeout',
        failedSince: start,
        failedEvents: 1,
      });
      fixture.clock.advance(1_000);
      expect(await abandon(subscription, DeliveryErrorCategory.Http5xx)).toEqual({
        active: true,
        lastError: 'http_5xx',
        failedSince: start,
        failedEvents: 2,
      });
      fixture.clock.advance(1_000);
      const suspended = { active: false, lastError: 'connection_refused', failedSince: start, failedEvents: 3 };
      expect(await abandon(subscription, DeliveryErrorCategory.ConnectionRefused)).toEqual(suspended);
      expect((await reread(subscription))?.delivery).toEqual(suspended);
      // Suspended stays suspended, counting on, until a refresh.
      expect(await abandon(subscription, DeliveryErrorCategory.Timeout)).toMatchObject({
        active: false,
        failedEvents: 4,
      });
      await store().put({ ...subscription, delivery: HEALTHY_DELIVERY });
      expect((await reread(subscription))?.delivery).toEqual(HEALTHY_DELIVERY);
    });

    it('counts every event given up on at the same moment', async () => {
      const subscription = await stored();
      const failure = { category: DeliveryErrorCategory.Timeout, at: now(), suspendAfter: 100 };
      await Promise.all(
        Array.from({ length: 8 }, () => store().recordAbandoned(subscription.owner, subscription.id, failure)),
      );
      expect((await reread(subscription))?.delivery).toMatchObject({ active: true, failedEvents: 8 });
    });

    it('clears the failures at a delivery, and counts anew from the next', async () => {
      const subscription = await stored();
      await abandon(subscription, DeliveryErrorCategory.Timeout);
      await abandon(subscription, DeliveryErrorCategory.Timeout);
      fixture.clock.advance(1_000);
      const deliveredAt = now();
      await store().recordDelivered(subscription.owner, subscription.id, deliveredAt);
      expect((await reread(subscription))?.delivery).toEqual({
        active: true,
        lastDeliveryAt: deliveredAt,
        failedEvents: 0,
      });
      fixture.clock.advance(1_000);
      expect(await abandon(subscription, DeliveryErrorCategory.Http4xx)).toEqual({
        active: true,
        lastDeliveryAt: deliveredAt,
        lastError: 'http_4xx',
        failedSince: now(),
        failedEvents: 1,
      });
    });

    it('counts the failed attempts of each delivery apart, and forgets them at its delivery, its abandon or a refresh', async () => {
      const subscription = await stored();
      const fail = (webhookId: string) => store().recordFailedAttempt(subscription.owner, subscription.id, webhookId);
      expect([await fail('evt_1'), await fail('evt_1'), await fail('evt_2'), await fail('evt_1')]).toEqual([
        1, 2, 1, 3,
      ]);
      await store().recordDelivered(subscription.owner, subscription.id, now(), 'evt_1');
      expect(await fail('evt_1')).toBe(1);
      const failure = { category: DeliveryErrorCategory.Timeout, at: now(), suspendAfter: 100, webhookId: 'evt_2' };
      await store().recordAbandoned(subscription.owner, subscription.id, failure);
      expect(await fail('evt_2')).toBe(1);
      await store().put(subscription);
      expect(await fail('evt_1')).toBe(1);
      // Counting is no change a reader sees.
      expect(await reread(subscription)).toEqual(subscription);
    });

    it('counts every failed attempt made at the same moment', async () => {
      const subscription = await stored();
      await Promise.all(
        Array.from({ length: 5 }, () => store().recordFailedAttempt(subscription.owner, subscription.id, 'evt_1')),
      );
      expect(await store().recordFailedAttempt(subscription.owner, subscription.id, 'evt_1')).toBe(6);
    });

    it('changes nothing of a subscription that is gone, and brings none back', async () => {
      const lapsed = await stored({ refreshBefore: now() + 1_000, verified: false });
      const unknown = newSubscription(fixture.clock);
      fixture.clock.advance(1_000);
      for (const subscription of [lapsed, unknown]) {
        await expect(store().markVerified(subscription.owner, subscription.id)).resolves.toBeUndefined();
        await expect(store().recordDelivered(subscription.owner, subscription.id, now())).resolves.toBeUndefined();
        expect(await store().recordFailedAttempt(subscription.owner, subscription.id, 'evt_1')).toBeNull();
        expect(await abandon(subscription, DeliveryErrorCategory.Timeout)).toBeNull();
        expect(await store().delete(subscription.owner, subscription.id)).toBe(false);
        expect(await reread(subscription)).toBeNull();
      }
      // A refresh after the grant lapsed puts it back as given, untouched by the writes above.
      await store().put({ ...lapsed, refreshBefore: now() + HOUR_MS });
      expect(await reread(lapsed)).toEqual({ ...lapsed, refreshBefore: now() + HOUR_MS });
    });
  });
}
