// The DynamoDB task event store and webhook subscriptions on DynamoDB Local through the real AWS SDK: their contract
// suites (test/contract), and what only DynamoDB has: the items' layout, their TTL attribute, secrets sealed at rest,
// appends racing for a task's numbers, items planted under a reader's key; and the tables' streams.
import { createHash, randomUUID } from 'node:crypto';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { EVENT_PARTITION_KEY, EVENT_SORT_KEY, EVENT_TABLE } from '../../lambda/contract/event-table-schema.js';
import { TASK_TABLE } from '../../lambda/contract/task-table-schema.js';
import { TaskEventChange, type NewTaskEvent } from '../../lambda/core/task-event.js';
import { taskKey } from '../../lambda/core/task-key.js';
import { TaskStatus } from '../../lambda/core/task-status.js';
import { canonicalJson, type WebhookSubscription } from '../../lambda/core/webhook-subscription.js';
import { DynamoDbTaskEventStore } from '../../lambda/store/dynamodb-task-event-store.js';
import {
  DynamoDbWebhookSubscriptions,
  SUBSCRIPTION_TTL_GRACE_MS,
} from '../../lambda/store/dynamodb-webhook-subscriptions.js';
import { AesGcmSecretSealer, randomSealingKey } from '../../lambda/store/secret-sealer.js';
import { ManualClock } from '../contract/task-fixtures.js';
import { taskEventStoreContract } from '../contract/task-event-store-contract.js';
import {
  newSubscription,
  newWebhookSecret,
  webhookSubscriptionStoreContract,
} from '../contract/webhook-subscription-store-contract.js';
import { createTable } from '../../local/dynamodb-local-tables.js';
import { createTestEventTable, localAwsClients } from '../support/local-backend.js';
import { sealedUnbound } from '../support/unbound-sealed-secret.js';

let tableName: string;
const documentClient = () => DynamoDBDocumentClient.from(localAwsClients().dynamoDb);
const sealingKey = randomSealingKey();
const sealer = new AesGcmSecretSealer(sealingKey);

/** Both stores on the test table, reading a clock of their own started at the real time. */
function stores() {
  const clock = new ManualClock(Date.now());
  const client = documentClient();
  return {
    clock,
    client,
    events: new DynamoDbTaskEventStore({ client, tableName, clock }),
    subscriptions: new DynamoDbWebhookSubscriptions({ client, tableName, sealer, clock }),
  };
}

beforeAll(async () => {
  tableName = await createTestEventTable();
});

taskEventStoreContract('DynamoDbTaskEventStore', () => {
  const { clock, events } = stores();
  return { events, clock };
});

webhookSubscriptionStoreContract('DynamoDbWebhookSubscriptions', () => {
  const { clock, subscriptions } = stores();
  return { subscriptions, clock };
});

async function itemAt(pk: string, sk: string): Promise<Record<string, unknown> | undefined> {
  const read = new GetCommand({
    TableName: tableName,
    Key: { [EVENT_PARTITION_KEY]: pk, [EVENT_SORT_KEY]: sk },
    ConsistentRead: true,
  });
  return (await documentClient().send(read)).Item;
}

function eventOf(owner: string, taskId: string, overrides: Partial<NewTaskEvent> = {}): NewTaskEvent {
  return {
    owner,
    taskId,
    at: 1_700_000_000_000,
    changes: [TaskEventChange.Status],
    task: { taskId, toolName: 'text_stats', status: TaskStatus.Working },
    ...overrides,
  };
}

describe('DynamoDbTaskEventStore items', () => {
  it('sit under the task key, sorted by the zero-padded number, with the source and the TTL in seconds', async () => {
    const { events } = stores();
    const owner = `owner-${randomUUID()}`;
    const taskId = randomUUID();
    await events.append(eventOf(owner, taskId), '100000000000000000000001');
    await events.append(eventOf(owner, taskId, { expiresAt: 1_700_000_060_123 }), '100000000000000000000002');
    const pk = `task#${taskKey(owner, taskId)}`;
    expect(await itemAt(pk, '000000000001')).toEqual({
      [EVENT_PARTITION_KEY]: pk,
      [EVENT_SORT_KEY]: '000000000001',
      owner,
      taskId,
      seq: 1,
      at: 1_700_000_000_000,
      changes: ['status'],
      task: { taskId, toolName: 'text_stats', status: 'working' },
      source: '100000000000000000000001',
    });
    expect(await itemAt(pk, '000000000002')).toMatchObject({
      seq: 2,
      source: '100000000000000000000002',
      expiresAt: Math.ceil(1_700_000_060_123 / 1000),
      expiresAtMs: 1_700_000_060_123,
    });
  });

  it('give racing appends of different changes each its own number, none lost, none twice', async () => {
    const { events } = stores();
    const owner = `owner-${randomUUID()}`;
    const taskId = randomUUID();
    const appended = await Promise.all(
      Array.from({ length: 6 }, (_, n) => events.append(eventOf(owner, taskId), String(1_000 + n))),
    );
    const stored = await events.readAfter(owner, taskId, 0, 100);
    // A change that lost a race to a newer one is not appended after it: every append returns a stored event.
    expect(stored.map((event) => event.seq)).toEqual(stored.map((_, index) => index + 1));
    for (const event of appended) expect(stored).toContainEqual(event);
  });

  it("never show a reader an item of another owner's, even one planted under the reader's own key", async () => {
    const { events, client } = stores();
    const owner = `owner-${randomUUID()}`;
    const reader = `reader-${randomUUID()}`;
    const taskId = randomUUID();
    await events.append(eventOf(owner, taskId), '1');
    const planted = await itemAt(`task#${taskKey(owner, taskId)}`, '000000000001');
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...planted, [EVENT_PARTITION_KEY]: `task#${taskKey(reader, taskId)}` },
      }),
    );
    expect(await events.readAfter(reader, taskId, 0, 10)).toEqual([]);
    expect(await events.lastSeq(reader, taskId)).toBe(0);
  });
});

