// Keeps a task's stored status in step with its execution: reads, waits for a terminal status, execution status
// events, the reconciler's checks, and what follows a terminal status (audit, the owner's active-task slot). Reads and
// waits call no Step Functions API: the status events keep the table current, and the reconciler (bounded by its
// budget) catches what an event lost would leave behind, so DescribeExecution's account-wide throttle is never met by
// the number of clients polling.
import { IllegalTransitionError, TaskExpiredError, TaskNotFoundError } from '../core/errors.js';
import { outcomeOfExecution, type ExecutionSnapshot, type TaskOutcome } from '../core/execution-status.js';
import { inputNeverCameMessage } from '../core/input-request.js';
import { FIRST_WAIT_STEP_MS, nextCheckAt, nextWaitStepMs, type TaskRecord } from '../core/task.js';
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
  constructor(private readonly context: TaskContext) {}

  /** The task as stored. Throws `TaskNotFoundError` or `TaskExpiredError`. */
  getTask(owner: string, taskId: string): Promise<TaskRecord> {
    return this.read(owner, taskId);
  }

  /**
   * Reads the task until it is terminal, the wait bound passes or `signal` aborts; returns the task as last seen
   * (non-terminal when the bound passed first). The pauses start at {@link FIRST_WAIT_STEP_MS} and grow to the poll
   * interval, so the status event of a quick task is seen within moments of its landing in the table.
   */
  async waitForTerminal(owner: string, taskId: string, options: WaitOptions): Promise<TaskRecord> {
    const deadline = this.context.clock.now() + options.timeoutMs;
    // Each read that finds new progress or a new current step is passed on to the waiting stream.
    let seen: TaskRecord | undefined;
    let task: TaskRecord | undefined;
    let failure: unknown;
    const readOnce = async (): Promise<void> => {
      try {
        task = await this.read(owner, taskId);
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
    await readOnce();
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
      await readOnce();
      step = nextWaitStepMs(step, this.context.settings.pollIntervalMs);
    }
    // Not one read succeeded in the whole wait: that failure is the answer.
    if (task === undefined) throw failure;
    return task;
  }

  /**
   * Records what an execution status event reports (pushed by EventBridge in AWS) on the task the execution
   * belongs to. `execution` is described afresh when the event left its output out (or, for a durable execution, has
   * none): then, as for any look at a running execution, its current step is read too, and one not visible yet within
   * the start grace is not news. It is read by `describedArn` when the event names the execution's own ARN (a durable
   * execution's, where the task holds its reference). Duplicate, late and out-of-order events are harmless: a terminal
   * status is never overwritten. Returns `null` when the execution belongs to no live task.
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
    const now = this.context.clock.now();
    return execution === 'describe'
      ? this.recordExecution(task, now, describedArn)
      : this.applyOutcome(task, execution, now);
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

  /** The stored task; an expired one that was still active has its execution stopped, since nobody can read it now. */
  private async read(owner: string, taskId: string): Promise<TaskRecord> {
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
    return task;
  }

  /**
   * The reconciler's check of an active task whose check is due: claimed across instances (moving the task to its
   * next check first, so a check that fails half-way is not retried before then), the execution described, and what
   * it shows recorded. False when another caller claimed it, or the task ended meanwhile. Throws when Step Functions
   * or the store fails; the reconciler counts that and goes on.
   */
  async reconcile(task: TaskRecord): Promise<boolean> {
    const now = this.context.clock.now();
    const next = nextCheckAt(task, now);
    if (!(await this.context.store.claimCheck(task, now, next))) return false;
    await this.recordExecution({ ...task, lastCheckedAt: now, nextCheckAt: next }, now);
    return true;
  }

  /**
   * Describes the task's execution and records what it shows: its status, and a running execution's current step.
   * `executionArn` is the execution's own ARN when a status event named it (a durable execution's), else the task's.
   */
  private async recordExecution(
    task: TaskRecord,
    now: number,
    executionArn: string = task.executionArn,
  ): Promise<TaskRecord> {
    const execution = await this.context.executor.describe(executionArn);
    // DescribeExecution is eventually consistent: a just-started execution may not be visible yet.
    if (execution === null && now - task.createdAt < this.context.settings.startGraceMs) return task;
    // Only a running execution has a current step worth showing; the claim that led here bounds this call too.
    const step = execution?.status === 'RUNNING' ? await this.currentStepOf(task, executionArn) : null;
    return this.applyOutcome(task, execution, now, step !== null && step !== task.currentStep ? step : undefined);
  }

  /** The state the task's execution is in, or `null`. Never fails the check: the step is a hint. */
  private async currentStepOf(task: TaskRecord, executionArn: string): Promise<string | null> {
    try {
      return await this.context.executor.currentStep(executionArn);
    } catch (error) {
      this.context.logger.warn('Could not read the current step', { taskId: task.taskId, error: String(error) });
      return null;
    }
  }

  /** Stores a new current step on a task whose status stays as it is. Never fails the check: the step is a hint. */
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
