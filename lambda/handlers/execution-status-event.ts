// The status events of both engines as EventBridge delivers them (Step Functions' "Execution Status Change", Lambda's
// "Durable Execution Status Change"), and what each says of its execution. Pure; their sources and detail types, which
// the CDK construct's rules match on, are in contract/.
import type { EventBridgeEvent } from 'aws-lambda';
import {
  DURABLE_EXECUTION_STATUS_CHANGE,
  DurableExecutionStatus,
  type DurableExecutionStatusChange,
} from '../contract/durable-execution-status-events.js';
import { EXECUTION_STATUS_CHANGE, ExecutionStatus } from '../contract/execution-status-events.js';
import type { ExecutionSnapshot } from '../core/execution-status.js';
import { durableExecutionRefOf } from '../executor/durable-execution-arn.js';

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

export type DurableExecutionStatusChangeEvent = EventBridgeEvent<
  typeof DURABLE_EXECUTION_STATUS_CHANGE,
  DurableExecutionStatusChange
>;

/** Either engine's status event: what the status-sync function's rules deliver. */
export type StatusChangeEvent = ExecutionStatusChangeEvent | DurableExecutionStatusChangeEvent;

/** What a status event says, ready for TaskService.recordExecutionEvent. */
export interface ExecutionChange {
  /** The execution as its task holds it (for a durable execution, its reference). */
  readonly executionArn: string;
  readonly update: ExecutionSnapshot | 'describe';
  /** The execution's own ARN, to describe it by without resolving a reference. */
  readonly describedArn: string;
  /** The status as the engine names it, for the log. */
  readonly status: string;
}

/**
 * What either engine's event says. A durable execution's event carries neither result nor error, so a finished one is
 * described (one GetDurableExecution of the ARN the event names); RUNNING is all a running one has to say.
 */
export function executionChangeOf(event: StatusChangeEvent): ExecutionChange {
  if (event['detail-type'] !== DURABLE_EXECUTION_STATUS_CHANGE) {
    const { detail } = event as ExecutionStatusChangeEvent;
    const update = executionUpdateFromDetail(detail);
    return { executionArn: detail.executionArn, update, describedArn: detail.executionArn, status: detail.status };
  }
  const { detail } = event as DurableExecutionStatusChangeEvent;
  return {
    executionArn: durableExecutionRefOf(detail.durableExecutionArn),
    update: detail.status === DurableExecutionStatus.Running ? { status: ExecutionStatus.Running } : 'describe',
    describedArn: detail.durableExecutionArn,
    status: detail.status,
  };
}
