// The progress helper of a durable function (written with @aws/durable-execution-sdk-js): the progress step's
// counterpart for a workflow written as code. Each report is one durable step, so it is recorded once: a replay (a
// durable function runs its code again from the start after every wait) returns the checkpointed outcome instead of
// reporting an old message as new.
import type { DurableContext, RetryDecision } from '@aws/durable-execution-sdk-js';
import { SYSTEM_CLOCK, type Clock } from '../core/clock.js';
import type { DurableToolEvent } from '../contract/durable-tool-event.js';
import type { ProgressStore } from '../store/progress-store.js';
import { InvalidProgressReportError, reportProgress, type ProgressStepResult } from './progress-recording.js';

/** What to report: as the progress step's payload (progress-recording.ts), without the execution. */
export interface DurableProgressReport {
  /** A line for a person; `{progress}`, `{total}` and `{secondsLeft}` are filled in when read. */
  readonly message?: string;
  /** Units done so far. */
  readonly progress?: number;
  /** Units done by this report's reporter (concurrent branches each add theirs). */
  readonly increment?: number;
  readonly total?: number;
  /** Seconds until a wait the workflow is entering ends. */
  readonly secondsLeft?: number;
}

export interface DurableProgressOptions {
  readonly store: ProgressStore;
  /** @default SYSTEM_CLOCK */
  readonly clock?: Pick<Clock, 'now'>;
  /** Told of a report that could not be written (it is dropped: progress never fails the workflow). */
  readonly onError?: (error: unknown) => void;
}

/**
 * Reports progress on the task the execution serves. Resolves `{ recorded: false }` when the report was dropped (the
 * task finished or gone, a stale report, or DynamoDB failing); rejects only for a malformed report.
 */
export type DurableReport = (
  context: Pick<DurableContext, 'step'>,
  event: Pick<DurableToolEvent, 'execution'>,
  report: DurableProgressReport,
  /** The step's name in the execution's history. @default 'report progress' */
  name?: string,
) => Promise<ProgressStepResult>;

/** A malformed report is a bug in the workflow: retrying cannot mend it. */
const neverRetry = (): RetryDecision => ({ shouldRetry: false });

/** The progress helper over `options.store`; a durable function's composition root builds it once. */
export function createDurableProgress(options: DurableProgressOptions): DurableReport {
  const clock = options.clock ?? SYSTEM_CLOCK;
  return (context, event, report, name) =>
    context.step(
      name ?? 'report progress',
      () =>
        reportProgress(options.store, { ...report, execution: event.execution }, clock.now()).catch(
          (error: unknown) => {
            // A report is a side note: a throttle or an outage must not fail the workflow (the SDK has retried).
            if (error instanceof InvalidProgressReportError) throw error;
            options.onError?.(error);
            return { recorded: false };
          },
        ),
      { retryStrategy: neverRetry },
    );
}
