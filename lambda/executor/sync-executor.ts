// The synchronous-run port: runs an EXPRESS state machine to its end in one call (Step Functions' StartSyncExecution)
// and reports how it ended, for a plain tools/call that needs no task. Apart from TaskExecutor because it is another
// kind of run: nothing is left to describe, stop or resume afterwards.
import type { ExecutionSnapshot } from '../core/execution-status.js';

export interface SyncRunRequest {
  /** The EXPRESS state machine. */
  readonly stateMachineArn: string;
  /** The execution's name: 1-80 characters of `0-9A-Za-z_-`. EXPRESS names need not be unique. */
  readonly executionName: string;
  /** JSON text. */
  readonly input: string;
}

export interface SyncExecutor {
  /**
   * Runs the execution and resolves once it has ended: SUCCEEDED (with its output), FAILED or TIMED_OUT (with its
   * error and cause), as {@link ExecutionSnapshot}, so that `outcomeOfExecution` reads it as it reads a described
   * STANDARD execution. Runs it at most once: a lost answer is not retried, as a retry would run the workflow again.
   *
   * Throws `ExecutionStartError` when Step Functions refused to run it (unknown or STANDARD machine, bad input); any
   * other error means the outcome is unknown. Aborting `signal` stops the wait, not the execution: an EXPRESS
   * execution cannot be stopped, and runs on to its end (5 minutes at most).
   */
  runSync(request: SyncRunRequest, signal?: AbortSignal): Promise<ExecutionSnapshot>;
}
