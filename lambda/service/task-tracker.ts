// Keeps a task's stored status in step with its execution: reads refreshed from Step Functions when due, waits for a
// terminal status, execution status events, and what follows a terminal status (audit, the owner's active-task slot).
// The task service builds one and delegates to it; reads never call Step Functions more often than the refresh
// policy in core/task.ts allows, so DescribeExecution's account-wide throttle stays out of reach.
import { IllegalTransitionError, TaskExpiredError, TaskNotFoundError } from '../core/errors.js';
import { outcomeOfExecution, type ExecutionSnapshot, type TaskOutcome } from '../core/execution-status.js';
import { inputNeverCameMessage } from '../core/input-request.js';
import {
  FIRST_WAIT_STEP_MS,
  isRefreshDue,
  nextWaitStepMs,
  pollRefreshIntervalMs,
  type TaskRecord,
} from '../core/task.js';
import { isTerminal, TaskStatus } from '../core/task-status.js';
import { activityChanged } from '../core/task-progress.js';
import { executionNameOf, taskKeyFromExecutionName } from '../core/task-key.js';
import { terminalEvent } from '../core/audit-event.js';
import { auditTask } from './audit.js';
import { EXPIRED_STOP_REASON } from './expiry-sweep-service.js';
import type { TaskContext } from './task-context.js';

export interface WaitOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /**
   * Called with the task whenever a read finds progress its workflow reported, or a new current step, since the last
   * call.
   */
  readonly onProgress?: (task: TaskRecord) => Promise<void> | void;
  /** Called with the task after every read, whatever changed (a stream passes on new input requests). */
  readonly onRead?: (task: TaskRecord) => Promise<void> | void;
  /** Also ends the wait when this holds for a read of the task (a plain call stops at its first question, SEP-2322). */
  readonly until?: (task: TaskRecord) => boolean;
}

export class TaskTracker {
  /** The least time between two refreshes that polls claim (see {@link pollRefreshIntervalMs}). */
  private readonly pollRefreshMs: number;

  constructor(private readonly context: TaskContext) {
    this.pollRefreshMs = pollRefreshIntervalMs(context.settings.refreshIntervalMs);
  }

  /**
   * The task as it stands, refreshed from its execution when a refresh is due. Throws `TaskNotFoundError` or
   * `TaskExpiredError`.
   */
  getTask(owner: string, taskId: string): Promise<TaskRecord> {
    return this.read(owner, taskId, this.pollRefreshMs);
  }

  /**
   * Polls until the task is terminal, the wait bound passes or `signal` aborts; returns the task as last seen
   * (non-terminal when the bound passed first). The pauses start at {@link FIRST_WAIT_STEP_MS} and grow to the
   * refresh interval; each one may describe the execution (claimed in the store, so several waiters on one task
   * share it), and the store is read at least once per poll interval, where status events land.
   */
  async waitForTerminal(owner: string, taskId: string, options: WaitOptions): Promise<TaskRecord> {
    const deadline = this.context.clock.now() + options.timeoutMs;
    // Each read that finds new progress or a new current step is passed on to the waiting stream.
    let seen: TaskRecord | undefined;
    let task: TaskRecord | undefined;
    let failure: unknown;
    const readOnce = async (refreshAfterMs: number): Promise<void> => {
      try {
        task = await this.read(owner, taskId, refreshAfterMs);
      } catch (error) {
        if (error instanceof TaskNotFoundError || error instanceof TaskExpiredError) throw error;
        // A read that failed (throttled, unreachable) says nothing of the task: the wait goes on and reads again.
        failure = error;
        this.context.logger.warn('Could not read the task while waiting', { taskId, error: String(error) });
        return;
      }
      if (options.onProgress !== undefined && activityChanged(seen, task)) {
        seen = task;
        await options.onProgress(task);
      }
      await options.onRead?.(task);
    };
    await readOnce(this.pollRefreshMs);
    let step = FIRST_WAIT_STEP_MS;
    while (
      (task === undefined || (!isTerminal(task.status) && !options.until?.(task))) &&
      this.context.clock.now() < deadline &&
      !options.signal?.aborted
    ) {
      await this.context.clock.sleep(
        Math.min(step, task?.pollIntervalMs ?? step, deadline - this.context.clock.now()),
        options.signal,
      );
      await readOnce(Math.min(step, this.pollRefreshMs));
      step = nextWaitStepMs(step, this.context.settings.refreshIntervalMs);
    }
    // Not one read succeeded in the whole wait: that failure is the answer.
    if (task === undefined) throw failure;
    return task;
  }

