// The task use cases over the store, the executor and the tool registry: create, poll, wait, cancel, list, and plain
// calls. Protocol adapters call this; it knows nothing of MCP's wire shapes. Polling lives in task-tracker.ts and the
// plain-call path in direct-calls.ts; this service builds both and delegates to them.
import { createHash, randomBytes } from 'node:crypto';
import {
  ExecutionStartError,
  IllegalTransitionError,
  TaskAlreadyExistsError,
  TaskExpiredError,
  TaskLimitExceededError,
  TaskNotFoundError,
} from '../core/errors.js';
import { ExecutionStatus, type ExecutionSnapshot } from '../core/execution-status.js';
import {
  isTerminal,
  RetentionClock,
  TaskOrigin,
  TaskStatus,
  toolResultOf,
  type Retention,
  type TaskRecord,
} from '../core/task.js';
import { executionNameFor, executionNameOf, newExecutionNonce, taskKey } from '../core/task-key.js';
import type { ToolResult } from '../core/tool-result.js';
import type { StartRequest, TaskExecutor } from '../executor/task-executor.js';
import type { TaskPage, TaskStore } from '../store/task-store.js';
import type { ToolRegistry } from '../tools/tool-registry.js';
import { audit, AuditEvent, auditTask } from './audit.js';
import { DirectCalls, type DirectOutcome } from './direct-calls.js';
import { NO_TASK_METRICS, type TaskMetrics } from './task-metrics.js';
import { sleep } from './sleep.js';
import type { TaskServiceSettings } from './settings.js';
import { TaskTracker, type WaitOptions } from './task-tracker.js';

/** Reads of a just-started task before a withdrawal check gives up (a short outage must not cancel live work). */
const WITHDRAWAL_READ_ATTEMPTS = 4;
/** First backoff between those reads, doubled each time (50, 100, 200 ms). */
const WITHDRAWAL_READ_BACKOFF_MS = 50;
/** The window of the per-owner creation limit. */
const CREATION_WINDOW_MS = 60_000;

export type { DirectOutcome, DirectWaitOptions } from './direct-calls.js';

export interface Logger {
  info(message: string, extra: Record<string, unknown>): void;
  warn(message: string, extra: Record<string, unknown>): void;
  error(message: string, extra: Record<string, unknown>): void;
}

export interface TaskServiceOptions {
  readonly store: TaskStore;
  readonly executor: TaskExecutor;
  readonly tools: ToolRegistry;
  readonly settings: TaskServiceSettings;
  readonly logger: Logger;
  /** Per-tool counts of lifecycle events, made beside each audit record. @default NO_TASK_METRICS */
  readonly metrics?: TaskMetrics;
  /** @default Date.now */
  readonly now?: () => number;
}

export interface CreateTaskRequest {
  readonly owner: string;
  readonly toolName: string;
  readonly arguments: Record<string, unknown>;
  readonly origin: TaskOrigin;
  /** Requested retention in ms; capped at the configured maximum. */
  readonly requestedRetentionMs?: number;
  /** A client-made task ID (SEP-1686); the server makes one (128 random bits) when absent. */
  readonly taskId?: string;
  /** The JSON-RPC ID of the creating request, kept so `notifications/cancelled` can find the task. */
  readonly requestId?: string;
}

export class TaskService {
  private readonly store: TaskStore;
  private readonly executor: TaskExecutor;
  private readonly tools: ToolRegistry;
  private readonly settings: TaskServiceSettings;
  private readonly logger: Logger;
  private readonly metrics: TaskMetrics;
  private readonly now: () => number;
  /** Reads, waits and status events: keeping stored status in step with the executions. */
  private readonly tracker: TaskTracker;
  /** Plain calls: tools/calls answered inline, with input rounds. */
  private readonly direct: DirectCalls;

