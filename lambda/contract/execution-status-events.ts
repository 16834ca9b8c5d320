// Step Functions' "Execution Status Change" event as EventBridge delivers it: its source, its detail type and the
// execution statuses it names. The construct's status rules match on them; the status-sync handler reads them.

export const EXECUTION_STATUS_CHANGE = 'Step Functions Execution Status Change';
export const STEP_FUNCTIONS_EVENT_SOURCE = 'aws.states';

/** The statuses of a Step Functions execution, as its API and its status events name them. */
export const ExecutionStatus = {
  Running: 'RUNNING',
  Succeeded: 'SUCCEEDED',
  Failed: 'FAILED',
  TimedOut: 'TIMED_OUT',
  Aborted: 'ABORTED',
  PendingRedrive: 'PENDING_REDRIVE',
} as const;
export type ExecutionStatus = (typeof ExecutionStatus)[keyof typeof ExecutionStatus];
