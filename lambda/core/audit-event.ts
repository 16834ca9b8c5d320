// The task lifecycle events the audit trail records and the metrics count.
import type { TaskStatus } from './task-status.js';

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

/** The event recorded when a task reaches `status` (completed, failed, cancelled or unknown). */
export function terminalEvent(status: TaskStatus): AuditEvent {
  return `task.${status}` as AuditEvent;
}
