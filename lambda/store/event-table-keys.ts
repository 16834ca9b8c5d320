// The keys of the events table's items (the layout itself is in contract/event-table-schema.ts): a task's events under
// the task's own key (core/task-key), so one owner's task ID never reaches another's log; an owner's webhook
// subscriptions under a digest of the owner, so the partition names no principal in clear.
import { createHash } from 'node:crypto';
import { taskKey } from '../core/task-key.js';

/** Digits of an event's sort key: numbers up to 10^12 - 1 sort as text in their numeric order. */
const SEQ_DIGITS = 12;

/** Partition of a task's events. */
export function taskEventsKey(owner: string, taskId: string): string {
  return `task#${taskKey(owner, taskId)}`;
}

/** Sort key of the task's event numbered `seq`: zero-padded, so the partition reads back in the events' order. */
export function eventSortKey(seq: number): string {
  if (!Number.isSafeInteger(seq) || seq < 0 || seq >= 10 ** SEQ_DIGITS)
    throw new RangeError(`An event number must be an integer in [0, 10^${SEQ_DIGITS}), not ${seq}`);
  return String(seq).padStart(SEQ_DIGITS, '0');
}

/** Partition of the owner's webhook subscriptions. */
export function subscriptionsKey(owner: string): string {
  return `subscriptions#${createHash('sha256').update(owner).digest('hex')}`;
}

/** Sort key of a subscription: its ID. */
export function subscriptionSortKey(id: string): string {
  return id;
}

/**
 * A change-stream position (a string of digits of any length, too long for a number) as a number both event stores
 * compare, to tell a redelivered change from a new one. A malformed position is refused.
 */
export function streamPosition(source: string): bigint {
  if (!/^\d+$/.test(source))
    throw new RangeError(`A change-stream position is a string of digits, not ${JSON.stringify(source)}`);
  return BigInt(source);
}
