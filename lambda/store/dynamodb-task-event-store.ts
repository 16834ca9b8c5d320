// TaskEventStore over the events table: one item per event, under its task's partition (store/event-table-keys.ts),
// sorted by its number. An append reads the task's newest event and puts the next number with a condition that it is
// not taken, so two appends never share a number; each item keeps the change-stream position it was appended for, so
// a redelivered change finds its event instead of making another. Events expire with their task: reads judge by the
// millisecond attribute, DynamoDB's TTL removes them later.
import { fieldsOf, type Item } from './item-fields.js';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { EVENT_PARTITION_KEY, EVENT_SORT_KEY, EVENT_TTL_ATTRIBUTE } from '../contract/event-table-schema.js';
import { SYSTEM_CLOCK, type Clock } from '../core/clock.js';
import type { NewTaskEvent, TaskEvent, TaskEventChange, TaskEventSnapshot } from '../core/task-event.js';
import { eventSortKey, streamPosition, taskEventsKey } from './event-table-keys.js';
import type { TaskEventStore } from './task-event-store.js';

/** The attributes of an event item besides its keys and TTL. */
export const TASK_EVENT_ATTRIBUTE = {
  owner: 'owner',
  taskId: 'taskId',
  seq: 'seq',
  at: 'at',
  changes: 'changes',
  task: 'task',
  /** The change-stream position the event was appended for. */
  source: 'source',
  /** Epoch ms of the event's expiry, as reads judge it (the TTL attribute has whole seconds). */
  expiresAtMs: 'expiresAtMs',
} as const;
const A = TASK_EVENT_ATTRIBUTE;

/** Appends racing for one task: each lost race re-reads the newest and tries the next number. */
const MAX_APPEND_ATTEMPTS = 10;

export interface DynamoDbTaskEventStoreOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  /** @default SYSTEM_CLOCK */
  readonly clock?: Pick<Clock, 'now'>;
}

export class DynamoDbTaskEventStore implements TaskEventStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly clock: Pick<Clock, 'now'>;

  constructor(options: DynamoDbTaskEventStoreOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.clock = options.clock ?? SYSTEM_CLOCK;
  }

  async append(event: NewTaskEvent, source: string): Promise<TaskEvent> {
    const position = streamPosition(source);
    const pk = taskEventsKey(event.owner, event.taskId);
    for (let attempt = 1; attempt <= MAX_APPEND_ATTEMPTS; attempt++) {
      // Expired events count too: their numbers stay taken until TTL removes them.
      const [newest] = await this.query({ pk, forward: false, limit: 1, live: false });
      if (newest !== undefined && streamPosition(fieldsOf(newest, EVENT_ITEM).string(A.source)) >= position)
        return eventFromItem((await this.appendedFor(pk, source)) ?? newest);
      const appended: TaskEvent = {
        ...event,
        seq: (newest === undefined ? 0 : fieldsOf(newest, EVENT_ITEM).number(A.seq)) + 1,
      };
      try {
        await this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: eventToItem(appended, source),
            ConditionExpression: 'attribute_not_exists(#pk)',
            ExpressionAttributeNames: { '#pk': EVENT_PARTITION_KEY },
          }),
        );
        return eventFromItem(eventToItem(appended, source));
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        // Another append took the number meanwhile: read the newest again.
      }
    }
    const taken = `${MAX_APPEND_ATTEMPTS} concurrent appends took its numbers first`;
    throw new Error(`Could not append an event to task ${event.taskId}: ${taken}`);
  }

  async readAfter(owner: string, taskId: string, afterSeq: number, limit: number): Promise<TaskEvent[]> {
    if (limit <= 0) return [];
    const items = await this.query({
      pk: taskEventsKey(owner, taskId),
      after: eventSortKey(Math.max(0, Math.floor(afterSeq))),
      forward: true,
      limit,
      live: true,
    });
    return items.filter((item) => belongsTo(item, owner, taskId)).map(eventFromItem);
  }

  async lastSeq(owner: string, taskId: string): Promise<number> {
    const items = await this.query({ pk: taskEventsKey(owner, taskId), forward: false, limit: 1, live: true });
    const newest = items.find((item) => belongsTo(item, owner, taskId));
    return newest === undefined ? 0 : fieldsOf(newest, EVENT_ITEM).number(A.seq);
  }

  /** The item appended for `source`, newest first: a redelivered change is a recent one. */
  private async appendedFor(pk: string, source: string): Promise<Item | undefined> {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: '#pk = :pk',
          FilterExpression: '#source = :source',
          ExpressionAttributeNames: { '#pk': EVENT_PARTITION_KEY, '#source': A.source },
          ExpressionAttributeValues: { ':pk': pk, ':source': source },
          ScanIndexForward: false,
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      const found = page.Items?.[0];
      if (found !== undefined) return found;
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    return undefined;
  }

  /**
   * Up to `limit` items of the partition, after sort key `after` when given, in the order asked; only those not past
   * their expiry when `live`. Pages on until it has `limit` (a filter drops items after the Limit counted them).
   */
  private async query(options: {
    pk: string;
    after?: string;
    forward: boolean;
    limit: number;
    live: boolean;
  }): Promise<Item[]> {
    const names: Record<string, string> = { '#pk': EVENT_PARTITION_KEY };
    const values: Record<string, unknown> = { ':pk': options.pk };
    let keyCondition = '#pk = :pk';
    if (options.after !== undefined) {
      keyCondition += ' AND #sk > :after';
      names['#sk'] = EVENT_SORT_KEY;
      values[':after'] = options.after;
    }
    const filter: Partial<QueryCommandInput> = {};
    if (options.live) {
      names['#expiresAtMs'] = A.expiresAtMs;
      values[':nowMs'] = this.clock.now();
      filter.FilterExpression = 'attribute_not_exists(#expiresAtMs) OR #expiresAtMs > :nowMs';
    }
    const found: Item[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: keyCondition,
          ...filter,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ScanIndexForward: options.forward,
          Limit: options.limit - found.length,
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      found.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start !== undefined && found.length < options.limit);
    return found.slice(0, options.limit);
  }
}

