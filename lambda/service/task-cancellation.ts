// Ending a task on a client's word: cancel (by task ID or by the creating request's ID) and delete.
import { AuditEvent } from '../core/audit-event.js';
import {
  ExecutionStopError,
  IllegalTransitionError,
  ServiceBusyError,
  TaskBackendError,
  TaskNotFoundError,
} from '../core/errors.js';
import { ExecutionStatus } from '../contract/execution-status-events.js';
import { type TaskRecord } from '../core/task.js';
import { isTerminal, TaskStatus } from '../core/task-status.js';
import { auditTask } from './audit.js';
import { isEngineRefusal } from '../executor/task-executor.js';
import type { TaskContext } from './task-context.js';
import type { TaskTracker } from './task-tracker.js';

/**
 * The pauses between a cancel's stop attempts. The SDK has already retried each attempt (AWS_CLIENT_BOUNDS), so these
 * ride out a fault that outlasts its retries, a moment of a service's 500s or throttles, without a client round trip.
 */
const STOP_RETRY_PAUSES_MS = [250, 500, 1_000] as const;
/**
 * No stop attempt starts later than this after the first: a hung endpoint takes about 10 s an attempt (the SDK's
 * bounds), and the answer must leave before API Gateway's 29 s.
 */
const STOP_RETRY_BUDGET_MS = 5_000;
/** When a client whose cancel found the engine still failing may try again: past the retries just spent. */
const STOP_RETRY_AFTER_SECONDS = 2;

export interface CancelOptions {
  /**
   * Whether a failed stop is tried again within the bounds above; without, one attempt (a plain call whose start went
   * unanswered gives up at once). @default true
   */
  readonly retryStop?: boolean;
}

export class TaskCancellation {
  constructor(
    private readonly context: TaskContext,
    private readonly tracker: TaskTracker,
  ) {}

  /**
   * Stops the execution, then marks the task cancelled (stop first: it is idempotent, so a failure leaves a
   * task the caller can cancel again). Throws `IllegalTransitionError` for a terminal task, and
   * `ExecutionStopError` when the engine kept failing the stop (the task is left as it was).
   */
  async cancel(
    owner: string,
    taskId: string,
    reason = 'Cancelled by the client.',
    options: CancelOptions = {},
  ): Promise<TaskRecord> {
    const { store, clock } = this.context;
    const task = await store.get(owner, taskId);
    if (task === null) throw new TaskNotFoundError(taskId);
    if (isTerminal(task.status)) throw new IllegalTransitionError(taskId, task.status, TaskStatus.Cancelled);
    await this.stop(task, reason, options.retryStop ?? true);
    const ended = await this.endedBeforeStop(task);
    if (ended !== null) throw new IllegalTransitionError(taskId, ended.status, TaskStatus.Cancelled);
    try {
      return await this.tracker.finished(
        await store.update(task, { status: TaskStatus.Cancelled, statusMessage: reason, at: clock.now() }),
      );
    } catch (error) {
      // A poll that saw the stopped execution may have recorded the cancellation first.
      if (error instanceof IllegalTransitionError && error.from === TaskStatus.Cancelled)
        return this.tracker.getTask(owner, taskId);
      throw error;
    }
  }

  /**
   * Cancels the task the owner created with this JSON-RPC request ID (SEP-1686 `notifications/cancelled`).
   * Returns `null`, changing nothing, when there is no such task or it is already terminal.
   */
  async cancelByRequest(owner: string, requestId: string, reason: string): Promise<TaskRecord | null> {
    const task = await this.context.store.findByRequest(owner, requestId);
    if (task === null || isTerminal(task.status)) return null;
    try {
      return await this.cancel(owner, task.taskId, reason);
    } catch (error) {
      if (error instanceof IllegalTransitionError || error instanceof TaskNotFoundError) return null;
      throw error;
    }
  }

  /**
   * Removes the task and its result at once, in any status; an active task's execution is stopped first.
   * Throws `TaskNotFoundError` when there is no such task.
   */
  async delete(owner: string, taskId: string): Promise<void> {
    const { store, executor, logger } = this.context;
    const task = await store.get(owner, taskId);
    if (task === null) throw new TaskNotFoundError(taskId);
    if (!isTerminal(task.status))
      await executor.stop(task.executionArn, { error: 'TaskDeleted', cause: 'The client deleted the task.' });
    if (!(await store.delete(owner, taskId))) throw new TaskNotFoundError(taskId);
    await this.tracker.releaseActiveSlot(task);
    auditTask(logger, AuditEvent.Deleted, task);
  }

  /**
   * Stops the task's execution, sending the stop again on a fault (not on a refusal) within the bounds above. A
   * throttle that outlasts them stays a `ServiceBusyError`; any other fault becomes `ExecutionStopError`: either way
   * the client is told to retry, not that the server failed.
   */
  private async stop(task: TaskRecord, reason: string, retry: boolean): Promise<void> {
    const { executor, clock, logger } = this.context;
    const started = clock.now();
    for (let attempt = 0; ; attempt++) {
      try {
        return await executor.stop(task.executionArn, { error: 'TaskCancelled', cause: reason });
      } catch (error) {
        if (!mayMendOnRetry(error)) throw error;
        logger.warn('Could not stop the execution of a cancelled task', {
          taskId: task.taskId,
          attempt: attempt + 1,
          error: String(error),
        });
        const pause = STOP_RETRY_PAUSES_MS[attempt];
        if (!retry || pause === undefined || clock.now() + pause - started > STOP_RETRY_BUDGET_MS) {
          if (error instanceof ServiceBusyError) throw error;
          throw new ExecutionStopError(task.taskId, STOP_RETRY_AFTER_SECONDS, { cause: error });
        }
        await clock.sleep(pause);
      }
    }
  }

  /**
   * The task as its execution ended on its own before a stop: StopExecution succeeds on an ended execution and changes
   * nothing, so a task whose store status lags (an answer resumed it and it finished since the last read) would else be
   * marked cancelled although its execution succeeded. Records that outcome and returns it; `null` when the stop won,
   * or when the execution cannot be read (the cancel stands, as it did before this check).
   */
  private async endedBeforeStop(task: TaskRecord): Promise<TaskRecord | null> {
    const execution = await this.context.executor.describe(task.executionArn).catch((error: unknown) => {
      this.context.logger.warn('Could not read a stopped execution', { taskId: task.taskId, error: String(error) });
      return null;
    });
    const status = execution?.status;
    if (
      execution === null ||
      (status !== ExecutionStatus.Succeeded && status !== ExecutionStatus.Failed && status !== ExecutionStatus.TimedOut)
    )
      return null;
    const recorded = await this.tracker.recordExecutionEvent(task.executionArn, execution);
    return recorded !== null && isTerminal(recorded.status) && recorded.status !== TaskStatus.Cancelled
      ? recorded
      : null;
  }
}

/**
 * A stop that failed for a fault of the engine or of the way to it (a 5xx, a timeout, a lost connection, a throttle),
 * which the same stop may get past; not a refusal, nor one of this backend's own answers (no engine configured for
 * the task).
 */
function mayMendOnRetry(error: unknown): boolean {
  if (error instanceof ServiceBusyError) return true;
  return !(error instanceof TaskBackendError) && !isEngineRefusal(error);
}
