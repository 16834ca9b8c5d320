// The DynamoDB task store, owner quotas and progress store on DynamoDB Local through the real AWS SDK: their contract
// suites (test/contract), and what only DynamoDB has: the task item's layout, its TTL attribute and its index
// membership.
import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ACTIVE_EXPIRY_PARTITION_KEY,
  ACTIVE_EXPIRY_TTL_GRACE_MS,
  OWNER_INDEX_PARTITION_KEY,
  PARTITION_KEY,
} from '../../lambda/contract/task-table-schema.js';
import { RetentionClock, TaskOrigin, type TaskRecord } from '../../lambda/core/task.js';
import { taskKey } from '../../lambda/core/task-key.js';
import { TaskStatus } from '../../lambda/core/task-status.js';
import { DynamoDbOwnerQuotas, MAX_ACTIVE_SLOT_SHARDS } from '../../lambda/store/dynamodb-owner-quotas.js';
import { activeTasksKey } from '../../lambda/store/task-table-keys.js';
import { DynamoDbProgressStore } from '../../lambda/store/dynamodb-progress-store.js';
import { DynamoDbTaskStore } from '../../lambda/store/dynamodb-task-store.js';
import { ownerQuotasContract } from '../contract/owner-quotas-contract.js';
import { progressStoreContract } from '../contract/progress-store-contract.js';
import { ManualClock, newTask } from '../contract/task-fixtures.js';
import { taskStoreContract } from '../contract/task-store-contract.js';
import { createTestTable, localAwsClients } from '../support/local-backend.js';

let tableName: string;
const documentClient = () => DynamoDBDocumentClient.from(localAwsClients().dynamoDb);

/** A task store on the test table reading a clock of its own, started at the real time (DynamoDB Local's TTL). */
function stores() {
  const clock = new ManualClock(Date.now());
  const client = documentClient();
  return { clock, client, tasks: new DynamoDbTaskStore({ client, tableName, clock }) };
}

beforeAll(async () => {
  tableName = await createTestTable();
});

taskStoreContract('DynamoDbTaskStore', () => {
  const { clock, tasks } = stores();
  return { store: tasks, clock };
});

ownerQuotasContract('DynamoDbOwnerQuotas', () => {
  const { clock, client, tasks } = stores();
  return { quotas: new DynamoDbOwnerQuotas({ client, tableName, tasks, clock }), tasks, clock };
});

describe('DynamoDbOwnerQuotas items', () => {
  const slotItems = async (owner: string) => {
    const items = [];
    for (let shard = 0; shard < MAX_ACTIVE_SLOT_SHARDS; shard++) {
      const read = new GetCommand({
        TableName: tableName,
        Key: { [PARTITION_KEY]: activeTasksKey(owner, shard) },
        ConsistentRead: true,
      });
      items.push(((await documentClient().send(read)).Item?.['activeTasks'] as Set<string> | undefined)?.size ?? 0);
    }
    return items;
  };

  it("spread an owner's slots over several items, none holding more than its share of the limit", async () => {
    const { clock, client, tasks } = stores();
    const quotas = new DynamoDbOwnerQuotas({ client, tableName, tasks, clock });
    const owner = `spread-${randomUUID()}`;
    for (let n = 0; n < 100; n++) expect(await quotas.holdActiveSlot(owner, `t${n}`, 100)).toBe(true);
    const sizes = await slotItems(owner);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(100);
    expect(sizes.every((size) => size <= Math.ceil(100 / MAX_ACTIVE_SLOT_SHARDS))).toBe(true);
  });

  it('still count and free the slots held in the one item of before', async () => {
    const { clock, client, tasks } = stores();
    const quotas = new DynamoDbOwnerQuotas({ client, tableName, tasks, clock });
    const owner = `legacy-${randomUUID()}`;
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { [PARTITION_KEY]: `active#${taskKey(owner, '')}` },
        UpdateExpression: 'ADD #active :keys',
        ExpressionAttributeNames: { '#active': 'activeTasks' },
        ExpressionAttributeValues: { ':keys': new Set([taskKey(owner, 'before')]) },
      }),
    );
    // A limit of two is two items of one slot each; the item of before is the first, and full.
    expect(await quotas.holdActiveSlot(owner, 'after', 2)).toBe(true);
    expect(await quotas.holdActiveSlot(owner, 'refused', 2)).toBe(false);
    await quotas.releaseActiveSlot(owner, 'before');
    expect(await quotas.holdActiveSlot(owner, 'refused', 2)).toBe(true);
  });
});

