// What one read of a stored task shows its reader, decided in one place for every store: another owner's task reads as
// absent, exactly like a missing one (a reader learns nothing of tasks that are not theirs, not even that they
// exist), and a task past its retention reads as expired, whether or not the storage has deleted it yet.
import { isExpired, type TaskSummary } from '../core/task.js';

export type Lookup<T> =
  | { readonly kind: 'found'; readonly task: T }
  | { readonly kind: 'expired'; readonly task: T }
  | { readonly kind: 'absent' };

/** The reader of `TaskStore.getByKey`: a trusted internal caller, who may see any owner's task. */
export const ANY_OWNER = Symbol('any owner');
/** Whose eyes a read is judged with: an owner, or {@link ANY_OWNER}. */
export type Reader = string | typeof ANY_OWNER;

/** What `task` (as stored, or `undefined`) shows `reader` at `now`. */
export function judge<T extends TaskSummary>(task: T | undefined, reader: Reader, now: number): Lookup<T> {
  if (task === undefined || (reader !== ANY_OWNER && task.owner !== reader)) return { kind: 'absent' };
  return { kind: isExpired(task, now) ? 'expired' : 'found', task };
}

/** The task a found lookup shows; `null` for an absent or expired one, which no reader may see. */
export function live<T>(lookup: Lookup<T>): T | null {
  return lookup.kind === 'found' ? lookup.task : null;
}
