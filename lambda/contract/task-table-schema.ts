// The task table's layout, in one place for the store, the local stack and the CDK construct: attribute and index
// names, projections, and TASK_TABLE, the descriptor both the construct and the local stack create the table from.
// The keys of the items (built from core/task-key) are in store/task-table-keys.ts.
import type { TableDescriptor } from './table-descriptor.js';
import { TASK_ATTRIBUTE as A } from './task-item-attributes.js';

/**
 * Partition key: sha256(owner, task ID) hex for tasks (see core/task-key), `request#…`, `active#…` and `creations#…`
 * for the other items (see store/task-table-keys.ts).
 */
export const PARTITION_KEY = 'pk';

/** Epoch seconds; DynamoDB's TTL attribute. Absent means no expiry. */
export const TTL_ATTRIBUTE = 'expiresAt';
/**
 * Epoch milliseconds of the end of the task's retention, as reads judge it; absent while it has none. Conditional
 * writes compare against it, so a create agrees with a read to the millisecond (the TTL attribute has whole seconds).
 */
export const EXPIRY_MS_ATTRIBUTE = 'expiresAtMs';
/** Sparse index of listable tasks: tasks made for plain tools/call calls do not carry `listOwner`. */
export const OWNER_INDEX = 'byOwner';
export const OWNER_INDEX_PARTITION_KEY = 'listOwner';
export const OWNER_INDEX_SORT_KEY = A.createdAt;
/**
 * What tasks/list needs; the execution output stays out of the index. Fixed for the table's life: CloudFormation
 * cannot change an existing index's projection, so a new attribute here would fail the update of a deployed stack
 * (this is why workflow progress shows in tasks/get, not in tasks/list).
 */
export const OWNER_INDEX_PROJECTED_ATTRIBUTES = [
  A.owner,
  A.taskId,
  A.toolName,
  A.origin,
  A.executionArn,
  A.status,
  A.statusMessage,
  A.lastUpdatedAt,
  A.lastCheckedAt,
  A.completedAt,
  A.retentionMs,
  A.retentionClock,
  A.pollIntervalMs,
  A.toolError,
  TTL_ATTRIBUTE,
] as const;

/**
 * Sparse index of tasks that are still active and have a retention end, ordered by that end (the sort key is
 * {@link EXPIRY_MS_ATTRIBUTE}): the expiry sweep queries it for tasks past their end whose execution may still run,
 * without scanning the table. The partition attribute is set only while the task is active with an end, and
 * removed when it reaches a terminal status, so the index holds only what the sweep may have to stop.
 */
export const ACTIVE_EXPIRY_INDEX = 'byActiveExpiry';
export const ACTIVE_EXPIRY_PARTITION_KEY = 'activeExpiryShard';
export const ACTIVE_EXPIRY_SORT_KEY = EXPIRY_MS_ATTRIBUTE;
/**
 * Shards of the index's partition key: every create and every terminal status writes to the index, and one
 * partition of it takes about 1,000 writes a second; eight keep the index far from that, and a sweep queries all eight.
 * Changing it strands tasks in shards a sweep no longer queries, so it is fixed for the table's life.
 */
export const ACTIVE_EXPIRY_SHARDS = 8;
/**
 * How long past its end DynamoDB's TTL keeps a task that is still active: longer than the sweep can take to reach it
 * (its rate is at most a day), so the item is never deleted while its execution may still run. Reads and conditional
 * writes judge expiry by {@link EXPIRY_MS_ATTRIBUTE}, so to clients the task is gone at its end all the same.
 */
export const ACTIVE_EXPIRY_TTL_GRACE_MS = 2 * 24 * 60 * 60 * 1000;
/** What the sweep needs of a task; the output and the rest stay out of the index. */
export const ACTIVE_EXPIRY_PROJECTED_ATTRIBUTES = [
  A.owner,
  A.taskId,
  A.toolName,
  A.executionArn,
  A.status,
  A.requestId,
] as const;

/**
 * Sparse index of active tasks by when their execution is checked next (the sort key is `nextCheckAt`): the reconciler
 * queries it for checks that are due, without scanning the table. The partition attribute is set while the task is
 * active, whatever its retention, and removed with its terminal status. Sharded as the active-expiry index (the same
 * shard of each task), for the same reason.
 */
export const CHECK_DUE_INDEX = 'byCheckDue';
export const CHECK_DUE_PARTITION_KEY = 'checkShard';
export const CHECK_DUE_SORT_KEY = A.nextCheckAt;
/** The reconciler reads the whole task by its key; the index carries only what tells one execution from another. */
export const CHECK_DUE_PROJECTED_ATTRIBUTES = [A.executionArn] as const;

/**
 * The task table: on-demand, TTL on {@link TTL_ATTRIBUTE}, the sparse owner index tasks/list queries, the sparse
 * active-expiry index the expiry sweep queries, the sparse check index the reconciler queries, and a stream of every
 * change, which the task event log is made from.
 */
export const TASK_TABLE: TableDescriptor = {
  partitionKey: { name: PARTITION_KEY, type: 'S' },
  stream: 'NEW_AND_OLD_IMAGES',
  ttlAttribute: TTL_ATTRIBUTE,
  indexes: [
    {
      indexName: OWNER_INDEX,
      partitionKey: { name: OWNER_INDEX_PARTITION_KEY, type: 'S' },
      sortKey: { name: OWNER_INDEX_SORT_KEY, type: 'N' },
      nonKeyAttributes: OWNER_INDEX_PROJECTED_ATTRIBUTES,
    },
    {
      indexName: ACTIVE_EXPIRY_INDEX,
      partitionKey: { name: ACTIVE_EXPIRY_PARTITION_KEY, type: 'S' },
      sortKey: { name: ACTIVE_EXPIRY_SORT_KEY, type: 'N' },
      nonKeyAttributes: ACTIVE_EXPIRY_PROJECTED_ATTRIBUTES,
    },
    {
      indexName: CHECK_DUE_INDEX,
      partitionKey: { name: CHECK_DUE_PARTITION_KEY, type: 'S' },
      sortKey: { name: CHECK_DUE_SORT_KEY, type: 'N' },
      nonKeyAttributes: CHECK_DUE_PROJECTED_ATTRIBUTES,
    },
  ],
};
