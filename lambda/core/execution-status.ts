// Translation from an execution's state (in Step Functions' terms, which every engine's map onto) to the task's status
// and result. Pure.
import { ExecutionStatus } from '../contract/execution-status-events.js';
import { TaskStatus } from './task-status.js';
import { toolResultFromExecutionOutput } from './tool-result.js';

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
  /** The execution's raw output, kept once (the tool result is derived from it when read). */
  readonly output?: string;
  /** The output marks a tool-level error (`isError: true`). */
  readonly toolError?: boolean;
}

function describeFailure(kind: string, error?: string, cause?: string): string {
  const detail = [error, cause].filter((part) => part !== undefined && part !== '').join(': ');
  return detail === '' ? kind : `${kind}: ${detail}`;
}

/** Maps an execution to a task outcome; `null` (execution not found) is a failure with a clear message. */
export function outcomeOfExecution(execution: ExecutionSnapshot | null): TaskOutcome {
  if (execution === null) {
    const message = 'The execution for this task was not found; it was never started or has been deleted.';
    return { status: TaskStatus.Failed, statusMessage: message };
  }
  switch (execution.status) {
    case ExecutionStatus.Running:
    case ExecutionStatus.PendingRedrive:
      return { status: TaskStatus.Working };
    case ExecutionStatus.Succeeded: {
      const output = execution.output ?? 'null';
      return toolResultFromExecutionOutput(output).isError
        ? { status: TaskStatus.Completed, statusMessage: 'The tool reported an error.', output, toolError: true }
        : { status: TaskStatus.Completed, output };
    }
    case ExecutionStatus.Failed:
    case ExecutionStatus.TimedOut: {
      const kind = execution.status === ExecutionStatus.Failed ? 'Execution failed' : 'Execution timed out';
      const message = describeFailure(kind, execution.error, execution.cause);
      return { status: TaskStatus.Failed, statusMessage: message };
    }
    case ExecutionStatus.Aborted: {
      const message = describeFailure('Execution was stopped', execution.error, execution.cause);
      return { status: TaskStatus.Cancelled, statusMessage: message };
    }
    default: {
      const message = `The execution is in a state this backend does not know: ${String(execution.status)}`;
      return { status: TaskStatus.Unknown, statusMessage: message };
    }
  }
}