  constructor(options: TaskServiceOptions) {
    this.store = options.store;
    this.executor = options.executor;
    this.tools = options.tools;
    this.settings = options.settings;
    this.logger = options.logger;
    this.metrics = options.metrics ?? NO_TASK_METRICS;
    this.now = options.now ?? Date.now;
    this.tracker = new TaskTracker({
      store: this.store,
      executor: this.executor,
      settings: this.settings,
      logger: this.logger,
      metrics: this.metrics,
      now: this.now,
    });
    this.direct = new DirectCalls({
      tracker: this.tracker,
      store: this.store,
      settings: this.settings,
      logger: this.logger,
      createAndStart: (request) => this.createAndStart(request),
      cancelTask: (owner, taskId, reason) => this.cancelTask(owner, taskId, reason),
      resultOf: async (task) => (await this.resultFor(task)).result,
      stopBestEffort: (task, cause) => this.stopBestEffort(task, cause),
    });
  }

  /**
   * Validates the call, stores the task, then starts its execution. The record is written first so that
   * no execution can ever run without a task that finds it; the execution name is stored in the record, so
   * a repeated start can only find the same execution. If Step Functions refuses for good, the record is
   * removed and `ExecutionStartError` thrown; if its answer is lost, the task stays `submitted` and the
   * next poll reconciles it (a missing execution past the start grace period fails the task).
   *
   * A client-made task ID that is already taken throws `TaskAlreadyExistsError`; when the taken task was
   * created by this very call (same tool, same input) and is still active, its start is issued again
   * first, which can only find the existing execution, so a retry repairs an attempt that died between
   * its two writes and never runs the work twice.
   *
   * Per-owner limits come first: past the creations per minute, or with the owner's active-task slots all held,
   * it throws `TaskLimitExceededError` and nothing is kept or started (a task stored before its slot was refused is
   * removed again before any start).
   */
  async createTask(request: CreateTaskRequest): Promise<TaskRecord> {
    return (await this.createAndStart(request)).task;
  }

  /** {@link createTask}, also telling whether Step Functions confirmed the start (`false`: its outcome is unknown). */
  private async createAndStart(request: CreateTaskRequest): Promise<{ task: TaskRecord; started: boolean }> {
    const tool = this.tools.get(request.toolName);
    this.tools.validateArguments(tool.name, request.arguments);
    const now = this.now();
    await this.countCreation(request, tool.name, now);
    const taskId = request.taskId ?? randomBytes(16).toString('hex');
    const executionName = executionNameFor(taskKey(request.owner, taskId), newExecutionNonce());
    const start = { stateMachineArn: tool.stateMachineArn, executionName, input: JSON.stringify(request.arguments) };
    const task: TaskRecord = {
      taskId,
      owner: request.owner,
      toolName: tool.name,
      origin: request.origin,
      executionArn: this.executor.executionArnFor(tool.stateMachineArn, executionName),
      status: TaskStatus.Submitted,
      createdAt: now,
      lastUpdatedAt: now,
      retention: this.retentionFor(request),
      pollIntervalMs: this.settings.pollIntervalMs,
      inputDigest: createHash('sha256').update(tool.name).update('\u0000').update(start.input).digest('hex'),
      ...(request.requestId !== undefined ? { requestId: request.requestId } : {}),
    };
    try {
      await this.store.create(task);
    } catch (error) {
      if (error instanceof TaskAlreadyExistsError) await this.repairRetriedStart(task, start);
      throw error;
    }
    await this.holdActiveSlot(task);
    let started = true;
    try {
      await this.executor.start(start);
    } catch (error) {
      if (error instanceof ExecutionStartError) {
        await this.withdrawRefused(task, error);
        throw error;
      }
      started = false;
      this.logger.warn('Execution start outcome unknown; the next poll reconciles the task', {
        taskId,
        error: String(error),
      });
    }
    // A client that made the task ID can cancel or delete the task before the start above lands; stop
    // the execution that start then began, so none runs without a live task.
    if (request.taskId !== undefined) await this.stopIfWithdrawn(task);
    this.logger.info('Task created', { taskId, tool: tool.name, origin: task.origin, executionArn: task.executionArn });
    auditTask(this.logger, AuditEvent.Created, task);
    this.metrics.taskEvent(AuditEvent.Created, task.toolName);
    return { task, started };
  }