progressStoreContract('DynamoDbProgressStore', () => {
  const { clock, client, tasks } = stores();
  return { progress: new DynamoDbProgressStore({ client, tableName, clock }), tasks, clock };
});

describe('DynamoDbTaskStore items', () => {
  async function itemOf(task: TaskRecord): Promise<Record<string, unknown> | undefined> {
    const read = new GetCommand({
      TableName: tableName,
      Key: { [PARTITION_KEY]: taskKey(task.owner, task.taskId) },
      ConsistentRead: true,
    });
    return (await documentClient().send(read)).Item;
  }

  describe('the TTL attribute', () => {
    it('is epoch seconds, rounded up, as DynamoDB TTL requires', async () => {
      const { clock, tasks } = stores();
      clock.set(1_700_000_000_123);
      const task = newTask(clock, { retention: { ms: 10 ** 12, clock: RetentionClock.FromCreation } });
      await tasks.create(task);
      // Active, so kept past its end for the expiry sweep (see the next test).
      expect((await itemOf(task))?.['expiresAt']).toBe(
        Math.ceil((1_700_000_000_123 + 10 ** 12 + ACTIVE_EXPIRY_TTL_GRACE_MS) / 1000),
      );
    });

    it('keeps an active task past its end until the expiry sweep has had it, and a terminal one only until its end', async () => {
      const { clock, tasks } = stores();
      const task = newTask(clock, { retention: { ms: 60_000, clock: RetentionClock.FromCreation } });
      await tasks.create(task);
      expect(await itemOf(task)).toMatchObject({
        expiresAt: Math.ceil((task.createdAt + 60_000 + ACTIVE_EXPIRY_TTL_GRACE_MS) / 1000),
        [ACTIVE_EXPIRY_PARTITION_KEY]: expect.any(String),
      });
      await tasks.update(task, { status: TaskStatus.Completed, at: clock.now() + 1_000 });
      const finished = await itemOf(task);
      expect(finished?.['expiresAt']).toBe(Math.ceil((task.createdAt + 60_000) / 1000));
      expect(finished?.[ACTIVE_EXPIRY_PARTITION_KEY]).toBeUndefined();
    });

    it('is set at completion for a keep-alive counted from completion', async () => {
      const { clock, tasks } = stores();
      const task = newTask(clock, { retention: { ms: 60_000, clock: RetentionClock.FromCompletion } });
      await tasks.create(task);
      await tasks.update(task, { status: TaskStatus.Completed, at: clock.now() + 1_000 });
      expect((await itemOf(task))?.['expiresAt']).toBe(Math.ceil((clock.now() + 61_000) / 1000));
    });
  });

  describe('the owner index', () => {
    it('holds listable tasks, and no task made for a plain tool call', async () => {
      const { clock, tasks } = stores();
      const listable = newTask(clock);
      const direct = newTask(clock, { origin: TaskOrigin.Direct });
      await tasks.create(listable);
      await tasks.create(direct);
      expect((await itemOf(listable))?.[OWNER_INDEX_PARTITION_KEY]).toBe(listable.owner);
      expect((await itemOf(direct))?.[OWNER_INDEX_PARTITION_KEY]).toBeUndefined();
    });
  });

  // Another owner's task reads as absent even when its item sits under the reader's own key: a fault only raw items
  // can inject.
  describe('visibility', () => {
    it("shows a reader no task of another owner's, even one under the reader's own key: get, list and delete find none", async () => {
      const { clock, tasks } = stores();
      const reader = `reader-${randomUUID()}`;
      const task = newTask(clock, { requestId: '"planted"' });
      await tasks.create(task);
      const planted = { ...(await itemOf(task)), [PARTITION_KEY]: taskKey(reader, task.taskId) };
      await documentClient().send(
        new PutCommand({ TableName: tableName, Item: { ...planted, [OWNER_INDEX_PARTITION_KEY]: reader } }),
      );
      expect(await tasks.get(reader, task.taskId)).toBeNull();
      expect((await tasks.list(reader, { limit: 10 })).tasks).toEqual([]);
      expect(await tasks.delete(reader, task.taskId)).toBe(false);
      // The owner's own task is untouched by all of it.
      expect(await tasks.get(task.owner, task.taskId)).toEqual(task);
    });
  });
});