  /**
   * Records what an execution status event reports (pushed by EventBridge in AWS) on the task the execution
   * belongs to. `execution` is described afresh when the event left its output out (or, for a durable execution, has
   * none), by `describedArn` when the event names the execution's own ARN (a durable execution's, where the task holds
   * its reference). Duplicate, late and out-of-order events are harmless: a terminal status is never overwritten.
   * Returns `null` when the execution belongs to no live task.
   */
  async recordExecutionEvent(
    executionArn: string,
    execution: ExecutionSnapshot | 'describe',
    describedArn: string = executionArn,
  ): Promise<TaskRecord | null> {
    const key = taskKeyFromExecutionName(executionNameOf(executionArn));
    const task = key === null ? null : await this.context.store.getByKey(key);
    // Another execution than the task's own (an older task under a reused ID, another machine): not this task's news.
    if (task === null || task.executionArn !== executionArn) return null;
    if (isTerminal(task.status)) return task;
    const snapshot = execution === 'describe' ? await this.context.executor.describe(describedArn) : execution;
    return this.applyOutcome(task, snapshot, this.context.clock.now());
  }

  /**
   * What follows a terminal status this caller recorded (conditional writes make that once per task): audit it, free
   * the slot.
   */
  async finished(task: TaskRecord): Promise<TaskRecord> {
    auditTask(this.context.logger, terminalEvent(task.status), task);
    this.context.metrics.taskEvent(
      terminalEvent(task.status),
      task.toolName,
      (task.completedAt ?? this.context.clock.now()) - task.createdAt,
    );
    await this.releaseActiveSlot(task);
    return task;
  }

  /**
   * Frees the task's active-task slot, logging instead of throwing: a lost release is repaired when the owner's slots
   * look full.
   */
  async releaseActiveSlot(task: TaskRecord): Promise<void> {
    await this.context.quotas.releaseActiveSlot(task.owner, task.taskId).catch((error: unknown) => {
      this.context.logger.warn('Could not free an active-task slot', { taskId: task.taskId, error: String(error) });
    });
  }

  /** The stored task, refreshed when its execution was not described within `refreshAfterMs`. */
  private async read(owner: string, taskId: string, refreshAfterMs: number): Promise<TaskRecord> {
    let task;
    try {
      task = await this.context.store.get(owner, taskId);
    } catch (error) {
      // Nobody can read an expired task any more, so its execution must not run on unseen.
      if (error instanceof TaskExpiredError && error.task !== undefined && !isTerminal(error.task.status)) {
        await this.context.executor.stop(error.task.executionArn, EXPIRED_STOP_REASON).catch(() => undefined);
        await this.releaseActiveSlot(error.task);
      }
      throw error;
    }
    if (task === null) throw new TaskNotFoundError(taskId);
    return isRefreshDue(task, this.context.clock.now(), refreshAfterMs) ? this.refresh(task, refreshAfterMs) : task;
  }