describe('DynamoDbWebhookSubscriptions items', () => {
  const keyOf = (subscription: WebhookSubscription) =>
    [`subscriptions#${createHash('sha256').update(subscription.owner).digest('hex')}`, subscription.id] as const;

  it('sit in the owner digest partition, under the ID, with the arguments as canonical JSON text', async () => {
    const { clock, subscriptions } = stores();
    const subscription = newSubscription(clock, { arguments: { taskId: 't', filter: { b: 1, a: 2 } } });
    await subscriptions.put(subscription);
    const [pk, sk] = keyOf(subscription);
    const item = await itemAt(pk, sk);
    expect(item).toMatchObject({
      [EVENT_PARTITION_KEY]: pk,
      [EVENT_SORT_KEY]: subscription.id,
      id: subscription.id,
      owner: subscription.owner,
      url: subscription.url,
      arguments: canonicalJson(subscription.arguments),
      verified: true,
      active: true,
      failedEvents: 0,
    });
    expect(pk).not.toContain(subscription.owner);
  });

  it('hold the secrets sealed, never in clear, and only the sealing key opens them', async () => {
    const { clock, client, subscriptions } = stores();
    const subscription = newSubscription(clock, {
      previousSecret: newWebhookSecret(),
      previousSecretUntil: clock.now() + 60_000,
    });
    await subscriptions.put(subscription);
    const item = await itemAt(...keyOf(subscription));
    const raw = JSON.stringify(item);
    for (const secret of [subscription.secret, subscription.previousSecret!]) {
      expect(raw).not.toContain(secret);
      expect(raw).not.toContain(secret.slice('whsec_'.length));
    }
    expect(item?.['secret']).toMatch(/^v2\.[\w-]+\.[\w-]+\.[\w-]+$/);
    const boundTo = `${subscription.owner}\n${subscription.id}`;
    expect(sealer.unseal(item?.['secret'] as string, boundTo)).toBe(subscription.secret);
    expect(sealer.unseal(item?.['previousSecret'] as string, boundTo)).toBe(subscription.previousSecret);
    const foreignKey = new AesGcmSecretSealer(randomSealingKey());
    const stranger = new DynamoDbWebhookSubscriptions({ client, tableName, sealer: foreignKey, clock });
    await expect(stranger.get(subscription.owner, subscription.id)).rejects.toThrow(/Cannot unseal/);
  });

  it("refuse a sealed secret copied to another subscription's item, the owner's own or another owner's", async () => {
    const { clock, client, subscriptions } = stores();
    const victim = newSubscription(clock);
    const sameOwner = newSubscription(clock, { owner: victim.owner });
    const otherOwner = newSubscription(clock);
    for (const subscription of [victim, sameOwner, otherOwner]) await subscriptions.put(subscription);
    const sealed = (await itemAt(...keyOf(victim)))?.['secret'];
    for (const target of [sameOwner, otherOwner]) {
      const item = await itemAt(...keyOf(target));
      // Even with the victim's ID written over the copy's own: what counts is the key it is stored under.
      await client.send(new PutCommand({ TableName: tableName, Item: { ...item, secret: sealed, id: victim.id } }));
      await expect(subscriptions.get(target.owner, target.id)).rejects.toThrow(/Cannot unseal/);
    }
    expect((await subscriptions.get(victim.owner, victim.id))?.secret).toBe(victim.secret);
  });

  it('still open secrets sealed before they were bound to their subscription, and bind them when written again', async () => {
    const { clock, client, subscriptions } = stores();
    const subscription = newSubscription(clock, {
      previousSecret: newWebhookSecret(),
      previousSecretUntil: clock.now() + 60_000,
    });
    await subscriptions.put(subscription);
    const item = await itemAt(...keyOf(subscription));
    const unbound = {
      ...item,
      secret: sealedUnbound(sealingKey, subscription.secret),
      previousSecret: sealedUnbound(sealingKey, subscription.previousSecret!),
    };
    await client.send(new PutCommand({ TableName: tableName, Item: unbound }));
    const read = await subscriptions.get(subscription.owner, subscription.id);
    expect(read).toEqual(subscription);
    await subscriptions.put(read!);
    expect((await itemAt(...keyOf(subscription)))?.['secret']).toMatch(/^v2\./);
  });

  it('fetch the sealing key only for what needs a secret: summaries never ask for it', async () => {
    const { clock, client, subscriptions } = stores();
    const subscription = newSubscription(clock);
    await subscriptions.put(subscription);
    let asked = 0;
    const lazy = new DynamoDbWebhookSubscriptions({
      client,
      tableName,
      sealer: async () => {
        asked++;
        return sealer;
      },
      clock,
    });
    expect((await lazy.summariesForOwner(subscription.owner)).map((each) => each.id)).toEqual([subscription.id]);
    expect(asked).toBe(0);
    expect(await lazy.get(subscription.owner, subscription.id)).toEqual(subscription);
    await lazy.listForOwner(subscription.owner);
    // Fetched once, then kept.
    expect(asked).toBe(1);
  });

  it('expire by TTL a day after the grant lapses, and never without one', async () => {
    const { clock, subscriptions } = stores();
    const granted = newSubscription(clock, { refreshBefore: 1_700_000_000_123 });
    clock.set(1_600_000_000_000);
    await subscriptions.put(granted);
    expect((await itemAt(...keyOf(granted)))?.['expiresAt']).toBe(
      Math.ceil((1_700_000_000_123 + SUBSCRIPTION_TTL_GRACE_MS) / 1000),
    );
    const forever = newSubscription(clock, { refreshBefore: null });
    await subscriptions.put(forever);
    const item = await itemAt(...keyOf(forever));
    expect(item?.['expiresAt']).toBeUndefined();
    expect(item?.['refreshBefore']).toBeUndefined();
  });

  it('record failures on the item, and a delivery removes them', async () => {
    const { clock, subscriptions } = stores();
    const subscription = newSubscription(clock);
    await subscriptions.put(subscription);
    await subscriptions.recordAbandoned(subscription.owner, subscription.id, {
      category: 'timeout',
      at: 5,
      suspendAfter: 1,
    });
    expect(await itemAt(...keyOf(subscription))).toMatchObject({
      active: false,
      failedEvents: 1,
      lastError: 'timeout',
      failedSince: 5,
    });
    await subscriptions.recordDelivered(subscription.owner, subscription.id, 7);
    const item = await itemAt(...keyOf(subscription));
    expect(item).toMatchObject({ failedEvents: 0, lastDeliveryAt: 7 });
    expect(Object.keys(item ?? {})).not.toContain('lastError');
    expect(Object.keys(item ?? {})).not.toContain('failedSince');
  });

  it("never show a reader a subscription of another owner's planted in the reader's partition", async () => {
    const { clock, client, subscriptions } = stores();
    const subscription = newSubscription(clock);
    await subscriptions.put(subscription);
    const reader = `reader-${randomUUID()}`;
    const [, sk] = keyOf(subscription);
    const [readerPk] = keyOf({ ...subscription, owner: reader });
    await client.send(
      new PutCommand({ TableName: tableName, Item: { ...(await itemAt(...keyOf(subscription))), pk: readerPk } }),
    );
    expect(await subscriptions.get(reader, subscription.id)).toBeNull();
    expect(await subscriptions.listForOwner(reader)).toEqual([]);
    expect(await subscriptions.delete(reader, subscription.id)).toBe(false);
    const left = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND sk = :sk',
        ExpressionAttributeValues: { ':pk': readerPk, ':sk': sk },
      }),
    );
    expect(left.Items).toHaveLength(1);
  });
});

describe('the local tables', () => {
  it('give the task table a stream of old and new images, and its ARN to whoever polls it; the events table none', async () => {
    const { dynamoDb } = localAwsClients();
    const taskTable = `tasks-${randomUUID()}`;
    const taskStream = await createTable(dynamoDb, taskTable, TASK_TABLE);
    expect(taskStream).toMatch(/^arn:aws:dynamodb:.*\/stream\//);
    const { Table } = await dynamoDb.send(new DescribeTableCommand({ TableName: taskTable }));
    expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(await createTable(dynamoDb, `events-${randomUUID()}`, EVENT_TABLE)).toBeUndefined();
    dynamoDb.destroy();
  });
});
