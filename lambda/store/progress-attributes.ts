// Where a task item keeps the progress its workflow reports: top-level attributes, so a report can
// ADD to the count atomically and conditions can compare it, which a nested map would not allow before it exists.
import type { TaskProgress } from '../core/task-progress.js';

export const PROGRESS_ATTRIBUTES = {
  message: 'progressMessage',
  count: 'progressCount',
  total: 'progressTotal',
  at: 'progressAt',
  deadline: 'progressDeadline',
} as const;

/** The progress held in a task item, or `undefined` when its workflow never reported any. */
export function progressFromItem(item: Record<string, unknown>): TaskProgress | undefined {
  const at = item[PROGRESS_ATTRIBUTES.at];
  if (typeof at !== 'number') return undefined;
  const message = item[PROGRESS_ATTRIBUTES.message];
  const progress = item[PROGRESS_ATTRIBUTES.count];
  const total = item[PROGRESS_ATTRIBUTES.total];
  const deadline = item[PROGRESS_ATTRIBUTES.deadline];
  return {
    at,
    ...(typeof message === 'string' ? { message } : {}),
    ...(typeof progress === 'number' ? { progress } : {}),
    ...(typeof total === 'number' ? { total } : {}),
    ...(typeof deadline === 'number' ? { deadline } : {}),
  };
}
