// The contract of what the expiry sweep needs from storage: tasks still active past their retention, a claim so
// that concurrent sweeps handle each at most once at a time, and the final conditional write.
import type { TaskStatus } from '../core/task-status.js';

/** An active task past its retention, as the sweep finds it: enough to stop its execution and audit it. */
export interface ExpiredTask {
  readonly owner: string;
  readonly taskId: string;
  readonly toolName: string;
  readonly executionArn: string;
  readonly status: TaskStatus;
  readonly requestId?: string;
  /** Epoch ms when its retention ended. */
  readonly expiredAt: number;
}

export interface ExpirySweepStore {
  /**
   * Up to `limit` tasks that were active (submitted, working, input_required) when last written and whose retention
   * ended at or before `now`, those that expired first first. Tasks whose retention runs from completion have no end
   * while active and never appear. The answer may be slightly stale (an index); every write below re-checks.
   */
  findExpiredActive(now: number, limit: number): Promise<ExpiredTask[]>;

  /**
   * Claims the task for one sweep until `until` (epoch ms), conditionally: true for at most one caller while the
   * claim holds, false when another sweep holds it, or the task is no longer that active, expired task (terminal,
   * deleted, replaced by a new task under the same ID). A claim that is never finished lapses at `until`, so a
   * sweep that died half-way is retried by a later one.
   */
  claim(task: ExpiredTask, now: number, until: number): Promise<boolean>;

  /**
   * Records the terminal `status` on the task and takes it out of the sweep's reach, conditionally on it still
   * being that active task: true when this call made the change (exactly one caller per task), false when it was
   * already terminal or gone.
   */
  finish(task: ExpiredTask, change: { status: TaskStatus; statusMessage: string; at: number }): Promise<boolean>;
}
