// Progress a workflow reports on its task: a message, a count and a total, stored on the task by the
// progress step (lambda/progress). Pure: how it reads as a status message and when it counts as news.
import { isTerminal, type TaskStatus } from './task-status.js';

/** What a task shows of its workflow's activity (the fields of `TaskRecord` these functions read). */
interface TaskActivity {
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  readonly progress?: TaskProgress;
  readonly currentStep?: string;
}

export interface TaskProgress {
  /**
   * What the workflow says it is doing. May hold `{progress}` and `{total}`, filled in when read, so Map iterations
   * that count concurrently share one message and it always shows the stored count, whichever report wrote it last.
   */
  readonly message?: string;
  /** Units of work done so far (e.g. Map iterations); never decreases. */
  readonly progress?: number;
  /** Units of work in all, when known. */
  readonly total?: number;
  /** Epoch ms a wait the workflow announced ends: `{secondsLeft}` in the message counts down to it when read. */
  readonly deadline?: number;
  /** Epoch ms of the report that last changed it (the report's own time, so a late report is recognised). */
  readonly at: number;
}

/** The progress as one line: the message with its placeholders filled in, or the count alone ("3 of 5"). */
export function progressText(progress: TaskProgress | undefined, now: number = Date.now()): string | undefined {
  if (progress === undefined) return undefined;
  const count = progress.progress ?? 0;
  const total = progress.total === undefined ? '?' : String(progress.total);
  const secondsLeft =
    progress.deadline === undefined ? '?' : String(Math.max(0, Math.ceil((progress.deadline - now) / 1000)));
  if (progress.message !== undefined) {
    return progress.message
      .replace(/\{progress\}/g, String(count))
      .replace(/\{total\}/g, total)
      .replace(/\{secondsLeft\}/g, secondsLeft);
  }
  if (progress.progress === undefined) return undefined;
  return progress.total === undefined ? `${count} done` : `${count} of ${total}`;
}

/**
 * The statusMessage every dialect shows: the status's own message (a failure's reason, a cancellation's cause) when
 * there is one, else while the task is active the workflow's progress, or, when it reported none, the state its
 * execution was last seen in. A finished task's last progress and step are history.
 */
export function statusMessageOf(task: TaskActivity, now: number = Date.now()): string | undefined {
  if (task.statusMessage !== undefined) return task.statusMessage;
  if (isTerminal(task.status)) return undefined;
  return activityText(task, now);
}

/** What the workflow is doing, as one line: its reported progress, else the state its execution was last seen in. */
export function activityText(
  task: Pick<TaskActivity, 'progress' | 'currentStep'>,
  now: number = Date.now(),
): string | undefined {
  return progressText(task.progress, now) ?? currentStepText(task.currentStep);
}

/** How the current step reads as a status message. */
export function currentStepText(step: string | undefined): string | undefined {
  return step === undefined ? undefined : `Running ${step}`;
}

/**
 * Whether a read of a task brings a watcher news of its activity: progress the workflow reported, or a new current
 * step (a refresh found the execution in another state). Status changes are the watcher's own business.
 */
export function activityChanged(
  previous: Pick<TaskActivity, 'progress' | 'currentStep'> | undefined,
  next: Pick<TaskActivity, 'progress' | 'currentStep'>,
): boolean {
  return (
    progressChanged(previous?.progress, next.progress) ||
    (next.currentStep !== undefined && next.currentStep !== previous?.currentStep)
  );
}

/** Whether `next` tells a watcher something `previous` did not. */
export function progressChanged(previous: TaskProgress | undefined, next: TaskProgress | undefined): boolean {
  if (next === undefined) return false;
  return (
    previous === undefined ||
    previous.at !== next.at ||
    previous.progress !== next.progress ||
    previous.message !== next.message ||
    previous.total !== next.total
  );
}
