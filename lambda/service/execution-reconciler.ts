// The reconciler: the safety net under the status events. Polls and waits read only the table, which the status events
// keep current; an event EventBridge lost, or a start whose answer was lost, would leave a task showing an old status
// for good. So each active task carries when its execution is checked next (core/task.ts `nextCheckAt`), and this
// describes those whose check is due, a bounded number per run: the runs' schedule and that bound are the
// deployment-wide budget of Step Functions calls the safety net may spend, however many clients poll.
import { runBounded } from '../core/bounded-run.js';
import { isTerminal } from '../core/task-status.js';
import type { TaskContext } from './task-context.js';
import type { TaskTracker } from './task-tracker.js';

/**
 * Checks per run when the deployment sets none: one run a minute, each check at most two Step Functions calls, so
 * about 2 calls a second on average, a small share of DescribeExecution's refill (15 a second in us-east-1).
 */
export const DEFAULT_RECONCILER_MAX_CHECKS = 60;

export interface ReconcileOptions {
  /** The most tasks one run checks: each check is one DescribeExecution and, while it runs, one GetExecutionHistory. */
  readonly maxChecks: number;
  /** Checks made at once. @default 4 */
  readonly concurrency?: number;
  /** Epoch ms after which no further check begins; the rest wait for the next run. */
  readonly deadline?: number;
}

/** What one run did. */
export interface ReconcileReport {
  /** Tasks whose check was due (at most `maxChecks`). */
  readonly due: number;
  /** Tasks this run checked. */
  readonly checked: number;
  /** Tasks another run had claimed, that ended meanwhile or are gone: nothing to check. */
  readonly skipped: number;
  /** Checks that failed (throttled, unreachable); each task is checked again at its next check. */
  readonly failed: number;
  /** Due tasks left for the next run because the deadline passed. */
  readonly deferred: number;
}

type Outcome = 'checked' | 'skipped' | 'failed';

export class ExecutionReconciler {
  constructor(
    private readonly context: TaskContext,
    private readonly tracker: TaskTracker,
  ) {}

  async run(options: ReconcileOptions): Promise<ReconcileReport> {
    const { store, clock } = this.context;
    const keys = await store.findCheckDue(clock.now(), options.maxChecks);
    const count = await runBounded(keys, (key) => this.check(key), {
      concurrency: options.concurrency ?? 4,
      clock,
      ...(options.deadline !== undefined ? { deadline: options.deadline } : {}),
    });
    const report = {
      due: keys.length,
      checked: count('checked'),
      skipped: count('skipped'),
      failed: count('failed'),
      deferred: count('deferred'),
    };
    if (report.due > 0) this.context.logger.info('Reconciled task executions', { ...report });
    return report;
  }

  private async check(key: string): Promise<Outcome> {
    try {
      // Expired tasks read as absent: the expiry sweep stops their executions.
      const task = await this.context.store.getByKey(key);
      if (task === null || isTerminal(task.status)) return 'skipped';
      return (await this.tracker.reconcile(task)) ? 'checked' : 'skipped';
    } catch (error) {
      this.context.logger.warn('Could not check the execution of a task', { key, error: String(error) });
      return 'failed';
    }
  }
}
