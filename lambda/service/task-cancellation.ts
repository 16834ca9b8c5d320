// Ending a task on a client's word: cancel (by task ID or by the creating request's ID) and delete.
import { AuditEvent } from '../core/audit-event.js';
import { IllegalTransitionError, TaskNotFoundError } from '../core/errors.js';
import { ExecutionStatus } from '../contract/execution-status-events.js';
import { type TaskRecord } from '../core/task.js';
import { isTerminal, TaskStatus } from '../core/task-status.js';
import { auditTask } from './audit.js';
import type { TaskContext } from './task-context.js';
import type { TaskTracker } from './task-tracker.js';

export class TaskCancellation {
  constructor(
    private readonly context: TaskContext,
    private readonly tracker: TaskTracker,
  ) {}

  /**
   * Stops the execution, then marks the task cancelled (stop first: it is idempotent, so a failure leaves a
   * task the caller can cancel again). Throws `IllegalTransitionError` for a terminal task.
   */
  async cancel(owner: string, taskId: string, reason = 'Cancelled by the client.'): Promise<TaskRecord> {
    const { store, executor, clock } = this.context;
    const task = await store.get(owner, taskId);
    if (task === null) throw new TaskNotFoundError(taskId);
    if (isTerminal(task.status)) throw new IllegalTransitionError(taskId, task.status, TaskStatus.Cancelled);
    await executor.stop(task.executionArn, { error: 'TaskCancelled', cause: reason });
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
