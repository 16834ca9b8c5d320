// TaskStore over one DynamoDB table: conditional writes, TTL with read-time expiry, owner-scoped keys and a sparse
// owner index.
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import {
  IllegalTransitionError,
  InvalidCursorError,
  TaskAlreadyExistsError,
  TaskExpiredError,
  TaskNotFoundError,
} from '../core/errors.js';
import {
  ACTIVE_STATUSES,
  expiresAt,
  isExpired,
  isTerminal,
  statusesExecutionNewsMayMove,
  TaskOrigin,
  type TaskRecord,
  type TaskStatus,
  type TaskSummary,
} from '../core/task.js';
import { taskKey } from '../core/task-key.js';
import {
  ACTIVE_EXPIRY_PARTITION_KEY,
  ACTIVE_EXPIRY_TTL_GRACE_MS,
  activeExpiryShard,
  activeTasksKey,
  creationsKey,
  EXPIRY_MS_ATTRIBUTE,
  OWNER_INDEX,
  OWNER_INDEX_PARTITION_KEY,
  PARTITION_KEY,
  requestKey,
  TTL_ATTRIBUTE,
} from './table-schema.js';
import { inputRequestsFromItem } from './dynamodb-input-requests.js';
import type { TaskChange, TaskPage, TaskStore } from './task-store.js';
import { progressFromItem } from './progress-attributes.js';

export interface DynamoDbTaskStoreOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  /** Clock, injectable for tests. @default Date.now */
  readonly now?: () => number;
  /**
   * How long a task whose retention starts at completion may sit unfinished before DynamoDB may sweep it.
   * @default 366 days (longer than any Standard execution can run)
   */
  readonly maxUnfinishedLifetimeMs?: number;
}

type Item = Record<string, unknown>;

/**
 * What one read of a task item shows its reader. Another owner's task reads as `absent`, exactly like a missing one:
 * a reader learns nothing of tasks that are not theirs, not even that they exist.
 */
type Lookup<T> =
  | { readonly kind: 'found'; readonly task: T }
  | { readonly kind: 'expired'; readonly task: T }
  | { readonly kind: 'absent' };
const ABSENT: Lookup<never> = { kind: 'absent' };

/** The reader of {@link TaskStore.getByKey}: a trusted internal caller, who may see any owner's task. */
const ANY_OWNER = Symbol('any owner');
/** Whose eyes a read is judged with: an owner, or {@link ANY_OWNER}. */
type Reader = string | typeof ANY_OWNER;

const DEFAULT_MAX_UNFINISHED_LIFETIME_MS = 366 * 24 * 60 * 60 * 1000;
/** Task reads in flight at once while reconciling an owner's active-task slots. */
const RECONCILE_READS_AT_ONCE = 25;

