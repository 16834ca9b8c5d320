// The storage key and execution name of a task. The key derives from (owner, task ID), so one owner's task
// ID can never reach another owner's task; the execution name carries the key, so a status event naming an
// execution finds its task, plus a per-creation nonce, so a task ID used again after its task was deleted or
// expired gets a new execution instead of the old one's (Step Functions keeps names taken for 90 days).
import { createHash, randomBytes } from 'node:crypto';
import { EXECUTION_NAME_PREFIX } from '../contract/execution-name.js';

/** 64 hex characters; unique per (owner, task ID). */
export function taskKey(owner: string, taskId: string): string {
  return createHash('sha256').update(owner).update('\u0000').update(taskId).digest('hex');
}

/** A fresh nonce for {@link executionNameFor}: 10 hex characters. */
export function newExecutionNonce(): string {
  return randomBytes(5).toString('hex');
}

/** `task-<key>-<nonce>`: exactly Step Functions' 80-character limit, all of it `0-9a-z-`. */
export function executionNameFor(key: string, nonce: string): string {
  return `${EXECUTION_NAME_PREFIX}${key}-${nonce}`;
}

/** The task key back from an execution name made by {@link executionNameFor}, or `null` for a foreign execution. */
export function taskKeyFromExecutionName(name: string): string | null {
  const match = /^task-([0-9a-f]{64})-[0-9a-f]{10}$/.exec(name);
  return match ? match[1]! : null;
}

/** The execution name at the end of an execution ARN. */
export function executionNameOf(executionArn: string): string {
  return executionArn.slice(executionArn.lastIndexOf(':') + 1);
}
