// OwnerQuotas on the task table: one counter item per owner and minute, and a few items per owner holding the keys of
// its active tasks. Every write is a conditional single-item write, so a limit holds across instances.
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SYSTEM_CLOCK, type Clock } from '../core/clock.js';
import { isTerminal } from '../core/task-status.js';
import { taskKey } from '../core/task-key.js';
import { updateIfAllowed } from './dynamodb-conditions.js';
import type { OwnerQuotas } from './owner-quotas.js';
import { activeTasksKey, creationsKey } from './task-table-keys.js';
import { PARTITION_KEY, TTL_ATTRIBUTE } from '../contract/task-table-schema.js';
import type { TaskStore } from './task-store.js';

export interface DynamoDbOwnerQuotasOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  /** Reads the tasks a slot names, to repair slots whose task is no longer active. */
  readonly tasks: Pick<TaskStore, 'getByKey'>;
  /** @default SYSTEM_CLOCK */
  readonly clock?: Pick<Clock, 'now'>;
  /** How long the slots item outlives its last write. @default 366 days (longer than any task can be active) */
  readonly slotsLifetimeMs?: number;
}

const DEFAULT_SLOTS_LIFETIME_MS = 366 * 24 * 60 * 60 * 1000;
/** Task reads in flight at once while reconciling an owner's active-task slots. */
const RECONCILE_READS_AT_ONCE = 25;
const ACTIVE_TASKS = 'activeTasks';

export class DynamoDbOwnerQuotas implements OwnerQuotas {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly tasks: Pick<TaskStore, 'getByKey'>;
  private readonly clock: Pick<Clock, 'now'>;
  private readonly slotsLifetimeMs: number;

  constructor(options: DynamoDbOwnerQuotasOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.tasks = options.tasks;
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.slotsLifetimeMs = options.slotsLifetimeMs ?? DEFAULT_SLOTS_LIFETIME_MS;
  }

  async countCreation(owner: string, window: { start: number; ms: number }, max: number): Promise<boolean> {
    return updateIfAllowed(
      this.client,
      new UpdateCommand({
        TableName: this.tableName,
        Key: { [PARTITION_KEY]: creationsKey(owner, window.start) },
        UpdateExpression: 'ADD #count :one SET #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(#count) OR #count < :max',
        ExpressionAttributeNames: { '#count': 'creations', '#ttl': TTL_ATTRIBUTE },
        // Swept a minute after its window closes: nothing reads a past window.
        ExpressionAttributeValues: {
          ':one': 1,
          ':max': max,
          ':ttl': Math.ceil((window.start + window.ms) / 1000) + 60,
        },
      }),
    );
  }

  // The owner's active tasks are string sets of task keys, spread over a few items (see activeSlotShards): adding and
  // removing a member is idempotent, so a release that runs twice cannot free another task's slot, and the sets can be
  // repaired by checking their members (reconcileActiveSlots), which a bare counter could not. A task goes to its home
  // item when that has room, else to the next one that has: the limit is the items' capacities together, exactly.
  async holdActiveSlot(owner: string, taskId: string, max: number): Promise<boolean> {
    const key = taskKey(owner, taskId);
    const ttl = Math.ceil((this.clock.now() + this.slotsLifetimeMs) / 1000);
    for (const { shard, capacity } of activeSlotShards(key, max)) {
      const held = await updateIfAllowed(
        this.client,
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: activeTasksKey(owner, shard) },
          UpdateExpression: 'ADD #active :key SET #ttl = :ttl',
          ConditionExpression:
            'attribute_not_exists(#active) OR size(#active) < :capacity OR contains(#active, :member)',
          ExpressionAttributeNames: { '#active': ACTIVE_TASKS, '#ttl': TTL_ATTRIBUTE },
          // Outlives any task it can hold; an owner idle that long leaves nothing behind.
          ExpressionAttributeValues: { ':key': new Set([key]), ':member': key, ':capacity': capacity, ':ttl': ttl },
        }),
      );
      if (held) return true;
    }
    return false;
  }

  async releaseActiveSlot(owner: string, taskId: string): Promise<void> {
    const key = taskKey(owner, taskId);
    // In the order a hold tries them: the slot is almost always in the first.
    for (const { shard } of activeSlotShards(key, MAX_ACTIVE_SLOT_SHARDS))
      if (await this.removeActiveSlots(owner, shard, [key])) return;
  }

  async reconcileActiveSlots(owner: string): Promise<number> {
    let freed = 0;
    for (let shard = 0; shard < MAX_ACTIVE_SLOT_SHARDS; shard++) {
      const read = new GetCommand({
        TableName: this.tableName,
        Key: { [PARTITION_KEY]: activeTasksKey(owner, shard) },
        ConsistentRead: true,
      });
      const keys = [...(((await this.client.send(read)).Item?.[ACTIVE_TASKS] as Set<string> | undefined) ?? [])];
      const stale: string[] = [];
      // A slot is held only after its task is stored, so a member whose task is absent is a leftover, not a task
      // being created.
      for (let i = 0; i < keys.length; i += RECONCILE_READS_AT_ONCE) {
        const batch = keys.slice(i, i + RECONCILE_READS_AT_ONCE);
        const tasks = await Promise.all(batch.map((key) => this.tasks.getByKey(key)));
        tasks.forEach((task, index) => {
          if (task === null || isTerminal(task.status)) stale.push(batch[index]!);
        });
      }
      if (stale.length > 0 && (await this.removeActiveSlots(owner, shard, stale, false))) freed += stale.length;
    }
    return freed;
  }

  /** Removes `keys` from one item; `false` when the item is absent or (with `mustHold`) holds the first key not. */
  private async removeActiveSlots(owner: string, shard: number, keys: string[], mustHold = true): Promise<boolean> {
    return updateIfAllowed(
      this.client,
      new UpdateCommand({
        TableName: this.tableName,
        Key: { [PARTITION_KEY]: activeTasksKey(owner, shard) },
        UpdateExpression: 'DELETE #active :keys',
        // No item, no slots: do not create an empty one.
        ConditionExpression: mustHold ? 'contains(#active, :member)' : 'attribute_exists(#pk)',
        ExpressionAttributeNames: mustHold
          ? { '#active': ACTIVE_TASKS }
          : { '#active': ACTIVE_TASKS, '#pk': PARTITION_KEY },
        ExpressionAttributeValues: { ':keys': new Set(keys), ...(mustHold ? { ':member': keys[0] } : {}) },
      }),
    );
  }
}

/**
 * The most items an owner's active-task slots are spread over. Each create and each finish writes one of them, so no
 * one item takes every write of a busy owner, and each stays small (at the default limit of 100, 13 keys: one write
 * unit). A limit under this many uses one item per slot.
 */
export const MAX_ACTIVE_SLOT_SHARDS = 8;

/**
 * The items a task may hold its slot in, in the order to try them: its home item (from its key, a hex sha256, so
 * tasks spread evenly), then the next ones round. The limit is split over them, the first `max % shards` taking one
 * more, so their capacities add up to `max` exactly.
 */
export function activeSlotShards(key: string, max: number): Array<{ shard: number; capacity: number }> {
  const shards = Math.max(1, Math.min(MAX_ACTIVE_SLOT_SHARDS, max));
  const home = Number.parseInt(key.slice(8, 16), 16) % shards;
  return Array.from({ length: shards }, (_, offset) => {
    const shard = (home + offset) % shards;
    return { shard, capacity: Math.floor(max / shards) + (shard < max % shards ? 1 : 0) };
  });
}
