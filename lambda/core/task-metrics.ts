// The metrics port: per-tool numbers beside the audit trail. The task service reports each lifecycle event here, where
// it writes the audit record, and the input service each answer that resumed an execution; the handlers give it a
// CloudWatch implementation (handlers/powertools-metrics.ts), and anything that does not care (unit tests, the local
// stack) the no-op below.
import type { AuditEvent } from './audit-event.js';

export interface TaskMetrics {
  /**
   * Counts one lifecycle event of a task of `tool`. `durationMs` is the task's time from creation to its terminal
   * status, given on completed, failed, cancelled and unknown events only.
   */
  taskEvent(event: AuditEvent, tool: string, durationMs?: number): void;

  /**
   * Records how long an input request of a task of `tool` waited for its answer: `waitedMs` from the workflow's ask
   * to the answer that resumed the execution. Only answers that landed count, not ones Step Functions no longer
   * awaited.
   */
  inputAnswered(tool: string, waitedMs: number): void;
}

/** Counts nothing. */
export const NO_TASK_METRICS: TaskMetrics = { taskEvent: () => {}, inputAnswered: () => {} };
