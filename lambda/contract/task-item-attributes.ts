// The attribute names of a task item, one name each: the store's codec writes and reads them, and the table's index
// projections (task-table-schema.ts) are made from them.
export const TASK_ATTRIBUTE = {
  owner: 'owner',
  taskId: 'taskId',
  toolName: 'toolName',
  origin: 'origin',
  executionArn: 'executionArn',
  status: 'status',
  statusMessage: 'statusMessage',
  createdAt: 'createdAt',
  lastUpdatedAt: 'lastUpdatedAt',
  lastCheckedAt: 'lastCheckedAt',
  /** While active: when the reconciler checks the execution next (epoch ms); the check index's sort key. */
  nextCheckAt: 'nextCheckAt',
  completedAt: 'completedAt',
  retentionMs: 'retentionMs',
  retentionClock: 'retentionClock',
  pollIntervalMs: 'pollIntervalMs',
  requestId: 'requestId',
  inputDigest: 'inputDigest',
  output: 'output',
  toolError: 'toolError',
  /** The state a refresh found the execution in. */
  currentStep: 'currentStep',
  /** Map of input requests by key, each with its task token and claim. */
  inputRequests: 'inputRequests',
  /** String set of the input request keys still open: "is anything open?" is one condition. */
  openInputKeys: 'openInputKeys',
  /** Until when an expiry sweep holds the task; absent, or in the past, when none does. */
  sweepClaimedUntil: 'sweepClaimedUntil',
  // Progress is kept in top-level attributes, so a report can ADD to the count atomically and conditions can compare
  // it, which a nested map would not allow before it exists.
  progressMessage: 'progressMessage',
  progressCount: 'progressCount',
  progressTotal: 'progressTotal',
  progressAt: 'progressAt',
  progressDeadline: 'progressDeadline',
} as const;