  private async refresh(task: TaskRecord, intervalMs: number): Promise<TaskRecord> {
    const now = this.context.clock.now();
    let claimed;
    try {
      claimed = await this.context.store.claimRefresh(task, now, intervalMs);
    } catch (error) {
      // The claim could not be written (throttled, unreachable): answer with what is stored, as a lost claim would.
      this.context.logger.warn('Could not claim the refresh', { taskId: task.taskId, error: String(error) });
      return task;
    }
    if (!claimed) return task;
    let execution;
    try {
      execution = await this.context.executor.describe(task.executionArn);
    } catch (error) {
      // Throttled or unreachable: answer with what is stored; the next poll tries again.
      this.context.logger.warn('Could not describe execution', { taskId: task.taskId, error: String(error) });
      return task;
    }
    // DescribeExecution is eventually consistent: a just-started execution may not be visible yet.
    if (execution === null && now - task.createdAt < this.context.settings.startGraceMs)
      return { ...task, lastCheckedAt: now };
    // Only a running execution has a current step worth showing; the refresh claim above bounds this call too.
    const step = execution?.status === 'RUNNING' ? await this.currentStepOf(task) : null;
    const checked = { ...task, lastCheckedAt: now };
    try {
      return await this.applyOutcome(
        checked,
        execution,
        now,
        step !== null && step !== task.currentStep ? step : undefined,
      );
    } catch (error) {
      if (error instanceof TaskNotFoundError || error instanceof TaskExpiredError) throw error;
      // The store could not record the news (throttled, unreachable): answer with what is stored; the next
      // poll sees the execution again and retries the write.
      this.context.logger.warn('Could not record the execution status', { taskId: task.taskId, error: String(error) });
      return checked;
    }
  }

  /** The state the task's execution is in, or `null`. Never fails the poll: the step is a hint. */
  private async currentStepOf(task: TaskRecord): Promise<string | null> {
    try {
      return await this.context.executor.currentStep(task.executionArn);
    } catch (error) {
      this.context.logger.warn('Could not read the current step', { taskId: task.taskId, error: String(error) });
      return null;
    }
  }

  /** Stores a new current step on a task whose status stays as it is. Never fails the poll: the step is a hint. */
  private async recordCurrentStep(task: TaskRecord, step: string): Promise<TaskRecord> {
    try {
      await this.context.store.recordCurrentStep(task, step);
      return { ...task, currentStep: step };
    } catch (error) {
      this.context.logger.warn('Could not record the current step', { taskId: task.taskId, error: String(error) });
      return task;
    }
  }

  /**
   * Records what the execution's status means for the task; `currentStep`, a step the task does not show yet, rides
   * on the same write when the status moves (one UpdateItem for a first refresh), or is written alone when it does not.
   */
  private async applyOutcome(
    task: TaskRecord,
    execution: ExecutionSnapshot | null,
    now: number,
    currentStep?: string,
  ): Promise<TaskRecord> {
    const outcome = withInputNews(task, outcomeOfExecution(execution), execution?.error);
    // A running execution waiting for an answer stays input_required (the store refuses that move, too, for a race).
    const stays =
      outcome.status === task.status ||
      (task.status === TaskStatus.InputRequired && outcome.status === TaskStatus.Working);
    if (stays) return currentStep === undefined ? task : this.recordCurrentStep(task, currentStep);
    try {
      const updated = await this.context.store.update(task, {
        ...outcome,
        at: now,
        ...(currentStep !== undefined ? { currentStep } : {}),
      });
      return isTerminal(updated.status) ? await this.finished(updated) : updated;
    } catch (error) {
      if (!(error instanceof IllegalTransitionError)) throw error;
      // Someone else recorded a terminal status first; theirs stands.
      const current = await this.context.store.get(task.owner, task.taskId);
      if (current === null) throw new TaskNotFoundError(task.taskId, { cause: error });
      return current;
    }
  }
}

/** A failure while the workflow still waited for input says so: the input never came. */
function withInputNews(task: TaskRecord, outcome: TaskOutcome, executionError: string | undefined): TaskOutcome {
  if (outcome.status !== TaskStatus.Failed) return outcome;
  const message = inputNeverCameMessage(task.inputRequests, outcome.statusMessage, executionError);
  return message === undefined ? outcome : { ...outcome, statusMessage: message };
}
