// Translation from a Step Functions execution's state to the task's status and result. Pure.
import { TaskStatus } from './task.js';
import { textResult, toolResultFromOutput, type ToolResult } from './tool-result.js';

export const ExecutionStatus = {
  Running: 'RUNNING',
  Succeeded: 'SUCCEEDED',
  Failed: 'FAILED',
  TimedOut: 'TIMED_OUT',
  Aborted: 'ABORTED',
  PendingRedrive: 'PENDING_REDRIVE',
} as const;
export type ExecutionStatus = (typeof ExecutionStatus)[keyof typeof ExecutionStatus];

/** What the executor knows of an execution. `output` is the raw JSON text Step Functions returns. */
export interface ExecutionSnapshot {
  readonly status: ExecutionStatus;
  readonly output?: string;
  readonly error?: string;
  readonly cause?: string;
}

export interface TaskOutcome {
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  /** Present when the status is terminal. */
  readonly result?: ToolResult;
}

function describeFailure(kind: string, error?: string, cause?: string): string {
  const detail = [error, cause].filter((part) => part !== undefined && part !== '').join(': ');
  return detail === '' ? kind : `${kind}: ${detail}`;
}

function parseOutput(output: string | undefined): unknown {
  if (output === undefined) return null;
  try {
    return JSON.parse(output);
  } catch {
    return output;
  }
}

/** Maps an execution to a task outcome; `null` (execution not found) is a failure with a clear message. */
export function outcomeOfExecution(execution: ExecutionSnapshot | null): TaskOutcome {
  if (execution === null) {
    const message = 'The Step Functions execution for this task was not found; it was never started or has been deleted.';
    return { status: TaskStatus.Failed, statusMessage: message, result: textResult(message, true) };
  }
  switch (execution.status) {
    case ExecutionStatus.Running:
    case ExecutionStatus.PendingRedrive:
      return { status: TaskStatus.Working };
    case ExecutionStatus.Succeeded: {
      const result = toolResultFromOutput(parseOutput(execution.output));
      return result.isError
        ? { status: TaskStatus.Completed, statusMessage: 'The tool reported an error.', result }
        : { status: TaskStatus.Completed, result };
    }
    case ExecutionStatus.Failed:
    case ExecutionStatus.TimedOut: {
      const kind = execution.status === ExecutionStatus.Failed ? 'Execution failed' : 'Execution timed out';
      const message = describeFailure(kind, execution.error, execution.cause);
      return { status: TaskStatus.Failed, statusMessage: message, result: textResult(message, true) };
    }
    case ExecutionStatus.Aborted: {
      const message = describeFailure('Execution was stopped', execution.error, execution.cause);
      return { status: TaskStatus.Cancelled, statusMessage: message, result: textResult(message, true) };
    }
    default: {
      const message = `The execution is in a state this backend does not know: ${String(execution.status)}`;
      return { status: TaskStatus.Unknown, statusMessage: message, result: textResult(message, true) };
    }
  }
}
