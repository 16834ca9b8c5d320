// The task use cases behind one face: create, poll, wait, cancel, delete, list, and plain calls. Protocol adapters call
// this; it knows nothing of MCP's wire shapes. Each use case lives in its own module and works with the one
// TaskContext built here: task-creation.ts, task-tracker.ts (reads, waits, status events), task-cancellation.ts and
// direct-calls.ts.
import { AuditEvent } from '../core/audit-event.js';
import type { ExecutionSnapshot } from '../core/execution-status.js';
import { pollHintMs, type TaskRecord } from '../core/task.js';
import type { ToolResult } from '../core/tool-result.js';
import type { TaskPage } from '../store/task-store.js';
import { auditTask } from './audit.js';
import { DirectCalls, type DirectOutcome, type PlainOutcome } from './direct-calls.js';
import { TaskCancellation } from './task-cancellation.js';
import { ExecutionReconciler, type ReconcileOptions, type ReconcileReport } from './execution-reconciler.js';
import { taskContext, type TaskContext, type TaskContextParts } from './task-context.js';
import { TaskCreation, type CreateTaskRequest } from './task-creation.js';
import { resultOfTask } from './task-results.js';
import { TaskTracker, type WaitOptions } from './task-tracker.js';

export type TaskServiceOptions = TaskContextParts;

export class TaskService {
  private readonly context: TaskContext;
  private readonly tracker: TaskTracker;
  private readonly creation: TaskCreation;
  private readonly cancellation: TaskCancellation;
  private readonly direct: DirectCalls;
  private readonly reconciler: ExecutionReconciler;

  constructor(options: TaskServiceOptions) {
    this.context = taskContext(options);
    this.tracker = new TaskTracker(this.context);
    this.creation = new TaskCreation(this.context, this.tracker);
    this.cancellation = new TaskCancellation(this.context, this.tracker);
    this.direct = new DirectCalls(this.context, this.tracker, this.creation, this.cancellation);
    this.reconciler = new ExecutionReconciler(this.context, this.tracker);
  }

  /** Stores the task and starts its execution: see {@link TaskCreation.start}. */
  async createTask(request: CreateTaskRequest): Promise<TaskRecord> {
    const { task } = await this.creation.start(request);
    // Hinted as at its creation: its execution has only just started, whatever the start itself took.
    return { ...task, pollIntervalMs: pollHintMs(task, task.createdAt) };
  }

  /**
   * The task as it stands, refreshed from its execution when a refresh is due. Throws `TaskNotFoundError` or
   * `TaskExpiredError`.
   */
  async getTask(owner: string, taskId: string): Promise<TaskRecord> {
    const task = await this.tracker.getTask(owner, taskId);
    return { ...task, pollIntervalMs: pollHintMs(task, this.context.clock.now()) };
  }

  /**
   * Waits until the task is terminal, the wait bound passes or `signal` aborts:
   * see {@link TaskTracker.waitForTerminal}.
   */
  waitForTerminal(owner: string, taskId: string, options: WaitOptions): Promise<TaskRecord> {
    return this.tracker.waitForTerminal(owner, taskId, options);
  }

  /** Stops the execution, then marks the task cancelled: see {@link TaskCancellation.cancel}. */
  cancelTask(owner: string, taskId: string, reason?: string): Promise<TaskRecord> {
    return this.cancellation.cancel(owner, taskId, reason);
  }

  /** Removes the task and its result: see {@link TaskCancellation.delete}. */
  deleteTask(owner: string, taskId: string): Promise<void> {
    return this.cancellation.delete(owner, taskId);
  }

  /** Cancels the task a JSON-RPC request created: see {@link TaskCancellation.cancelByRequest}. */
  cancelByRequest(owner: string, requestId: string, reason: string): Promise<TaskRecord | null> {
    return this.cancellation.cancelByRequest(owner, requestId, reason);
  }

  /**
   * One page of the owner's tasks, newest first, as stored: one query, whatever the tasks' states. Stored statuses
   * are kept current by status events (EventBridge in AWS) and by polls of each task; describing every active task
   * of a page would spend Step Functions' account-wide throttle on a listing.
   */
  async listTasks(owner: string, cursor?: string): Promise<TaskPage> {
    const page = await this.context.store.list(owner, { cursor, limit: this.context.settings.listPageSize });
    const now = this.context.clock.now();
    return { ...page, tasks: page.tasks.map((task) => ({ ...task, pollIntervalMs: pollHintMs(task, now) })) };
  }

  /** Runs a tool for a caller that did not ask for a task: see {@link DirectCalls.runToCompletion}. */
  runToCompletion(...call: Parameters<DirectCalls['runToCompletion']>): Promise<PlainOutcome> {
    return this.direct.runToCompletion(...call);
  }

  /**
   * Runs a tool for a caller that can answer questions, until its result or its first questions:
   * see {@link DirectCalls.runUntilInput}.
   */
  runUntilInput(...call: Parameters<DirectCalls['runUntilInput']>): Promise<DirectOutcome> {
    return this.direct.runUntilInput(...call);
  }

  /** Hands a plain call off to its caller as an ordinary task: see {@link DirectCalls.handOff}. */
  handOffPlainCall(owner: string, task: TaskRecord): Promise<PlainOutcome> {
    return this.direct.handOff(owner, task);
  }

  /** Waits again on a plain call once its answers are delivered: see {@link DirectCalls.resumeDirect}. */
  resumeDirect(...call: Parameters<DirectCalls['resumeDirect']>): Promise<DirectOutcome> {
    return this.direct.resumeDirect(...call);
  }

  /** What the tool call returns for a terminal task, for a client: a result handed out is audited as retrieved. */
  async resultOf(task: TaskRecord): Promise<ToolResult | undefined> {
    const { result, read } = await resultOfTask(this.context.store, task);
    if (result !== undefined) auditTask(this.context.logger, AuditEvent.Retrieved, read);
    return result;
  }

  /**
   * Records what an execution status event reports on the task the execution belongs to:
   * see {@link TaskTracker.recordExecutionEvent}.
   */
  recordExecutionEvent(
    executionArn: string,
    execution: ExecutionSnapshot | 'describe',
    describedArn?: string,
  ): Promise<TaskRecord | null> {
    return this.tracker.recordExecutionEvent(executionArn, execution, describedArn);
  }

  /** Describes the executions of active tasks whose check is due: see {@link ExecutionReconciler}. */
  reconcileDue(options: ReconcileOptions): Promise<ReconcileReport> {
    return this.reconciler.run(options);
  }
}
