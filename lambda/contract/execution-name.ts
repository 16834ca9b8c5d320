// What every execution this backend starts is named with: the construct's IAM grants and status rules match on it, so
// another system's executions of a shared state machine stay out of reach (names are made in core/task-key.ts).

/** Every execution this backend starts has a name with this prefix. */
export const EXECUTION_NAME_PREFIX = 'task-';
