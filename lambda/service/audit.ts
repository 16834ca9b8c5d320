// The audit trail: one structured log record per task lifecycle event, all made here, so a single
// CloudWatch Logs Insights filter (`ispresent(audit.event)`) finds every one of them.
import type { AuditEvent } from '../core/audit-event.js';
import type { Logger } from '../core/logger.js';
import type { TaskRecord } from '../core/task.js';

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
