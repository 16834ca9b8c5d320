// The task store contract: the repository of task records. Every implementation keeps these guarantees; one contract
// suite (test/contract/task-store-contract.ts) holds each implementation to them. Per-owner limits are not here: see
// owner-quotas.ts.
import type { TaskRecord, TaskSummary } from '../core/task.js';
import type { TaskStatus } from '../core/task-status.js';

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
   * The keys (core/task-key) of active tasks whose next check (`TaskRecord.nextCheckAt`) is due at `now`, at most
   * `limit`, those due longest first. May be slightly stale (an index): {@link claimCheck} re-checks.
   */
  findCheckDue(now: number, limit: number): Promise<string[]>;

  /**
   * Claims the check of the task's execution that is due, for one caller across all instances: conditionally on the
   * very task read (same execution), still active, with the same `nextCheckAt`; records `lastCheckedAt: now` and the
   * check after this one, `next`. False when another caller claimed it first, or the task ended or is gone.
   */
  claimCheck(task: TaskRecord, now: number, next: number): Promise<boolean>;

  /**
   * Records the state the task's execution is in (`TaskRecord.currentStep`), conditionally: only on the very task
   * read (same execution) while it is active, so a late write never touches a finished or recreated task. A lost
   * condition is not an error: the step is a hint, refreshed with the next look at the execution.
   */
  recordCurrentStep(task: TaskRecord, step: string): Promise<void>;

  /**
   * Hands a plain call's task (origin `direct`) off to its owner as an ordinary task (origin `handoff`, listed), on the
   * very task read (same execution) while it is active. False when that condition refused it: the task ended first,
   * or is not a plain call's.
   */
  handOff(task: TaskRecord): Promise<boolean>;

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
}
