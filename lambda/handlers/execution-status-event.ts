// The Step Functions "Execution Status Change" event as EventBridge delivers it, and what it says of the execution.
// Pure; its source and detail type, which the CDK construct's rules match on, are in contract/execution-status-events.
import type { EventBridgeEvent } from 'aws-lambda';
import { EXECUTION_STATUS_CHANGE, ExecutionStatus } from '../contract/execution-status-events.js';
import type { ExecutionSnapshot } from '../core/execution-status.js';

/** The `detail` of the event as Step Functions sends it (the fields read here, plus the usual others). */
export interface ExecutionStatusChangeDetail {
  readonly executionArn: string;
  readonly stateMachineArn: string;
  /** The execution name; for executions this backend started, it names the task (see core/task-key). */
  readonly name: string;
  readonly status: ExecutionStatus;
  readonly startDate?: number;
  readonly stopDate?: number | null;
  readonly input?: string | null;
  readonly inputDetails?: { readonly included: boolean };
  /** The raw JSON output, present for SUCCEEDED unless it was too large to include. */
  readonly output?: string | null;
  readonly outputDetails?: { readonly included: boolean };
  readonly error?: string | null;
  readonly cause?: string | null;
}

export type ExecutionStatusChangeEvent = EventBridgeEvent<typeof EXECUTION_STATUS_CHANGE, ExecutionStatusChangeDetail>;

/**
 * What the event says of the execution, or `'describe'` when it succeeded but its output was left out of the
 * event (above about 248 KB): the task's result must then be read with DescribeExecution.
 */
export function executionUpdateFromDetail(detail: ExecutionStatusChangeDetail): ExecutionSnapshot | 'describe' {
  if (detail.status === ExecutionStatus.Succeeded && detail.outputDetails?.included === false) return 'describe';
  return {
    status: detail.status,
    ...(typeof detail.output === 'string' ? { output: detail.output } : {}),
    ...(typeof detail.error === 'string' ? { error: detail.error } : {}),
    ...(typeof detail.cause === 'string' ? { cause: detail.cause } : {}),
  };
}
