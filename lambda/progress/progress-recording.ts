// The progress step's logic: what a state machine's Task state sends, checked, turned into a report and
// recorded on the task its execution belongs to. The Lambda entry point (handlers/report-progress.ts) only wires it up.
import { executionNameOf, taskKeyFromExecutionName } from '../core/task-key.js';
import type { ProgressReport, ProgressStore } from '../store/progress-store.js';

/**
 * The Task state's payload. `execution` is `$$.Execution.Id` (the execution ARN); the rest is what to report:
 * a message (`{progress}` and `{total}` are filled in when read), and either `progress` (units done so far) or
 * `increment` (units done by this report's reporter: one Map iteration, say), with an optional `total`.
 */
export interface ProgressStepEvent {
  readonly execution?: unknown;
  readonly message?: unknown;
  readonly progress?: unknown;
  readonly increment?: unknown;
  readonly total?: unknown;
  /** Seconds until a wait the workflow is entering ends: `{secondsLeft}` in the message counts down from it. */
  readonly secondsLeft?: unknown;
  /** When the report was made: epoch ms or an ISO timestamp (`$$.State.EnteredTime`). @default the step's own clock */
  readonly at?: unknown;
}

export interface ProgressStepResult {
  /** False when the report was dropped: the task is finished, gone or another's, or the report was stale. */
  readonly recorded: boolean;
}

/** A payload the step cannot use: a mistake in the state machine, so the Task state fails and says why. */
export class InvalidProgressReportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidProgressReportError';
  }
}

/** A status message longer than this is cut: it is a line for a person, and it rides on every tasks/get. */
export const MAX_PROGRESS_MESSAGE_LENGTH = 500;

export function progressReportOf(
  event: ProgressStepEvent,
  now: number,
): { executionArn: string; report: ProgressReport } {
  const { execution, message, progress, increment, total, secondsLeft, at } = event ?? {};
  if (typeof execution !== 'string' || !execution.startsWith('arn:'))
    throw new InvalidProgressReportError('execution must be the execution ARN ($$.Execution.Id)');
  const count = (name: string, value: unknown): number | undefined => {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
      throw new InvalidProgressReportError(`${name} must be a number, 0 or more`);
    return value;
  };
  const report = {
    progress: count('progress', progress),
    increment: count('increment', increment),
    total: count('total', total),
  };
  const waitSeconds = count('secondsLeft', secondsLeft);
  if (report.progress !== undefined && report.increment !== undefined)
    throw new InvalidProgressReportError('send progress or increment, not both');
  if (message !== undefined && message !== null && typeof message !== 'string')
    throw new InvalidProgressReportError('message must be a string');
  if (
    message == null &&
    report.progress === undefined &&
    report.increment === undefined &&
    report.total === undefined
  ) {
    throw new InvalidProgressReportError('report a message, progress, increment or total');
  }
  const when = typeof at === 'number' ? at : typeof at === 'string' ? Date.parse(at) : now;
  if (!Number.isFinite(when)) throw new InvalidProgressReportError('at must be epoch milliseconds or an ISO timestamp');
  return {
    executionArn: execution,
    report: Object.fromEntries(
      Object.entries({
        ...report,
        message: typeof message === 'string' ? message.slice(0, MAX_PROGRESS_MESSAGE_LENGTH) : undefined,
        deadline: waitSeconds === undefined ? undefined : when + waitSeconds * 1000,
        at: when,
      }).filter(([, value]) => value !== undefined),
    ) as unknown as ProgressReport,
  };
}

/** Records one report. An execution this backend did not start (its name carries no task key) is ignored. */
export async function reportProgress(
  store: ProgressStore,
  event: ProgressStepEvent,
  now: number = Date.now(),
): Promise<ProgressStepResult> {
  const { executionArn, report } = progressReportOf(event, now);
  const key = taskKeyFromExecutionName(executionNameOf(executionArn));
  if (key === null) return { recorded: false };
  return { recorded: (await store.record(key, executionArn, report)) !== null };
}
