// A task's event log: each change of what a watcher sees of a task (its status, its message, its workflow's progress,
// the step its execution is in, its open input requests) is one event, numbered 1, 2, 3, … per task in the order the
// changes were written. A client reads the events after a position, by polling or on a stream, and a webhook
// subscription receives them; the number is the position, so a reader that resumes from the last one it saw misses
// nothing and sees nothing twice. Pure: the store assigns the numbers, the projector (lambda/events) decides what is
// news.
import { isTerminal, type TaskStatus } from './task-status.js';
import { openInputRequests } from './input-request.js';
import { statusMessageOf, type TaskProgress } from './task-progress.js';
import type { TaskRecord } from './task.js';

/** What changed, in the words a consumer filters on. */
export const TaskEventChange = {
  Status: 'status',
  StatusMessage: 'statusMessage',
  Progress: 'progress',
  CurrentStep: 'currentStep',
  InputRequests: 'inputRequests',
} as const;
export type TaskEventChange = (typeof TaskEventChange)[keyof typeof TaskEventChange];

/** What a watcher sees of the task right after the change. */
export interface TaskEventSnapshot {
  readonly taskId: string;
  readonly toolName: string;
  readonly status: TaskStatus;
  /** The message every dialect shows (see core/task-progress statusMessageOf). */
  readonly statusMessage?: string;
  readonly progress?: { readonly progress?: number; readonly total?: number };
  readonly currentStep?: string;
  /** Keys of the input requests still waiting for an answer. */
  readonly openInputRequests?: readonly string[];
}

export interface TaskEvent {
  readonly owner: string;
  readonly taskId: string;
  /** The position in the task's log: 1 for its first event, then one more for each. */
  readonly seq: number;
  /** Epoch ms of the change. */
  readonly at: number;
  readonly changes: readonly TaskEventChange[];
  readonly task: TaskEventSnapshot;
  /** Epoch ms after which the event is forgotten with its task; absent while the task has no retention end. */
  readonly expiresAt?: number;
}

/** An event before the store numbers it (and before the projector gives it its task's expiry). */
export type NewTaskEvent = Omit<TaskEvent, 'seq'>;

/** The event a reader, a webhook receiver and a log line all name the event by: the same from every path. */
export function taskEventId(event: Pick<TaskEvent, 'taskId' | 'seq'>): string {
  return `evt_${event.taskId}_${event.seq}`;
}

export function snapshotOf(task: TaskRecord, now: number): TaskEventSnapshot {
  const open = openInputRequests(task.inputRequests).map((request) => request.key);
  const message = statusMessageOf(task, now);
  const progress = task.progress === undefined ? undefined : countOf(task.progress);
  return {
    taskId: task.taskId,
    toolName: task.toolName,
    status: task.status,
    ...(message !== undefined ? { statusMessage: message } : {}),
    ...(progress !== undefined && !isTerminal(task.status) ? { progress } : {}),
    ...(task.currentStep !== undefined && !isTerminal(task.status) ? { currentStep: task.currentStep } : {}),
    ...(open.length > 0 ? { openInputRequests: open.sort() } : {}),
  };
}

function countOf(progress: TaskProgress): TaskEventSnapshot['progress'] {
  if (progress.progress === undefined && progress.total === undefined) return undefined;
  return {
    ...(progress.progress !== undefined ? { progress: progress.progress } : {}),
    ...(progress.total !== undefined ? { total: progress.total } : {}),
  };
}

/**
 * The event a write from `before` to `after` makes, or `null` when a watcher would see nothing new (a refresh that
 * only moved `lastCheckedAt`, a sweep's claim). `before` is absent for a created task. `now` fills in the countdown
 * of a progress message the same way a read would.
 */
export function taskEventOf(before: TaskRecord | undefined, after: TaskRecord, now: number): NewTaskEvent | null {
  const next = snapshotOf(after, now);
  const previous = before === undefined ? undefined : snapshotOf(before, now);
  const changes: TaskEventChange[] = [];
  if (previous === undefined || previous.status !== next.status) changes.push(TaskEventChange.Status);
  if (previous?.statusMessage !== next.statusMessage && previous !== undefined)
    changes.push(TaskEventChange.StatusMessage);
  if (previous !== undefined && progressDiffers(before?.progress, after.progress) && !isTerminal(after.status))
    changes.push(TaskEventChange.Progress);
  if (previous !== undefined && previous.currentStep !== next.currentStep && next.currentStep !== undefined)
    changes.push(TaskEventChange.CurrentStep);
  if (
    previous !== undefined &&
    (previous.openInputRequests ?? []).join('\n') !== (next.openInputRequests ?? []).join('\n')
  )
    changes.push(TaskEventChange.InputRequests);
  if (changes.length === 0) return null;
  return { owner: after.owner, taskId: after.taskId, at: after.lastUpdatedAt, changes, task: next };
}

function progressDiffers(previous: TaskProgress | undefined, next: TaskProgress | undefined): boolean {
  if (next === undefined) return false;
  return (
    previous?.at !== next.at ||
    previous.progress !== next.progress ||
    previous.total !== next.total ||
    previous.message !== next.message
  );
}
