// TaskStore over one DynamoDB table: conditional writes, TTL with read-time expiry, owner-scoped keys and a sparse
// owner index. What each update of a task item sets, and under which condition, is in task-item-updates.ts; here is
// what a lost condition means.
import {
  ConditionalCheckFailedException,
  GetItemCommand,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import {
  DeleteCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { TASK_ATTRIBUTE as A } from '../contract/task-item-attributes.js';
import {
  CHECK_DUE_INDEX,
  CHECK_DUE_PARTITION_KEY,
  CHECK_DUE_SORT_KEY,
  EXPIRY_MS_ATTRIBUTE,
  OWNER_INDEX,
  OWNER_INDEX_PARTITION_KEY,
  PARTITION_KEY,
  TTL_ATTRIBUTE,
} from '../contract/task-table-schema.js';
import { SYSTEM_CLOCK, type Clock } from '../core/clock.js';
import {
  IllegalTransitionError,
  InvalidCursorError,
  TaskAlreadyExistsError,
  TaskExpiredError,
  TaskNotFoundError,
} from '../core/errors.js';
import type { TaskRecord, TaskSummary } from '../core/task.js';
import { taskKey } from '../core/task-key.js';
import { updateIfAllowed } from './dynamodb-conditions.js';
import {
  activeTaskUpdate,
  checkClaim,
  currentStepWrite,
  handOffWrite,
  taskChangeCommand,
  type ActiveTaskWrite,
} from './task-item-updates.js';
import { summaryFromItem, taskFromItem, taskToItem, withoutUndefined, type Item } from './task-item-codec.js';
import { decodeCursor, encodeCursor } from './task-list-cursor.js';
import type { TaskChange, TaskPage, TaskStore } from './task-store.js';
import { ANY_OWNER, judge, live, type Lookup, type Reader } from './task-visibility.js';
import { requestKey } from './task-table-keys.js';
import { lowestInShards } from './sharded-index-query.js';

export interface DynamoDbTaskStoreOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  /** @default SYSTEM_CLOCK */
  readonly clock?: Pick<Clock, 'now'>;
  /**
   * How long a task whose retention starts at completion may sit unfinished before DynamoDB may sweep it.
   * @default 366 days (longer than any Standard execution can run)
   */
  readonly maxUnfinishedLifetimeMs?: number;
}

const DEFAULT_MAX_UNFINISHED_LIFETIME_MS = 366 * 24 * 60 * 60 * 1000;

export class DynamoDbTaskStore implements TaskStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly clock: Pick<Clock, 'now'>;
  private readonly maxUnfinishedLifetimeMs: number;

  constructor(options: DynamoDbTaskStoreOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.maxUnfinishedLifetimeMs = options.maxUnfinishedLifetimeMs ?? DEFAULT_MAX_UNFINISHED_LIFETIME_MS;
  }

  async create(task: TaskRecord): Promise<void> {
    const item = taskToItem(task, this.maxUnfinishedLifetimeMs);
    const now = this.clock.now();
    const put = {
      TableName: this.tableName,
      Item: item,
      // An expired task that DynamoDB has not swept yet may be replaced; a live one never. Items written before
      // the millisecond attribute existed fall back to the TTL's whole seconds.
      ConditionExpression:
        'attribute_not_exists(#pk) OR #expiresAtMs <= :nowMs OR (attribute_not_exists(#expiresAtMs) AND #ttl <= ' +
        ':nowSeconds)',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#ttl': TTL_ATTRIBUTE, '#expiresAtMs': EXPIRY_MS_ATTRIBUTE },
      ExpressionAttributeValues: { ':nowMs': now, ':nowSeconds': Math.floor(now / 1000) },
    };
    try {
      if (task.requestId === undefined) {
        await this.client.send(new PutCommand(put));
        return;
      }
      // The task and the (owner, request ID) -> task mapping that notifications/cancelled needs, both or neither.
      const mapping = {
        [PARTITION_KEY]: requestKey(task.owner, task.requestId),
        [A.owner]: task.owner,
        [A.taskId]: task.taskId,
        [TTL_ATTRIBUTE]: item[TTL_ATTRIBUTE],
      };
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [{ Put: put }, { Put: { TableName: this.tableName, Item: withoutUndefined(mapping) } }],
        }),
      );
    } catch (error) {
      // A transaction conflict on the task item means a concurrent create of the same task ID.
      const conditionFailed =
        error instanceof ConditionalCheckFailedException ||
        (error instanceof TransactionCanceledException &&
          ['ConditionalCheckFailed', 'TransactionConflict'].includes(error.CancellationReasons?.[0]?.Code ?? ''));
      if (conditionFailed) throw new TaskAlreadyExistsError(task.taskId, { cause: error });
      throw error;
    }
  }

  async findByRequest(owner: string, requestId: string): Promise<TaskRecord | null> {
    const mapping = await this.readItem(requestKey(owner, requestId));
    const taskId = mapping?.[A.taskId];
    if (mapping?.[A.owner] !== owner || typeof taskId !== 'string') return null;
    const task = live(await this.lookUp(taskKey(owner, taskId), owner));
    // A mapping left behind by a deleted task must not reach a later task that reuses its ID.
    return task?.requestId === requestId ? task : null;
  }

  async get(owner: string, taskId: string): Promise<TaskRecord | null> {
    const lookup = await this.lookUp(taskKey(owner, taskId), owner);
    if (lookup.kind === 'expired') throw new TaskExpiredError(taskId, { task: lookup.task });
    return live(lookup);
  }

  async getByKey(key: string): Promise<TaskRecord | null> {
    return live(await this.lookUp(key, ANY_OWNER));
  }

  // The read path. Every read of a task, by key or through a write that returns the item (update's lost condition,
  // delete) or a page of the owner index (list), goes item -> judge -> Lookup: one place decides what a reader sees.

  /** The task stored under `key` as `reader` sees it: one strongly consistent GetItem, judged. */
  private async lookUp(key: string, reader: Reader): Promise<Lookup<TaskRecord>> {
    return this.judge(await this.readItem(key), reader, taskFromItem);
  }

  /**
   * The one GetItem of this store: strongly consistent, as the contract promises. The poll's read, so it is sent as
   * the low-level command, whose wire-shaped input a composition root may answer by a shorter path than the document
   * client's (handlers/lean-get-item.ts); the item is unmarshalled here, as the document client would.
   */
  private async readItem(key: string): Promise<Item | undefined> {
    const Key = { [PARTITION_KEY]: { S: key } };
    const { Item } = await this.client.send(
      new GetItemCommand({ TableName: this.tableName, Key, ConsistentRead: true }),
    );
    return Item === undefined ? undefined : (unmarshall(Item) as Item);
  }

  /** What `item` (a full task item or an owner-index row, read by `toTask`) shows `reader`. */
  private judge<T extends TaskSummary>(item: Item | undefined, reader: Reader, toTask: (item: Item) => T): Lookup<T> {
    // Another owner's item is never decoded: the reader learns nothing of it, not even that it is corrupt.
    if (item === undefined || (reader !== ANY_OWNER && item[A.owner] !== reader)) return { kind: 'absent' };
    return judge(toTask(item), reader, this.clock.now());
  }

  async update(task: TaskRecord, change: TaskChange): Promise<TaskRecord> {
    try {
      const { Attributes } = await this.client.send(taskChangeCommand(this.tableName, task, change, this.clock.now()));
      return taskFromItem(Attributes!);
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const current = live(this.judge(error.Item ? unmarshallItem(error.Item) : undefined, task.owner, taskFromItem));
      if (current === null || current.executionArn !== task.executionArn)
        throw new TaskNotFoundError(task.taskId, { cause: error });
      throw new IllegalTransitionError(task.taskId, current.status, change.status, { cause: error });
    }
  }

  async findCheckDue(now: number, limit: number): Promise<string[]> {
    const due = await lowestInShards(this.client, {
      tableName: this.tableName,
      indexName: CHECK_DUE_INDEX,
      partitionKey: CHECK_DUE_PARTITION_KEY,
      sortKey: CHECK_DUE_SORT_KEY,
      upTo: now,
      limit,
    });
    return due.map((item) => item[PARTITION_KEY] as string);
  }

  claimCheck(task: TaskRecord, now: number, next: number): Promise<boolean> {
    return this.updateActive(task, checkClaim(task, now, next));
  }

  async recordCurrentStep(task: TaskRecord, step: string): Promise<void> {
    await this.updateActive(task, currentStepWrite(step));
  }

  handOff(task: TaskRecord): Promise<boolean> {
    return this.updateActive(task, handOffWrite(task));
  }

  /** `write` on the very task read while it is active; false when that condition (or the write's own) refused it. */
  private updateActive(task: TaskRecord, write: ActiveTaskWrite): Promise<boolean> {
    return updateIfAllowed(this.client, activeTaskUpdate(this.tableName, task, write));
  }

  async list(owner: string, options: { cursor?: string; limit: number }): Promise<TaskPage> {
    const startKey = options.cursor === undefined ? undefined : decodeCursor(options.cursor, owner);
    const nowSeconds = Math.floor(this.clock.now() / 1000);
    let page;
    try {
      page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: OWNER_INDEX,
          KeyConditionExpression: '#owner = :owner',
          FilterExpression: 'attribute_not_exists(#ttl) OR #ttl > :nowSeconds',
          ExpressionAttributeNames: { '#owner': OWNER_INDEX_PARTITION_KEY, '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':owner': owner, ':nowSeconds': nowSeconds },
          ScanIndexForward: false,
          Limit: options.limit,
          ExclusiveStartKey: startKey,
        }),
      );
    } catch (error) {
      // DynamoDB rejects a start key that does not belong to the query; the client sent a doctored cursor.
      if (startKey !== undefined && error instanceof Error && error.name === 'ValidationException')
        throw new InvalidCursorError({ cause: error });
      throw error;
    }
    const tasks = (page.Items ?? [])
      .map((item) => live(this.judge(item, owner, summaryFromItem)))
      .filter((task) => task !== null);
    return page.LastEvaluatedKey ? { tasks, nextCursor: encodeCursor(page.LastEvaluatedKey) } : { tasks };
  }

  async delete(owner: string, taskId: string): Promise<boolean> {
    const { Attributes } = await this.client.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: { [PARTITION_KEY]: taskKey(owner, taskId) },
        ReturnValues: 'ALL_OLD',
      }),
    );
    const deleted = live(this.judge(Attributes, owner, taskFromItem));
    if (deleted?.requestId !== undefined) {
      // Only while the mapping still names this task: a later task created under the same request ID keeps its own.
      await this.client
        .send(
          new DeleteCommand({
            TableName: this.tableName,
            Key: { [PARTITION_KEY]: requestKey(owner, deleted.requestId) },
            ConditionExpression: '#taskId = :taskId',
            ExpressionAttributeNames: { '#taskId': A.taskId },
            ExpressionAttributeValues: { ':taskId': taskId },
          }),
        )
        .catch((error: unknown) => {
          if (!(error instanceof ConditionalCheckFailedException)) throw error;
        });
    }
    return deleted !== null;
  }
}

function unmarshallItem(item: Record<string, unknown>): Item {
  // The document client leaves the item on a failed condition in its raw attribute-value form.
  return unmarshall(item as Parameters<typeof unmarshall>[0]);
}