  /**
   * Counts the creation against the owner's per-minute limit; throws `TaskLimitExceededError` when the minute is used
   * up.
   */
  private async countCreation(request: CreateTaskRequest, toolName: string, now: number): Promise<void> {
    const max = this.settings.maxTaskCreationsPerMinute;
    const start = now - (now % CREATION_WINDOW_MS);
    if (await this.store.countCreation(request.owner, { start, ms: CREATION_WINDOW_MS }, max)) return;
    const outcome = 'limit:creations-per-minute';
    audit(this.logger, {
      event: AuditEvent.Refused,
      owner: request.owner,
      ...(request.taskId !== undefined ? { taskId: request.taskId } : {}),
      tool: toolName,
      ...(request.requestId !== undefined ? { requestId: request.requestId } : {}),
      outcome,
    });
    this.metrics.taskEvent(AuditEvent.Refused, toolName);
    throw new TaskLimitExceededError(
      'creations-per-minute',
      max,
      Math.max(1, Math.ceil((start + CREATION_WINDOW_MS - now) / 1000)),
    );
  }

  /**
   * Holds one of the owner's active-task slots for the just-stored task, repairing the owner's slots once when
   * they look full (a release lost to a crash, a task swept unseen). The slot is taken after the task is stored, so
   * a slot whose task is absent is always a leftover. When no slot is free, or the store fails, the task is removed
   * before anything starts and the error thrown: `TaskLimitExceededError` when the limit refused.
   */
  private async holdActiveSlot(task: TaskRecord): Promise<void> {
    const max = this.settings.maxActiveTasksPerOwner;
    let failure: unknown;
    try {
      if (await this.store.holdActiveSlot(task.owner, task.taskId, max)) return;
      if (
        (await this.store.reconcileActiveSlots(task.owner)) > 0 &&
        (await this.store.holdActiveSlot(task.owner, task.taskId, max))
      )
        return;
      auditTask(this.logger, AuditEvent.Refused, task, 'limit:active-tasks');
      this.metrics.taskEvent(AuditEvent.Refused, task.toolName);
      failure = new TaskLimitExceededError(
        'active-tasks',
        max,
        Math.max(1, Math.ceil(this.settings.pollIntervalMs / 1000)),
      );
    } catch (error) {
      failure = error;
    }
    await this.store.delete(task.owner, task.taskId).catch((error: unknown) => {
      this.logger.warn('Could not remove a task refused an active-task slot', {
        taskId: task.taskId,
        error: String(error),
      });
    });
    throw failure;
  }

  /**
   * Removes the task of a refused start, so the caller's error is the whole story. A failed removal leaves a task
   * that polls fail once the start grace period passes; the caller still gets the refusal.
   */
  private async withdrawRefused(task: TaskRecord, refusal: ExecutionStartError): Promise<void> {
    // The SDK retries: an earlier attempt whose answer was lost may have started the execution before a quota refused a
    // later one.
    if (refusal.fault === 'capacity') await this.stopBestEffort(task, 'The start was refused for capacity.');
    await this.store.delete(task.owner, task.taskId).then(
      () => this.tracker.releaseActiveSlot(task),
      (error: unknown) =>
        this.logger.warn('Could not remove the task of a refused start', { taskId: task.taskId, error: String(error) }),
    );
  }

  /**
   * Stops the execution only when a read shows the task gone or cancelled. A read that keeps failing proves
   * nothing: the record exists, so the execution is left running and polls reconcile the task.
   */
  private async stopIfWithdrawn(task: TaskRecord): Promise<void> {
    let current: TaskRecord | null | undefined;
    for (let attempt = 0; current === undefined; attempt++) {
      try {
        current = await this.store.get(task.owner, task.taskId);
      } catch (error) {
        if (error instanceof TaskExpiredError) current = null;
        else if (attempt + 1 >= WITHDRAWAL_READ_ATTEMPTS) {
          this.logger.warn('Could not read the task after starting its execution; leaving the execution running', {
            taskId: task.taskId,
            error: String(error),
          });
          return;
        } else await sleep(WITHDRAWAL_READ_BACKOFF_MS * 2 ** attempt);
      }
    }
    if (current !== null && current.executionArn === task.executionArn && current.status !== TaskStatus.Cancelled)
      return;
    await this.executor.stop(task.executionArn, {
      error: 'TaskWithdrawn',
      cause: 'The task was cancelled or deleted while its execution started.',
    });
  }

