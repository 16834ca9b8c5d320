// The per-owner limit on creations per clock minute. Every tool call that starts work counts against it: a task, a
// plain call run as a task, and a plain call of an EXPRESS tool, which makes no task (express-calls.ts).
import { AuditEvent } from '../core/audit-event.js';
import { TaskLimitExceededError } from '../core/errors.js';
import { audit } from './audit.js';
import type { TaskContext } from './task-context.js';

/** The window of the per-owner creation limit. */
const CREATION_WINDOW_MS = 60_000;

/** Who starts what: the fields the refusal's audit record names. */
export interface CountedCreation {
  readonly owner: string;
  readonly toolName: string;
  /** A client-made task ID, when the client gave one. */
  readonly taskId?: string;
  readonly requestId?: string;
}

/**
 * Counts one creation against the owner's per-minute limit (the window starting at the clock minute of `now`); throws
 * `TaskLimitExceededError`, audited and counted as refused, when the minute is used up.
 */
export async function countCreation(context: TaskContext, creation: CountedCreation, now: number): Promise<void> {
  const max = context.settings.maxTaskCreationsPerMinute;
  const start = now - (now % CREATION_WINDOW_MS);
  if (await context.quotas.countCreation(creation.owner, { start, ms: CREATION_WINDOW_MS }, max)) return;
  audit(context.logger, {
    event: AuditEvent.Refused,
    owner: creation.owner,
    ...(creation.taskId !== undefined ? { taskId: creation.taskId } : {}),
    tool: creation.toolName,
    ...(creation.requestId !== undefined ? { requestId: creation.requestId } : {}),
    outcome: 'limit:creations-per-minute',
  });
  context.metrics.taskEvent(AuditEvent.Refused, creation.toolName);
  throw new TaskLimitExceededError(
    'creations-per-minute',
    max,
    Math.max(1, Math.ceil((start + CREATION_WINDOW_MS - now) / 1000)),
  );
}
