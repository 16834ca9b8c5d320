// What Lambda's answers about a durable execution say in the executor contract's terms. Pure: the executor
// (durable-function-executor.ts) calls Lambda and hands the answers here.
import type { Event, GetDurableExecutionResponse } from '@aws-sdk/client-lambda';
import type { ExecutionSnapshot } from '../core/execution-status.js';
import { ExecutionStatus } from '../contract/execution-status-events.js';

/**
 * A durable execution's status → the Step Functions status that means the same to a task. STOPPED is ABORTED: both
 * are a stop someone asked for, which a task reports as cancelled. A paused execution (PAUSING, PAUSED) goes on when
 * resumed, so its task stays working.
 */
const STATUS_OF: Readonly<Record<string, ExecutionStatus>> = {
  RUNNING: ExecutionStatus.Running,
  PAUSING: ExecutionStatus.Running,
  PAUSED: ExecutionStatus.Running,
  SUCCEEDED: ExecutionStatus.Succeeded,
  FAILED: ExecutionStatus.Failed,
  TIMED_OUT: ExecutionStatus.TimedOut,
  STOPPED: ExecutionStatus.Aborted,
};

/**
 * A GetDurableExecution answer as the executor contract's snapshot, so that `outcomeOfExecution` maps it as it maps a
 * Step Functions execution: `Result` (the handler's return value, JSON text, present only for SUCCEEDED) is the output,
 * `Error`'s type and message are the error and cause. An execution being deleted (DELETING) is as good as gone: `null`,
 * as for one Lambda no longer has. A status Lambda may add later is passed on as it is, which the outcome reports as
 * unknown rather than guessing.
 */
export function snapshotOfDurableExecution(
  execution: Pick<GetDurableExecutionResponse, 'Status' | 'Result' | 'Error'>,
): ExecutionSnapshot | null {
  if (execution.Status === 'DELETING') return null;
  const status = STATUS_OF[execution.Status ?? ''] ?? (String(execution.Status) as ExecutionStatus);
  const { ErrorType: error, ErrorMessage: cause } = execution.Error ?? {};
  return {
    status,
    ...(status === ExecutionStatus.Succeeded && execution.Result !== undefined ? { output: execution.Result } : {}),
    ...(error !== undefined ? { error } : {}),
    ...(cause !== undefined ? { cause } : {}),
  };
}

/** The history events that start an operation a person would call a step; each has its finishing events. */
const STARTED = new Set(['StepStarted', 'WaitStarted', 'CallbackStarted', 'ContextStarted', 'ChainedInvokeStarted']);
const FINISHED = /^(Step|Wait|Callback|Context|ChainedInvoke)(Succeeded|Failed|TimedOut|Cancelled|Stopped)$/;

/**
 * The step an execution is in, from its history newest first: the newest named operation (step, wait, callback,
 * child context, chained invoke) started and not finished since, else the newest named one started at all, else
 * `null`. Unnamed operations are passed over, so an operation made of unnamed parts shows as its own name.
 */
export function currentDurableStepOf(newestFirst: readonly Event[]): string | null {
  const finished = new Set<string>();
  let newestStarted: string | null = null;
  for (const event of newestFirst) {
    const type = event.EventType ?? '';
    if (event.Id !== undefined && FINISHED.test(type)) finished.add(event.Id);
    if (!STARTED.has(type) || event.Name === undefined || event.Name === '') continue;
    if (event.Id === undefined || !finished.has(event.Id)) return event.Name;
    newestStarted ??= event.Name;
  }
  return newestStarted;
}
