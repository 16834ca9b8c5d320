// The storage key and execution name of a task, derived from (owner, task ID) so that one owner's task ID
// can never reach another owner's task, and so that a status event naming an execution finds its task.
import { createHash } from 'node:crypto';

/** 64 hex characters; unique per (owner, task ID). */
export function taskKey(owner: string, taskId: string): string {
  return createHash('sha256').update(owner).update('\u0000').update(taskId).digest('hex');
}

/** Step Functions execution names allow 80 characters of `0-9A-Za-z-_`; the key alone fits and is deterministic. */
export function executionNameFor(key: string): string {
  return `task-${key}`;
}

/** The task key back from an execution name made by {@link executionNameFor}, or `null` for a foreign execution. */
export function taskKeyFromExecutionName(name: string): string | null {
  const match = /^task-([0-9a-f]{64})$/.exec(name);
  return match ? match[1]! : null;
}