export class DynamoDbTaskStore implements TaskStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly now: () => number;
  private readonly maxUnfinishedLifetimeMs: number;

  constructor(options: DynamoDbTaskStoreOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.now = options.now ?? Date.now;
    this.maxUnfinishedLifetimeMs = options.maxUnfinishedLifetimeMs ?? DEFAULT_MAX_UNFINISHED_LIFETIME_MS;
  }

  async create(task: TaskRecord): Promise<void> {
    const item = this.toItem(task);
    const put = {
      TableName: this.tableName,
      Item: item,
      // An expired task that DynamoDB has not swept yet may be replaced; a live one never. Items written before
      // the millisecond attribute existed fall back to the TTL's whole seconds.
      ConditionExpression:
        'attribute_not_exists(#pk) OR #expiresAtMs <= :nowMs OR (attribute_not_exists(#expiresAtMs) AND #ttl <= ' +
        ':nowSeconds)',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#ttl': TTL_ATTRIBUTE, '#expiresAtMs': EXPIRY_MS_ATTRIBUTE },
      ExpressionAttributeValues: { ':nowMs': this.now(), ':nowSeconds': Math.floor(this.now() / 1000) },
    };
    try {
      if (task.requestId === undefined) {
        await this.client.send(new PutCommand(put));
        return;
      }
      // The task and the (owner, request ID) -> task mapping that notifications/cancelled needs, both or neither.
      const mapping = {
        [PARTITION_KEY]: requestKey(task.owner, task.requestId),
        owner: task.owner,
        taskId: task.taskId,
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
    if (mapping === undefined || mapping['owner'] !== owner) return null;
    const task = live(await this.lookUp(taskKey(owner, mapping['taskId'] as string), owner));
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

  /** The one GetItem of this store: strongly consistent, as the contract promises. */
  private async readItem(key: string): Promise<Item | undefined> {
    const read = new GetCommand({ TableName: this.tableName, Key: { [PARTITION_KEY]: key }, ConsistentRead: true });
    return (await this.client.send(read)).Item;
  }

  /**
   * What `item` shows `reader`: absent when there is none or it is another owner's; expired when past its retention
   * (DynamoDB's TTL deletes late, so an item is no proof of a live task); otherwise found. `toTask` reads the item:
   * a full task item or an owner-index row.
   */
  private judge<T extends TaskSummary>(item: Item | undefined, reader: Reader, toTask: (item: Item) => T): Lookup<T> {
    if (item === undefined || (reader !== ANY_OWNER && item['owner'] !== reader)) return ABSENT;
    const task = toTask(item);
    return { kind: isExpired(task, this.now()) ? 'expired' : 'found', task };
  }

  async update(task: TaskRecord, change: TaskChange): Promise<TaskRecord> {
    const terminal = isTerminal(change.status);
    const completedAt = terminal ? change.at : undefined;
    const end = expiresAt({ ...task, completedAt });
    const names: Record<string, string> = {
      '#pk': PARTITION_KEY,
      '#status': 'status',
      '#ttl': TTL_ATTRIBUTE,
      '#expiresAtMs': EXPIRY_MS_ATTRIBUTE,
    };
    const values: Record<string, unknown> = {
      ':status': change.status,
      ':at': change.at,
      ':nowSeconds': Math.floor(this.now() / 1000),
      ':nowMs': this.now(),
      ':executionArn': task.executionArn,
    };
    const sets = ['#status = :status', 'lastUpdatedAt = :at'];
    const removes: string[] = [];
    if (change.statusMessage !== undefined) {
      sets.push('statusMessage = :statusMessage');
      values[':statusMessage'] = change.statusMessage;
    } else {
      removes.push('statusMessage');
    }
    if (change.output !== undefined) {
      sets.push('#output = :output');
      names['#output'] = 'output';
      values[':output'] = change.output;
    }
    if (change.toolError === true) {
      sets.push('toolError = :toolError');
      values[':toolError'] = true;
    }
    if (change.currentStep !== undefined) {
      sets.push('currentStep = :currentStep');
      values[':currentStep'] = change.currentStep;
    }
    if (terminal) {
      sets.push('completedAt = :at');
      // Out of the expiry sweep's index: a terminal task has no execution left to stop.
      removes.push(ACTIVE_EXPIRY_PARTITION_KEY);
      if (end === null) removes.push('#ttl', '#expiresAtMs');
      else {
        sets.push('#ttl = :ttl', '#expiresAtMs = :expiresAtMs');
        values[':ttl'] = Math.ceil(end / 1000);
        values[':expiresAtMs'] = end;
      }
    }
    // Execution news never takes a task out of input_required: only the answer path does
    // (store/dynamodb-input-requests).
    const allowed = statusesExecutionNewsMayMove(change.status);
    allowed.forEach((status, index) => (values[`:from${index}`] = status));
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: taskKey(task.owner, task.taskId) },
          UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
          // executionArn pins the very task read: a task created anew under the same ID is another task.
          ConditionExpression:
            `attribute_exists(#pk) AND executionArn = :executionArn AND ` +
            `(attribute_not_exists(#ttl) OR #ttl > :nowSeconds) AND (attribute_not_exists(#expiresAtMs) OR ` +
            `#expiresAtMs > :nowMs) AND #status IN (${allowed.map((_, i) => `:from${i}`).join(', ')})`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return taskFromItem(Attributes!);
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const current = live(this.judge(error.Item ? unmarshallItem(error.Item) : undefined, task.owner, taskFromItem));
      if (current === null || current.executionArn !== task.executionArn)
        throw new TaskNotFoundError(task.taskId, { cause: error });
      throw new IllegalTransitionError(task.taskId, current.status, change.status, { cause: error });
    }
  }

  async claimRefresh(task: TaskRecord, now: number, intervalMs: number): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: taskKey(task.owner, task.taskId) },
          UpdateExpression: 'SET lastCheckedAt = :now',
          ConditionExpression:
            `attribute_exists(#pk) AND executionArn = :executionArn AND #status IN ` +
            `(${ACTIVE_STATUSES.map((_, i) => `:active${i}`).join(', ')}) AND ` +
            `(attribute_not_exists(lastCheckedAt) OR lastCheckedAt <= :dueBefore)`,
          ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#status': 'status' },
          ExpressionAttributeValues: {
            ':now': now,
            ':dueBefore': now - intervalMs,
            ':executionArn': task.executionArn,
            ...Object.fromEntries(ACTIVE_STATUSES.map((status, i) => [`:active${i}`, status])),
          },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async recordCurrentStep(task: TaskRecord, step: string): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: taskKey(task.owner, task.taskId) },
          UpdateExpression: 'SET currentStep = :step',
          ConditionExpression:
            `attribute_exists(#pk) AND executionArn = :executionArn AND #status IN ` +
            `(${ACTIVE_STATUSES.map((_, i) => `:active${i}`).join(', ')})`,
          ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#status': 'status' },
          ExpressionAttributeValues: {
            ':step': step,
            ':executionArn': task.executionArn,
            ...Object.fromEntries(ACTIVE_STATUSES.map((status, i) => [`:active${i}`, status])),
          },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  async list(owner: string, options: { cursor?: string; limit: number }): Promise<TaskPage> {
    const startKey = options.cursor === undefined ? undefined : decodeCursor(options.cursor, owner);
    const nowSeconds = Math.floor(this.now() / 1000);
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
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: requestKey(owner, deleted.requestId) },
        }),
      );
    }
    return deleted !== null;
  }

  async countCreation(owner: string, window: { start: number; ms: number }, max: number): Promise<boolean> {
    try {
      await this.client.send(
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
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  // The owner's active tasks are a string set of task keys in one item: adding and removing a member is
  // idempotent, so a release that runs twice cannot free another task's slot, and the set can be repaired by
  // checking its members (reconcileActiveSlots), which a bare counter could not.
  async holdActiveSlot(owner: string, taskId: string, max: number): Promise<boolean> {
    const key = taskKey(owner, taskId);
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: activeTasksKey(owner) },
          UpdateExpression: 'ADD #active :key SET #ttl = :ttl',
          ConditionExpression: 'attribute_not_exists(#active) OR size(#active) < :max OR contains(#active, :member)',
          ExpressionAttributeNames: { '#active': 'activeTasks', '#ttl': TTL_ATTRIBUTE },
          // Outlives any task it can hold; an owner idle that long leaves nothing behind.
          ExpressionAttributeValues: {
            ':key': new Set([key]),
            ':member': key,
            ':max': max,
            ':ttl': Math.ceil((this.now() + this.maxUnfinishedLifetimeMs) / 1000),
          },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async releaseActiveSlot(owner: string, taskId: string): Promise<void> {
    await this.removeActiveSlots(owner, [taskKey(owner, taskId)]);
  }

  async reconcileActiveSlots(owner: string): Promise<number> {
    const slots = await this.readItem(activeTasksKey(owner));
    const keys = [...((slots?.['activeTasks'] as Set<string> | undefined) ?? [])];
    const stale: string[] = [];
    // A slot is held only after its task is stored, so a member whose task is absent is a leftover, not a task being
    // created.
    for (let i = 0; i < keys.length; i += RECONCILE_READS_AT_ONCE) {
      const batch = keys.slice(i, i + RECONCILE_READS_AT_ONCE);
      const tasks = await Promise.all(batch.map((key) => this.getByKey(key)));
      tasks.forEach((task, index) => {
        if (task === null || isTerminal(task.status)) stale.push(batch[index]!);
      });
    }
    await this.removeActiveSlots(owner, stale);
    return stale.length;
  }

  private async removeActiveSlots(owner: string, keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: activeTasksKey(owner) },
          UpdateExpression: 'DELETE #active :keys',
          // No item, no slots: do not create an empty one.
          ConditionExpression: 'attribute_exists(#pk)',
          ExpressionAttributeNames: { '#active': 'activeTasks', '#pk': PARTITION_KEY },
          ExpressionAttributeValues: { ':keys': new Set(keys) },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  private toItem(task: TaskRecord): Item {
    const swept = !isTerminal(task.status) && expiresAt(task) !== null;
    // An active task stays in the table past its end until the expiry sweep has stopped its execution: were DynamoDB
    // to delete it first, nothing would find the execution again. Reads judge expiry by the end itself.
    const end = swept
      ? expiresAt(task)! + ACTIVE_EXPIRY_TTL_GRACE_MS
      : (expiresAt(task) ?? (task.retention.ms === null ? null : task.createdAt + this.maxUnfinishedLifetimeMs));
    return withoutUndefined({
      [PARTITION_KEY]: taskKey(task.owner, task.taskId),
      owner: task.owner,
      taskId: task.taskId,
      toolName: task.toolName,
      origin: task.origin,
      executionArn: task.executionArn,
      status: task.status,
      statusMessage: task.statusMessage,
      createdAt: task.createdAt,
      lastUpdatedAt: task.lastUpdatedAt,
      lastCheckedAt: task.lastCheckedAt,
      completedAt: task.completedAt,
      retentionMs: task.retention.ms,
      retentionClock: task.retention.clock,
      pollIntervalMs: task.pollIntervalMs,
      requestId: task.requestId,
      inputDigest: task.inputDigest,
      output: task.output,
      toolError: task.toolError,
      [TTL_ATTRIBUTE]: end === null ? undefined : Math.ceil(end / 1000),
      [EXPIRY_MS_ATTRIBUTE]: expiresAt(task) ?? undefined,
      [OWNER_INDEX_PARTITION_KEY]: task.origin === TaskOrigin.Direct ? undefined : task.owner,
      // In the expiry sweep's index while active with a retention end (one counted from completion has none yet).
      [ACTIVE_EXPIRY_PARTITION_KEY]: swept ? activeExpiryShard(taskKey(task.owner, task.taskId)) : undefined,
    });
  }
}

/** The task a found lookup shows; `null` for an absent or expired one, which no reader may see. */
function live<T>(lookup: Lookup<T>): T | null {
  return lookup.kind === 'found' ? lookup.task : null;
}

/** A row of the owner index: the attributes it projects (OWNER_INDEX_PROJECTED_ATTRIBUTES), and its keys. */
function summaryFromItem(item: Item): TaskSummary {
  return withoutUndefined({
    taskId: item['taskId'] as string,
    owner: item['owner'] as string,
    toolName: item['toolName'] as string,
    origin: item['origin'] as TaskSummary['origin'],
    executionArn: item['executionArn'] as string,
    status: item['status'] as TaskStatus,
    statusMessage: item['statusMessage'] as string | undefined,
    createdAt: item['createdAt'] as number,
    lastUpdatedAt: item['lastUpdatedAt'] as number,
    lastCheckedAt: item['lastCheckedAt'] as number | undefined,
    completedAt: item['completedAt'] as number | undefined,
    retention: {
      ms: (item['retentionMs'] as number | null | undefined) ?? null,
      clock: item['retentionClock'] as TaskSummary['retention']['clock'],
    },
    pollIntervalMs: item['pollIntervalMs'] as number,
    toolError: item['toolError'] as boolean | undefined,
  });
}

/** A whole task item: the summary's attributes and those only a read of the item itself has. */
function taskFromItem(item: Item): TaskRecord {
  return withoutUndefined({
    ...summaryFromItem(item),
    requestId: item['requestId'] as string | undefined,
    inputDigest: item['inputDigest'] as string,
    output: item['output'] as string | undefined,
    // Written by a refresh that found the execution running (recordCurrentStep).
    currentStep: item['currentStep'] as string | undefined,
    // Written by the progress step (DynamoDbProgressStore), only read here.
    progress: progressFromItem(item),
    // Input requests: on the same item, so a read of the task shows them; their tokens stay in the item.
    inputRequests: inputRequestsFromItem(item),
  });
}

function withoutUndefined<T extends Record<string, unknown>>(record: T): T {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as T;
}

function unmarshallItem(item: Record<string, unknown>): Item {
  // The document client leaves the item on a failed condition in its raw attribute-value form.
  return unmarshall(item as Parameters<typeof unmarshall>[0]);
}

function encodeCursor(key: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

function decodeCursor(cursor: string, owner: string): Item {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch (error) {
    throw new InvalidCursorError({ cause: error });
  }
  const valid =
    typeof key === 'object' &&
    key !== null &&
    Object.keys(key).length === 3 &&
    typeof (key as Item)[PARTITION_KEY] === 'string' &&
    // A safe integer, as every createdAt is: a doctored 1e308 would fail the query as an internal error.
    Number.isSafeInteger((key as Item)['createdAt']) &&
    (key as Item)[OWNER_INDEX_PARTITION_KEY] === owner;
  if (!valid) throw new InvalidCursorError();
  return key as Item;
}
