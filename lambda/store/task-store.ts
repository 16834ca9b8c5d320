// The task store contract. Every implementation keeps these guarantees; the contract tests in test/ hold each one to
// them.
import type { TaskRecord, TaskStatus, TaskSummary } from '../core/task.js';

export interface TaskChange {
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  /** A completed task's raw execution output. */
  readonly output?: string;
  readonly toolError?: boolean;
  /**
   * The state the execution was found in by the refresh that brings this change (`TaskRecord.currentStep`): stored in
   * the same write, so a first refresh (submitted -> working, and a step) costs one UpdateItem, not two.
   */
  readonly currentStep?: string;
  /** Epoch ms of the change. */
  readonly at: number;
}

export interface TaskPage {
  /** Summaries, not whole tasks: a page is read from the owner index, which holds only the summary's fields. */
  readonly tasks: TaskSummary[];
  /** Opaque; present when more tasks may follow. */
  readonly nextCursor?: string;
}

export interface TaskStore {
  /**
   * Stores a new task. MUST NOT overwrite a live task with the same (owner, task ID): throws
   * `TaskAlreadyExistsError`. A task past its retention counts as absent. A task with a `requestId` is
   * stored together with its (owner, request ID) mapping, atomically.
   */
  create(task: TaskRecord): Promise<void>;

  /**
   * The task, or `null` when it does not exist or belongs to another owner (the two are indistinguishable). Throws
   * `TaskExpiredError` when it is past its retention but not swept yet (once swept it is simply absent). Reads are
   * strongly consistent.
   */
  get(owner: string, taskId: string): Promise<TaskRecord | null>;

  /** The live task the owner created with this JSON-RPC request ID (the latest, if the ID was reused), or `null`. */
  findByRequest(owner: string, requestId: string): Promise<TaskRecord | null>;

  /**
   * Moves `task` to `change.status`, conditionally: only if the stored status may legally become it
   * (`canTransition`), so a terminal status is never overwritten by a late writer; `input_required` never becomes
   * `working` here (see `statusesExecutionNewsMayMove`: only the answer path, in the input-request store, does that).
   * Returns the stored record after the change. Throws `IllegalTransitionError` carrying the stored status when the
   * condition fails, `TaskNotFoundError` when the task is gone.
   */
  update(task: TaskRecord, change: TaskChange): Promise<TaskRecord>;

  /**
   * Claims the right to describe the task's execution now: succeeds (true) for at most one caller per
   * `intervalMs` across all instances, false when another caller checked it within that time or it is terminal.
   */
  claimRefresh(task: TaskRecord, now: number, intervalMs: number): Promise<boolean>;

  /**
   * Records the state the task's execution is in (`TaskRecord.currentStep`), conditionally: only on the very task
   * read (same execution) while it is active, so a late write never touches a finished or recreated task. A lost
   * condition is not an error: the step is a hint, refreshed with the next look at the execution.
   */
  recordCurrentStep(task: TaskRecord, step: string): Promise<void>;

  /**
   * The task stored under `key` (see core/task-key), whoever owns it, or `null` when absent or expired.
   * For trusted internal callers only (status events name an execution, not an owner); never for requests.
   */
  getByKey(key: string): Promise<TaskRecord | null>;

  /**
   * The owner's live tasks as summaries, newest first, `limit` at most per page (a page may hold fewer, expired tasks
   * left out, and still have a cursor). A cursor not made by this store for this owner throws `InvalidCursorError`.
   */
  list(owner: string, options: { cursor?: string; limit: number }): Promise<TaskPage>;

  /** Removes the task and its result. Returns false when there was none visible to this owner. */
  delete(owner: string, taskId: string): Promise<boolean>;

  // Per-owner limits. They are shared by every instance on the same storage, so a limit holds across Lambda instances.

  /**
   * Counts one task creation in the owner's window starting at `window.start` (epoch ms, `window.ms` long),
   * conditionally: returns false, counting nothing, when the window already holds `max` creations. Atomic: no
   * two callers can both take the last place.
   */
  countCreation(owner: string, window: { start: number; ms: number }, max: number): Promise<boolean>;

  /**
   * Holds one of the owner's `max` active-task slots for this task, conditionally and atomically: returns
   * false, holding nothing, when `max` other tasks hold one. Idempotent per task: a task that holds a slot
   * keeps it (true) and counts once.
   */
  holdActiveSlot(owner: string, taskId: string, max: number): Promise<boolean>;

  /** Frees the task's active-task slot. Idempotent: a slot freed twice, or never held, changes nothing. */
  releaseActiveSlot(owner: string, taskId: string): Promise<void>;

  /**
   * Frees every slot of the owner whose task is no longer active (terminal, deleted, expired): a repair for a
   * release lost to a crash or a task swept unseen. Returns how many slots it freed.
   */
  reconcileActiveSlots(owner: string): Promise<number>;
}
