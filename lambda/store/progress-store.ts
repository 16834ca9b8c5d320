// The contract of the store the progress step writes through: one conditional write per report, on the task that
// an execution belongs to. One contract suite (test/contract/progress-store-contract.ts) holds every implementation
// to it.
import type { TaskProgress } from '../core/task-progress.js';

/** One report of the progress step. Either an absolute `progress` or an `increment`, never both. */
export interface ProgressReport {
  readonly message?: string;
  /** Units done so far: recorded only if not below the stored count (an earlier report arriving late is dropped). */
  readonly progress?: number;
  /** Units done since the last report, added atomically: for concurrent reporters, such as Map iterations. */
  readonly increment?: number;
  readonly total?: number;
  /** Epoch ms a wait the workflow is entering ends (for `{secondsLeft}` in the message). */
  readonly deadline?: number;
  /** Epoch ms the report was made; a message-only report older than the stored one is dropped. */
  readonly at: number;
}

export interface ProgressStore {
  /**
   * Records `report` on the task stored under `key` (see core/task-key) whose execution is `executionArn`,
   * conditionally: only while that task is active (not terminal, not expired) and only if the report does not
   * take the progress back. Returns the stored progress after the write, or `null` when nothing was written
   * (no such task, another execution's task, finished, expired, or a stale report).
   */
  record(key: string, executionArn: string, report: ProgressReport): Promise<TaskProgress | null>;
}
