// The one owner of the task item's shape: a task record to its item, and an item (whole, or an owner-index row) back to
// a record, with the input requests and the progress that other writers keep on the same item. Attribute names come
// from contract/task-item-attributes.ts.
import { fieldsOf, type Item } from './item-fields.js';
import { TASK_ATTRIBUTE as A } from '../contract/task-item-attributes.js';
import {
  ACTIVE_EXPIRY_PARTITION_KEY,
  CHECK_DUE_PARTITION_KEY,
  ACTIVE_EXPIRY_TTL_GRACE_MS,
  EXPIRY_MS_ATTRIBUTE,
  OWNER_INDEX_PARTITION_KEY,
  PARTITION_KEY,
  TTL_ATTRIBUTE,
} from '../contract/task-table-schema.js';
import type { InputRequest, InputRequestMessage, InputRequestState } from '../core/input-request.js';
import { expiresAt, TaskOrigin, type TaskRecord, type TaskSummary } from '../core/task.js';
import { isTerminal } from '../core/task-status.js';
import { taskKey } from '../core/task-key.js';
import type { TaskProgress } from '../core/task-progress.js';
import type { ExpiredTask } from './expiry-sweep-store.js';
import { activeExpiryShard } from './task-table-keys.js';

export type { Item } from './item-fields.js';

/** One input request as the item keeps it: the request as JSON text, its token and the claim on it. */
export interface InputRequestEntry {
  readonly request: string;
  readonly state: InputRequestState;
  readonly askedAt: number;
  readonly deadlineAt?: number;
  readonly taskToken: string;
  readonly claimId?: string;
  readonly claimedAt?: number;
}

/**
 * The item of a new task. `maxUnfinishedLifetimeMs` bounds how long a task whose retention counts from completion may
 * sit unfinished before DynamoDB may sweep it.
 */
export function taskToItem(task: TaskRecord, maxUnfinishedLifetimeMs: number): Item {
  const key = taskKey(task.owner, task.taskId);
  const end = expiresAt(task);
  const active = !isTerminal(task.status);
  const swept = active && end !== null;
  // An active task stays in the table past its end until the expiry sweep has stopped its execution: were DynamoDB
  // to delete it first, nothing would find the execution again. Reads judge expiry by the end itself.
  const ttlEnd = swept
    ? end + ACTIVE_EXPIRY_TTL_GRACE_MS
    : (end ?? (task.retention.ms === null ? null : task.createdAt + maxUnfinishedLifetimeMs));
  return withoutUndefined({
    [PARTITION_KEY]: key,
    [A.owner]: task.owner,
    [A.taskId]: task.taskId,
    [A.toolName]: task.toolName,
    [A.origin]: task.origin,
    [A.executionArn]: task.executionArn,
    [A.status]: task.status,
    [A.statusMessage]: task.statusMessage,
    [A.createdAt]: task.createdAt,
    [A.lastUpdatedAt]: task.lastUpdatedAt,
    [A.lastCheckedAt]: task.lastCheckedAt,
    [A.nextCheckAt]: active ? task.nextCheckAt : undefined,
    [A.completedAt]: task.completedAt,
    [A.retentionMs]: task.retention.ms,
    [A.retentionClock]: task.retention.clock,
    [A.pollIntervalMs]: task.pollIntervalMs,
    [A.requestId]: task.requestId,
    [A.inputDigest]: task.inputDigest,
    [A.output]: task.output,
    [A.toolError]: task.toolError,
    [TTL_ATTRIBUTE]: ttlEnd === null ? undefined : Math.ceil(ttlEnd / 1000),
    [EXPIRY_MS_ATTRIBUTE]: end ?? undefined,
    // Plain calls' tasks are not listed: they stay out of the owner index.
    [OWNER_INDEX_PARTITION_KEY]: task.origin === TaskOrigin.Direct ? undefined : task.owner,
    // In the expiry sweep's index while active with a retention end (one counted from completion has none yet).
    [ACTIVE_EXPIRY_PARTITION_KEY]: swept ? activeExpiryShard(key) : undefined,
    // In the reconciler's index while active with a check to come.
    [CHECK_DUE_PARTITION_KEY]: active && task.nextCheckAt !== undefined ? activeExpiryShard(key) : undefined,
  });
}

