// What a durable tool function is invoked with: the executor (executor/durable-function-executor.ts) sends it as the
// Invoke payload, the workflow reads it. Both sides agree on it here. Pure.

/**
 * The payload a durable tool's execution starts with. `execution` is the execution reference the task stores (see
 * executor/durable-execution-arn): the helpers find the task from it, as the Step Functions steps do from
 * `$$.Execution.Id`.
 */
export interface DurableToolEvent<Arguments = Record<string, unknown>> {
  /** The tool call's arguments, as the client sent them (checked against the tool's inputSchema before the start). */
  readonly arguments: Arguments;
  /** `arn:<partition>:lambda:<region>:<account>:function:<name>/durable-execution/<execution name>`. */
  readonly execution: string;
}

/**
 * Whether `value` is a {@link DurableToolEvent}: object `arguments` and a durable execution reference (its exact shape
 * is executor/durable-execution-arn's; this only tells the executor's payload from a stray event).
 */
export function isDurableToolEvent(value: unknown): value is DurableToolEvent {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { arguments: args, execution } = value as Record<string, unknown>;
  return (
    typeof args === 'object' &&
    args !== null &&
    !Array.isArray(args) &&
    typeof execution === 'string' &&
    execution.startsWith('arn:') &&
    execution.includes(':function:') &&
    execution.includes('/durable-execution/')
  );
}
