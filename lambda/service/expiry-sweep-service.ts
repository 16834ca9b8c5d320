// The expiry sweep: stops the executions of tasks whose retention ended while they were still active. Once a task
// expires no client can read, cancel or delete it (every read treats it as gone), and DynamoDB may take days to
// delete its item, so without this an unread task's execution would run on unseen until it ends by itself.
import { SYSTEM_CLOCK, type Clock } from '../core/clock.js';
import { runBounded } from '../core/bounded-run.js';
import { TaskStatus } from '../core/task-status.js';
import type { TaskExecutor } from '../executor/task-executor.js';
import type { ExpiredTask, ExpirySweepStore } from '../store/expiry-sweep-store.js';
import type { OwnerQuotas } from '../store/owner-quotas.js';
import { AuditEvent } from '../core/audit-event.js';
import { audit } from './audit.js';
import { NO_TASK_METRICS, type TaskMetrics } from '../core/task-metrics.js';
import type { Logger } from '../core/logger.js';

export interface ExpirySweepSettings {
  /** The most expired tasks one run handles: bounds a run's time and calls; the rest wait for the next run. */
  readonly maxTasksPerRun: number;
  /** Tasks handled at once within a run. */
  readonly concurrency: number;
  /** How long a run's claim on a task holds: a run that died half-way leaves the task to a later run after this. */
  readonly claimMs: number;
}

export const DEFAULT_EXPIRY_SWEEP_SETTINGS: ExpirySweepSettings = {
  maxTasksPerRun: 200,
  concurrency: 10,
  claimMs: 60_000,
};

export interface ExpirySweepOptions {
  readonly store: ExpirySweepStore;
  /** Where the task's per-owner active slot is given back. */
  readonly slots: Pick<OwnerQuotas, 'releaseActiveSlot'>;
  readonly executor: Pick<TaskExecutor, 'stop'>;
  readonly logger: Logger;
  /** Counts each expired task, beside its audit record. @default NO_TASK_METRICS */
  readonly metrics?: TaskMetrics;
  readonly settings?: Partial<ExpirySweepSettings>;
  /** @default SYSTEM_CLOCK */
  readonly clock?: Pick<Clock, 'now'>;
}

/** What one run did. */
export interface ExpirySweepReport {
  /** Expired active tasks the run found (at most `maxTasksPerRun`). */
  readonly found: number;
  /** Tasks this run stopped and finished. */
  readonly expired: number;
  /** Tasks another run held, or that ended meanwhile: nothing for this run to do. */
  readonly skipped: number;
  /** Tasks whose handling failed; a later run retries them once their claim lapses. */
  readonly failed: number;
  /** Found tasks left unhandled because the run's deadline passed. */
  readonly deferred: number;
}

/**
 * The status an expired task ends in. `cancelled`, not `failed`: nothing went wrong with the work, the server
 * stopped it on purpose, and a stopped (ABORTED) execution is `cancelled` everywhere else in the task model.
 */
export const EXPIRED_STATUS = TaskStatus.Cancelled;
export const EXPIRED_STATUS_MESSAGE =
  'The task expired before its execution finished, unread; its execution was stopped.';
/** Why an expired task's execution is stopped, by the sweep or by a read that finds the task expired. */
export const EXPIRED_STOP_REASON = {
  error: 'TaskExpired',
  cause: 'The task expired before its execution finished.',
} as const;

type Outcome = 'expired' | 'skipped' | 'failed';

export class ExpirySweep {
  private readonly store: ExpirySweepStore;
  private readonly slots: Pick<OwnerQuotas, 'releaseActiveSlot'>;
  private readonly executor: Pick<TaskExecutor, 'stop'>;
  private readonly logger: Logger;
  private readonly metrics: TaskMetrics;
  private readonly settings: ExpirySweepSettings;
  private readonly clock: Pick<Clock, 'now'>;

  constructor(options: ExpirySweepOptions) {
    this.store = options.store;
    this.slots = options.slots;
    this.executor = options.executor;
    this.logger = options.logger;
    this.metrics = options.metrics ?? NO_TASK_METRICS;
    this.settings = { ...DEFAULT_EXPIRY_SWEEP_SETTINGS, ...options.settings };
    this.clock = options.clock ?? SYSTEM_CLOCK;
  }

  /**
   * Finds up to `maxTasksPerRun` expired active tasks and, for each, claims it, stops its execution (idempotent: an
   * execution already ended or never started is fine), records it `cancelled` and gives back its active slot. Safe
   * to run on several instances at once: the claim lets one run handle a task at a time, and the final write is
   * conditional, so a task is finished and audited once. One task's failure is logged and the rest go on. No task
   * is started after `deadline` (epoch ms), so a run ends within its function's timeout.
   */
  async run(options: { deadline?: number } = {}): Promise<ExpirySweepReport> {
    const tasks = await this.store.findExpiredActive(this.clock.now(), this.settings.maxTasksPerRun);
    const count = await runBounded(tasks, (task) => this.expire(task), {
      concurrency: this.settings.concurrency,
      clock: this.clock,
      ...(options.deadline !== undefined ? { deadline: options.deadline } : {}),
    });
    const report = {
      found: tasks.length,
      expired: count('expired'),
      skipped: count('skipped'),
      failed: count('failed'),
      deferred: count('deferred'),
    };
    if (report.found > 0) this.logger.info('Expiry sweep finished', { ...report });
    return report;
  }

  private async expire(task: ExpiredTask): Promise<Outcome> {
    try {
      const now = this.clock.now();
      if (!(await this.store.claim(task, now, now + this.settings.claimMs))) return 'skipped';
      // Stop first: should the write below fail, the claim lapses and a later run stops (a no-op) and writes again.
      await this.executor.stop(task.executionArn, EXPIRED_STOP_REASON);
      if (
        !(await this.store.finish(task, {
          status: EXPIRED_STATUS,
          statusMessage: EXPIRED_STATUS_MESSAGE,
          at: this.clock.now(),
        }))
      )
        return 'skipped';
    } catch (error) {
      this.logger.warn('Could not stop an expired task', {
        taskId: task.taskId,
        executionArn: task.executionArn,
        error: String(error),
      });
      return 'failed';
    }
    // A lost release is repaired when the owner next reaches the limit (reconcileActiveSlots), so it fails nothing.
    await this.slots.releaseActiveSlot(task.owner, task.taskId).catch((error: unknown) => {
      this.logger.warn("Could not free an expired task's active-task slot", {
        taskId: task.taskId,
        error: String(error),
      });
    });
    audit(this.logger, {
      event: AuditEvent.Expired,
      owner: task.owner,
      taskId: task.taskId,
      tool: task.toolName,
      ...(task.requestId !== undefined ? { requestId: task.requestId } : {}),
      outcome: EXPIRED_STATUS,
    });
    this.metrics.taskEvent(AuditEvent.Expired, task.toolName);
    return 'expired';
  }
}