/** A row of the owner index: the attributes it projects (OWNER_INDEX_PROJECTED_ATTRIBUTES), and its keys. */
export function summaryFromItem(item: Item): TaskSummary {
  const field = fieldsOf(item, 'Task item');
  return withoutUndefined({
    taskId: field.string(A.taskId),
    owner: field.string(A.owner),
    toolName: field.string(A.toolName),
    origin: field.string(A.origin) as TaskSummary['origin'],
    executionArn: field.string(A.executionArn),
    status: field.string(A.status) as TaskSummary['status'],
    statusMessage: field.optionalString(A.statusMessage),
    createdAt: field.number(A.createdAt),
    lastUpdatedAt: field.number(A.lastUpdatedAt),
    lastCheckedAt: field.optionalNumber(A.lastCheckedAt),
    completedAt: field.optionalNumber(A.completedAt),
    retention: {
      ms: field.optionalNumber(A.retentionMs) ?? null,
      clock: field.string(A.retentionClock) as TaskSummary['retention']['clock'],
    },
    pollIntervalMs: field.number(A.pollIntervalMs),
    toolError: typeof item[A.toolError] === 'boolean' ? (item[A.toolError] as boolean) : undefined,
  });
}

/** A whole task item: the summary's attributes and those only a read of the item itself has. */
export function taskFromItem(item: Item): TaskRecord {
  const field = fieldsOf(item, 'Task item');
  return withoutUndefined({
    ...summaryFromItem(item),
    nextCheckAt: field.optionalNumber(A.nextCheckAt),
    requestId: field.optionalString(A.requestId),
    inputDigest: field.string(A.inputDigest),
    output: field.optionalString(A.output),
    currentStep: field.optionalString(A.currentStep),
    progress: progressFromItem(item),
    inputRequests: inputRequestsFromItem(item),
  });
}

/** A row of the expiry sweep's index: the attributes it projects (ACTIVE_EXPIRY_PROJECTED_ATTRIBUTES), and its keys. */
export function expiredTaskFromItem(item: Item): ExpiredTask {
  const field = fieldsOf(item, 'Task item');
  return withoutUndefined({
    owner: field.string(A.owner),
    taskId: field.string(A.taskId),
    toolName: field.string(A.toolName),
    executionArn: field.string(A.executionArn),
    status: field.string(A.status) as ExpiredTask['status'],
    requestId: field.optionalString(A.requestId),
    expiredAt: field.number(EXPIRY_MS_ATTRIBUTE),
  });
}

/** The entries of the item's input requests, tokens and claims included: for the input-request store only. */
export function inputRequestEntriesOf(item: Item | undefined): Record<string, InputRequestEntry> | undefined {
  return item?.[A.inputRequests] as Record<string, InputRequestEntry> | undefined;
}

/** The requests of a task item as the task record shows them: everything but the token and the claim. */
function inputRequestsFromItem(item: Item): Record<string, InputRequest> | undefined {
  const entries = inputRequestEntriesOf(item);
  if (entries === undefined) return undefined;
  return Object.fromEntries(
    Object.entries(entries).map(([key, entry]) => [
      key,
      {
        key,
        request: JSON.parse(entry.request) as InputRequestMessage,
        state: entry.state,
        askedAt: entry.askedAt,
        ...(entry.deadlineAt !== undefined ? { deadlineAt: entry.deadlineAt } : {}),
      },
    ]),
  );
}

/** The progress held in a task item, or `undefined` when its workflow never reported any. */
export function progressFromItem(item: Item): TaskProgress | undefined {
  const field = fieldsOf(item, 'Task item');
  const at = field.optionalNumber(A.progressAt);
  if (at === undefined) return undefined;
  return withoutUndefined({
    at,
    message: field.optionalString(A.progressMessage),
    progress: field.optionalNumber(A.progressCount),
    total: field.optionalNumber(A.progressTotal),
    deadline: field.optionalNumber(A.progressDeadline),
  });
}

export function withoutUndefined<T extends Record<string, unknown>>(record: T): T {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as T;
}
