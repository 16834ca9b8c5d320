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

/**
 * `task-<key in base64url>-<nonce>`: 59 characters of `A-Za-z0-9_-`, within a durable execution name's 64, which the
 * hex key of {@link executionNameFor} would pass. Step Functions executions keep the hex form.
 */
export function compactExecutionNameFor(key: string, nonce: string): string {
  return `${EXECUTION_NAME_PREFIX}${Buffer.from(key, 'hex').toString('base64url')}-${nonce}`;
}

/**
 * The task key back from an execution name made by {@link executionNameFor} or {@link compactExecutionNameFor}, or
 * `null` for a foreign execution.
 */
export function taskKeyFromExecutionName(name: string): string | null {
  const hex = /^task-([0-9a-f]{64})-[0-9a-f]{10}$/.exec(name);
  if (hex) return hex[1]!;
  // 43 base64url characters are 258 bits: the last character carries 2 bits of padding, which must be zero, so that
  // one key has exactly one compact name.
  const compact = /^task-([A-Za-z0-9_-]{42}[AEIMQUYcgkosw048])-[0-9a-f]{10}$/.exec(name);
  return compact ? Buffer.from(compact[1]!, 'base64url').toString('hex') : null;
}

/**
 * The execution name in an execution ARN: the last field of a Step Functions one (`…:execution:<machine>:<name>`), the
 * segment after `/durable-execution/` of a durable execution's ARN or reference (`…/durable-execution/<name>[/<id>]`).
 */
export function executionNameOf(executionArn: string): string {
  const durable = /\/durable-execution\/([^/]+)/.exec(executionArn);
  if (durable) return durable[1]!;
  return executionArn.slice(executionArn.lastIndexOf(':') + 1);
}
