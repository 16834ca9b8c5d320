// The UpdateItem that records a TaskChange on a task item: the new status and what comes with it, and, for a terminal
// status, the task's retention end and its leaving the expiry sweep's index.
import { TASK_ATTRIBUTE as A } from '../contract/task-item-attributes.js';
import {
  ACTIVE_EXPIRY_PARTITION_KEY,
  CHECK_DUE_PARTITION_KEY,
  EXPIRY_MS_ATTRIBUTE,
  TTL_ATTRIBUTE,
} from '../contract/task-table-schema.js';
import { expiresAt, type TaskRecord } from '../core/task.js';
import { isTerminal } from '../core/task-status.js';
import type { TaskChange } from './task-store.js';

export interface UpdateParts {
  readonly updateExpression: string;
  readonly names: Record<string, string>;
  readonly values: Record<string, unknown>;
}

/** SET and REMOVE clauses for `change` on `task`; names are `#<attribute>`, values `:<attribute>`. */
export function taskChangeUpdate(task: TaskRecord, change: TaskChange): UpdateParts {
  const sets: Record<string, unknown> = {
    [A.status]: change.status,
    [A.lastUpdatedAt]: change.at,
    [A.statusMessage]: change.statusMessage,
    [A.output]: change.output,
    [A.toolError]: change.toolError === true ? true : undefined,
    [A.currentStep]: change.currentStep,
  };
  const removes: string[] = change.statusMessage === undefined ? [A.statusMessage] : [];
  if (isTerminal(change.status)) {
    sets[A.completedAt] = change.at;
    // Out of the expiry sweep's and the reconciler's indexes: a terminal task has no execution left to stop or check.
    removes.push(ACTIVE_EXPIRY_PARTITION_KEY, CHECK_DUE_PARTITION_KEY, A.nextCheckAt);
    const end = expiresAt({ ...task, completedAt: change.at });
    if (end === null) removes.push(TTL_ATTRIBUTE, EXPIRY_MS_ATTRIBUTE);
    else Object.assign(sets, { [TTL_ATTRIBUTE]: Math.ceil(end / 1000), [EXPIRY_MS_ATTRIBUTE]: end });
  }
  const setNames = Object.keys(sets).filter((name) => sets[name] !== undefined);
  const names = Object.fromEntries([...setNames, ...removes].map((name) => [`#${name}`, name]));
  const values = Object.fromEntries(setNames.map((name) => [`:${name}`, sets[name]]));
  const set = `SET ${setNames.map((name) => `#${name} = :${name}`).join(', ')}`;
  const remove = removes.length > 0 ? ` REMOVE ${removes.map((name) => `#${name}`).join(', ')}` : '';
  return { updateExpression: set + remove, names, values };
}
