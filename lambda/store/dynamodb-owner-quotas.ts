// OwnerQuotas on the task table: one counter item per owner and minute, and one item per owner holding the keys of its
// active tasks. Both are conditional single-item writes, so a limit holds across instances.
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

  // The owner's active tasks are a string set of task keys in one item: adding and removing a member is
  // idempotent, so a release that runs twice cannot free another task's slot, and the set can be repaired by
  // checking its members (reconcileActiveSlots), which a bare counter could not.
  async holdActiveSlot(owner: string, taskId: string, max: number): Promise<boolean> {
    const key = taskKey(owner, taskId);
    return updateIfAllowed(
      this.client,
      new UpdateCommand({
        TableName: this.tableName,
        Key: { [PARTITION_KEY]: activeTasksKey(owner) },
        UpdateExpression: 'ADD #active :key SET #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(#active) OR size(#active) < :max OR contains(#active, :member)',
        ExpressionAttributeNames: { '#active': ACTIVE_TASKS, '#ttl': TTL_ATTRIBUTE },
        // Outlives any task it can hold; an owner idle that long leaves nothing behind.
        ExpressionAttributeValues: {
          ':key': new Set([key]),
          ':member': key,
          ':max': max,
          ':ttl': Math.ceil((this.clock.now() + this.slotsLifetimeMs) / 1000),
        },
      }),
    );
  }

  async releaseActiveSlot(owner: string, taskId: string): Promise<void> {
    await this.removeActiveSlots(owner, [taskKey(owner, taskId)]);
  }

  async reconcileActiveSlots(owner: string): Promise<number> {
    const read = new GetCommand({
      TableName: this.tableName,
      Key: { [PARTITION_KEY]: activeTasksKey(owner) },
      ConsistentRead: true,
    });
    const slots = (await this.client.send(read)).Item;
    const keys = [...((slots?.[ACTIVE_TASKS] as Set<string> | undefined) ?? [])];
    const stale: string[] = [];
    // A slot is held only after its task is stored, so a member whose task is absent is a leftover, not a task being
    // created.
    for (let i = 0; i < keys.length; i += RECONCILE_READS_AT_ONCE) {
      const batch = keys.slice(i, i + RECONCILE_READS_AT_ONCE);
      const tasks = await Promise.all(batch.map((key) => this.tasks.getByKey(key)));
      tasks.forEach((task, index) => {
        if (task === null || isTerminal(task.status)) stale.push(batch[index]!);
      });
    }
    await this.removeActiveSlots(owner, stale);
    return stale.length;
  }

  private async removeActiveSlots(owner: string, keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await updateIfAllowed(
      this.client,
      new UpdateCommand({
        TableName: this.tableName,
        Key: { [PARTITION_KEY]: activeTasksKey(owner) },
        UpdateExpression: 'DELETE #active :keys',
        // No item, no slots: do not create an empty one.
        ConditionExpression: 'attribute_exists(#pk)',
        ExpressionAttributeNames: { '#active': ACTIVE_TASKS, '#pk': PARTITION_KEY },
        ExpressionAttributeValues: { ':keys': new Set(keys) },
      }),
    );
  }
}