function eventToItem(event: TaskEvent, source: string): Item {
  return {
    [EVENT_PARTITION_KEY]: taskEventsKey(event.owner, event.taskId),
    [EVENT_SORT_KEY]: eventSortKey(event.seq),
    [A.owner]: event.owner,
    [A.taskId]: event.taskId,
    [A.seq]: event.seq,
    [A.at]: event.at,
    [A.changes]: [...event.changes],
    // JSON data: whatever a caller left undefined is dropped, as DynamoDB cannot store it.
    [A.task]: JSON.parse(JSON.stringify(event.task)) as TaskEventSnapshot,
    [A.source]: source,
    ...(event.expiresAt !== undefined
      ? { [A.expiresAtMs]: event.expiresAt, [EVENT_TTL_ATTRIBUTE]: Math.ceil(event.expiresAt / 1000) }
      : {}),
  };
}

const EVENT_ITEM = 'Task event item';

function eventFromItem(item: Item): TaskEvent {
  const changes = item[A.changes];
  const task = item[A.task];
  if (!Array.isArray(changes) || !changes.every((change) => typeof change === 'string'))
    throw new Error(`${EVENT_ITEM} has no valid ${A.changes}`);
  if (task === null || typeof task !== 'object') throw new Error(`${EVENT_ITEM} has no valid ${A.task}`);
  const expiresAt = item[A.expiresAtMs];
  const field = fieldsOf(item, EVENT_ITEM);
  return {
    owner: field.string(A.owner),
    taskId: field.string(A.taskId),
    seq: field.number(A.seq),
    at: field.number(A.at),
    changes: changes as TaskEventChange[],
    task: task as TaskEventSnapshot,
    ...(typeof expiresAt === 'number' ? { expiresAt } : {}),
  };
}

/** Whether the item is the task's own: never another owner's, even one planted under the reader's key. */
function belongsTo(item: Item, owner: string, taskId: string): boolean {
  return item[A.owner] === owner && item[A.taskId] === taskId;
}