  private async repairRetriedStart(retry: TaskRecord, start: StartRequest): Promise<void> {
    const existing = await this.store.get(retry.owner, retry.taskId).catch(() => null);
    if (existing === null || isTerminal(existing.status) || existing.inputDigest !== retry.inputDigest) return;
    // The stored task's own execution name, so the start can only find (or create) that one execution.
    const repair = { ...start, executionName: executionNameOf(existing.executionArn) };
    await this.executor
      .start(repair)
      .catch((error: unknown) =>
        this.logger.warn('Repeated start of a retried task failed', { taskId: retry.taskId, error: String(error) }),
      );
  }

  /**
   * The task as it stands, refreshed from its execution when a refresh is due. Throws `TaskNotFoundError` or
   * `TaskExpiredError`.
   */
  getTask(owner: string, taskId: string): Promise<TaskRecord> {
    return this.tracker.getTask(owner, taskId);
  }

  /**
   * Waits until the task is terminal, the wait bound passes or `signal` aborts:
   * see {@link TaskTracker.waitForTerminal}.
   */
  waitForTerminal(owner: string, taskId: string, options: WaitOptions): Promise<TaskRecord> {
    return this.tracker.waitForTerminal(owner, taskId, options);
  }

  /**
   * Stops the execution, then marks the task cancelled (stop first: it is idempotent, so a failure leaves a
   * task the caller can cancel again). Throws `IllegalTransitionError` for a terminal task.
   */
  async cancelTask(owner: string, taskId: string, reason = 'Cancelled by the client.'): Promise<TaskRecord> {
    const task = await this.store.get(owner, taskId);
    if (task === null) throw new TaskNotFoundError(taskId);
    if (isTerminal(task.status)) throw new IllegalTransitionError(taskId, task.status, TaskStatus.Cancelled);
    await this.executor.stop(task.executionArn, { error: 'TaskCancelled', cause: reason });
    const ended = await this.endedBeforeStop(task);
    if (ended !== null) throw new IllegalTransitionError(taskId, ended.status, TaskStatus.Cancelled);
    try {
      return await this.tracker.finished(
        await this.store.update(task, { status: TaskStatus.Cancelled, statusMessage: reason, at: this.now() }),
      );
    } catch (error) {
      // A poll that saw the stopped execution may have recorded the cancellation first.
      if (error instanceof IllegalTransitionError && error.from === TaskStatus.Cancelled)
        return this.getTask(owner, taskId);
      throw error;
    }
  }

  /**
   * Removes the task and its result at once, in any status; an active task's execution is stopped first.
   * Throws `TaskNotFoundError` when there is no such task.
   */
  async deleteTask(owner: string, taskId: string): Promise<void> {
    const task = await this.store.get(owner, taskId);
    if (task === null) throw new TaskNotFoundError(taskId);
    if (!isTerminal(task.status))
      await this.executor.stop(task.executionArn, { error: 'TaskDeleted', cause: 'The client deleted the task.' });
    if (!(await this.store.delete(owner, taskId))) throw new TaskNotFoundError(taskId);
    await this.tracker.releaseActiveSlot(task);
    auditTask(this.logger, AuditEvent.Deleted, task);
  }

  /**
   * The task as its execution ended on its own before a stop: StopExecution succeeds on an ended execution and changes
   * nothing, so a task whose store status lags (an answer resumed it and it finished since the last read) would else be
   * marked cancelled although its execution succeeded. Records that outcome and returns it; `null` when the stop won,
   * or when the execution cannot be read (the cancel stands, as it did before this check).
   */
  private async endedBeforeStop(task: TaskRecord): Promise<TaskRecord | null> {
    const execution = await this.executor.describe(task.executionArn).catch((error: unknown) => {
      this.logger.warn('Could not read a stopped execution', { taskId: task.taskId, error: String(error) });
      return null;
    });
    const status = execution?.status;
    if (
      execution === null ||
      execution === undefined ||
      (status !== ExecutionStatus.Succeeded && status !== ExecutionStatus.Failed && status !== ExecutionStatus.TimedOut)
    )
      return null;
    const recorded = await this.tracker.recordExecutionEvent(task.executionArn, execution);
    return recorded !== null && isTerminal(recorded.status) && recorded.status !== TaskStatus.Cancelled
      ? recorded
      : null;
  }

