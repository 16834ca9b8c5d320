// The DynamoDB table layout, in one place for the store, the local stack and the CDK construct.

/** Partition key: sha256(owner, task ID) hex, see core/task-key. */
export const PARTITION_KEY = 'pk';
/** Epoch seconds; DynamoDB's TTL attribute. Absent means no expiry. */
export const TTL_ATTRIBUTE = 'expiresAt';
/** Sparse index of listable tasks: tasks made for plain tools/call calls do not carry `listOwner`. */
export const OWNER_INDEX = 'byOwner';
export const OWNER_INDEX_PARTITION_KEY = 'listOwner';
export const OWNER_INDEX_SORT_KEY = 'createdAt';
/** What tasks/list needs; the result stays out of the index. */
export const OWNER_INDEX_PROJECTED_ATTRIBUTES = [
  'owner',
  'taskId',
  'toolName',
  'origin',
  'executionArn',
  'status',
  'statusMessage',
  'lastUpdatedAt',
  'lastCheckedAt',
  'completedAt',
  'retentionMs',
  'retentionClock',
  'pollIntervalMs',
  TTL_ATTRIBUTE,
] as const;
