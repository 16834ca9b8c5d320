// The audit trail: one structured log record per task lifecycle event, all made here, so a single
// CloudWatch Logs Insights filter (`ispresent(audit.event)`) finds every one of them.
import type { TaskRecord } from '../core/task.js';
import type { Logger } from './task-service.js';

export const AuditEvent = {
  Created: 'task.created',
  /** The owner was refused a new task by a per-owner limit; `outcome` names the limit. */
  Refused: 'task.refused',
  Completed: 'task.completed',
  Failed: 'task.failed',
  Cancelled: 'task.cancelled',
  /** A terminal status nothing could explain (the execution vanished, say). */
  Unknown: 'task.unknown',
  /** A client fetched the result of a terminal task. */
  Retrieved: 'task.retrieved',
  Deleted: 'task.deleted',
  /** The task's retention ended while it was still active, unread; the expiry sweep stopped its execution. */
  Expired: 'task.expired',
} as const;
export type AuditEvent = (typeof AuditEvent)[keyof typeof AuditEvent];

export interface AuditRecord {
  readonly event: AuditEvent;
  readonly owner: string;
  readonly taskId?: string;
  readonly tool: string;
  /** The JSON-RPC ID of the request that created the task, when the client gave one (SEP-1686). */
  readonly requestId?: string;
  /** The task's status after the event, or the refusing limit. */
  readonly outcome: string;
}

/** The event recorded when a task reaches `status` (completed, failed, cancelled or unknown). */
export function terminalEvent(status: TaskRecord['status']): AuditEvent {
  return `task.${status}` as AuditEvent;
}

/** Logs one audit record for `task`; `outcome` defaults to its status. */
export function auditTask(logger: Logger, event: AuditEvent, task: TaskRecord, outcome: string = task.status): void {
  audit(logger, {
    event,
    owner: task.owner,
    taskId: task.taskId,
    tool: task.toolName,
    ...(task.requestId !== undefined ? { requestId: task.requestId } : {}),
    outcome,
  });
}

export function audit(logger: Logger, record: AuditRecord): void {
  logger.info('audit', { audit: record });
}