  /**
   * Cancels the task the owner created with this JSON-RPC request ID (SEP-1686 `notifications/cancelled`).
   * Returns `null`, changing nothing, when there is no such task or it is already terminal.
   */
  async cancelByRequest(owner: string, requestId: string, reason: string): Promise<TaskRecord | null> {
    const task = await this.store.findByRequest(owner, requestId);
    if (task === null || isTerminal(task.status)) return null;
    try {
      return await this.cancelTask(owner, task.taskId, reason);
    } catch (error) {
      if (error instanceof IllegalTransitionError || error instanceof TaskNotFoundError) return null;
      throw error;
    }
  }

  /**
   * One page of the owner's tasks, newest first, as stored: one query, whatever the tasks' states. Stored statuses
   * are kept current by status events (EventBridge in AWS) and by polls of each task; describing every active task
   * of a page would spend Step Functions' account-wide throttle on a listing.
   */
  listTasks(owner: string, cursor?: string): Promise<TaskPage> {
    return this.store.list(owner, { cursor, limit: this.settings.listPageSize });
  }

  /** Runs a tool for a caller that did not ask for a task: see {@link DirectCalls.runToCompletion}. */
  runToCompletion(...call: Parameters<DirectCalls['runToCompletion']>): Promise<ToolResult> {
    return this.direct.runToCompletion(...call);
  }

  /**
   * Runs a tool for a caller that can answer questions, until its result or its first questions:
   * see {@link DirectCalls.runUntilInput}.
   */
  runUntilInput(...call: Parameters<DirectCalls['runUntilInput']>): Promise<DirectOutcome> {
    return this.direct.runUntilInput(...call);
  }

  /** Waits again on a plain call once its answers are delivered: see {@link DirectCalls.resumeDirect}. */
  resumeDirect(...call: Parameters<DirectCalls['resumeDirect']>): Promise<DirectOutcome> {
    return this.direct.resumeDirect(...call);
  }

  /** Stops the task's execution, logging instead of throwing: for paths that are already failing. */
  private async stopBestEffort(task: TaskRecord, cause: string): Promise<void> {
    await this.executor
      .stop(task.executionArn, { error: 'TaskAbandoned', cause })
      .catch((error: unknown) =>
        this.logger.warn('Could not stop an abandoned execution', { taskId: task.taskId, error: String(error) }),
      );
  }

  /**
   * What the tool call returns for a terminal task (list pages leave the output out, so this may read the full
   * record), for a client: a result handed out is audited as retrieved.
   */
  async resultOf(task: TaskRecord): Promise<ToolResult | undefined> {
    const { result, read } = await this.resultFor(task);
    if (result !== undefined) auditTask(this.logger, AuditEvent.Retrieved, read);
    return result;
  }

  private async resultFor(task: TaskRecord): Promise<{ result: ToolResult | undefined; read: TaskRecord }> {
    const needsOutput = task.status === TaskStatus.Completed && task.output === undefined;
    const read = needsOutput ? ((await this.store.get(task.owner, task.taskId)) ?? task) : task;
    return { result: toolResultOf(read), read };
  }

  /**
   * Records what an execution status event reports on the task the execution belongs to:
   * see {@link TaskTracker.recordExecutionEvent}.
   */
  recordExecutionEvent(executionArn: string, execution: ExecutionSnapshot | 'describe'): Promise<TaskRecord | null> {
    return this.tracker.recordExecutionEvent(executionArn, execution);
  }

  private retentionFor(request: CreateTaskRequest): Retention {
    const { maxTtlMs, defaultTtlMs, directCallTimeoutMs } = this.settings;
    if (request.origin === TaskOrigin.Direct)
      return { ms: directCallTimeoutMs + defaultTtlMs, clock: RetentionClock.FromCreation };
    const requested = Number.isFinite(request.requestedRetentionMs)
      ? Math.ceil(request.requestedRetentionMs!)
      : defaultTtlMs;
    const ms = Math.min(Math.max(requested, this.settings.minTtlMs), maxTtlMs);
    // SEP-1686 counts keepAlive from completion; 2025-11-25 counts ttl from creation.
    return {
      ms,
      clock: request.origin === TaskOrigin.Sep1686 ? RetentionClock.FromCompletion : RetentionClock.FromCreation,
    };
  }
}
