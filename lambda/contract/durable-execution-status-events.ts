// Lambda's "Durable Execution Status Change" event as EventBridge delivers it: its source, its detail type, the
// statuses it names and the shape of its detail. Rules that follow durable executions match on them; the status-sync
// handler reads them. Pure.

export const DURABLE_EXECUTION_STATUS_CHANGE = 'Durable Execution Status Change';
export const LAMBDA_EVENT_SOURCE = 'aws.lambda';

/**
 * The statuses of a durable execution, as its API (GetDurableExecution) and its status events name them. PAUSING and
 * PAUSED are a running execution held by PauseDurableExecution (it goes on when resumed); DELETING is a finished
 * execution whose data DeleteDurableExecution is removing.
 */
export const DurableExecutionStatus = {
  Running: 'RUNNING',
  Pausing: 'PAUSING',
  Paused: 'PAUSED',
  Succeeded: 'SUCCEEDED',
  Failed: 'FAILED',
  TimedOut: 'TIMED_OUT',
  Stopped: 'STOPPED',
  Deleting: 'DELETING',
} as const;
export type DurableExecutionStatus = (typeof DurableExecutionStatus)[keyof typeof DurableExecutionStatus];

/**
 * The statuses whose events status-sync follows: the start (RUNNING) and every end. A pause changes nothing a task
 * shows (it stays working), and a deletion comes after the end was recorded.
 */
export const FOLLOWED_DURABLE_STATUSES: readonly DurableExecutionStatus[] = [
  DurableExecutionStatus.Running,
  DurableExecutionStatus.Succeeded,
  DurableExecutionStatus.Failed,
  DurableExecutionStatus.TimedOut,
  DurableExecutionStatus.Stopped,
];

/**
 * The `detail` of a "Durable Execution Status Change" event, as in the example event of
 * https://docs.aws.amazon.com/lambda/latest/dg/durable-monitoring.html ("EventBridge events"). Lambda emits one when an
 * execution starts (RUNNING) and one when it ends. The event carries no result and no error: read them with
 * GetDurableExecution.
 */
export interface DurableExecutionStatusChange {
  /** `arn:aws:lambda:<region>:<account>:function:<name>:<version>/durable-execution/<name>/<id>`. */
  readonly durableExecutionArn: string;
  readonly durableExecutionName: string;
  /** The function's ARN qualified with the version that runs the execution, e.g. `…:function:my-function:2`. */
  readonly functionArn: string;
  readonly status: DurableExecutionStatus;
  /** ISO 8601 with milliseconds, e.g. `2025-11-20T13:08:22.345Z`. */
  readonly startTimestamp: string;
  /** Only in the event of a terminal status (SUCCEEDED, FAILED, TIMED_OUT, STOPPED). */
  readonly endTimestamp?: string;
}
