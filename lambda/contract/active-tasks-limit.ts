// The ceiling of the per-owner active-task limit: the construct refuses a larger `maxActiveTasksPerOwner` at synth,
// the function's configuration at start (service/settings.ts documents the setting).

/** The largest `maxActiveTasksPerOwner`: 5,000 task keys of 64 characters stay well inside DynamoDB's 400 KB item. */
export const MAX_ACTIVE_TASKS_LIMIT = 5_000;
