// Creating a task: per-owner limits, the task record, then its execution's start, in that order and crash-safely.
import { createHash, randomBytes } from 'node:crypto';
import { AuditEvent } from '../core/audit-event.js';
import {
  ExecutionStartError,
  TaskAlreadyExistsError,
  TaskExpiredError,
  TaskLimitExceededError,
} from '../core/errors.js';
import { FIRST_CHECK_AFTER_MS, RetentionClock, TaskOrigin, type Retention, type TaskRecord } from '../core/task.js';
import { isTerminal, TaskStatus } from '../core/task-status.js';
import { executionNameOf, newExecutionNonce, taskKey } from '../core/task-key.js';
import { executionNameOn } from '../executor/workflow-engines.js';
import type { StartRequest } from '../executor/task-executor.js';
import { workflowOfTool } from '../contract/tool-definition.js';
import { auditTask } from './audit.js';
import { countCreation } from './creation-limit.js';
import { stopBestEffort, type TaskContext } from './task-context.js';
import type { TaskTracker } from './task-tracker.js';

/** Reads of a just-started task before a withdrawal check gives up (a short outage must not cancel live work). */
const WITHDRAWAL_READ_ATTEMPTS = 4;
/** First backoff between those reads, doubled each time (50, 100, 200 ms). */
const WITHDRAWAL_READ_BACKOFF_MS = 50;

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

export class TaskCreation {
  constructor(
    private readonly context: TaskContext,
    private readonly tracker: TaskTracker,
  ) {}

  /**
   * Validates the call, stores the task, then starts its execution. The record is written first so that
   * no execution can ever run without a task that finds it; the execution name is stored in the record, so
   * a repeated start can only find the same execution. If the engine refuses for good, the record is
   * removed and `ExecutionStartError` thrown; if its answer is lost, the task stays `submitted` (`started: false`) and
   * the next poll reconciles it (a missing execution past the start grace period fails the task).
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
  async start(request: CreateTaskRequest): Promise<{ task: TaskRecord; started: boolean }> {
    const { tools, store, executor, settings, logger, metrics, clock } = this.context;
    const tool = tools.get(request.toolName);
    await tools.validateArguments(tool.name, request.arguments);
    const now = clock.now();
    await countCreation(this.context, { ...request, toolName: tool.name }, now);
    const taskId = request.taskId ?? randomBytes(16).toString('hex');
    const workflow = workflowOfTool(tool);
    const executionName = executionNameOn(workflow.engine, taskKey(request.owner, taskId), newExecutionNonce());
    const start: StartRequest = { workflow, executionName, input: JSON.stringify(request.arguments) };
    const task: TaskRecord = {
      taskId,
      owner: request.owner,
      toolName: tool.name,
      origin: request.origin,
      executionArn: executor.executionArnFor(workflow, executionName),
      status: TaskStatus.Submitted,
      createdAt: now,
      lastUpdatedAt: now,
      nextCheckAt: now + FIRST_CHECK_AFTER_MS,
      retention: this.retentionFor(request),
      pollIntervalMs: settings.pollIntervalMs,
      inputDigest: createHash('sha256').update(tool.name).update('\u0000').update(start.input).digest('hex'),
      ...(request.requestId !== undefined ? { requestId: request.requestId } : {}),
    };
    try {
      await store.create(task);
    } catch (error) {
      if (error instanceof TaskAlreadyExistsError) await this.repairRetriedStart(task, start);
      throw error;
    }
    await this.holdActiveSlot(task);
    let started = true;
    try {
      await executor.start(start);
    } catch (error) {
      if (error instanceof ExecutionStartError) {
        await this.withdrawRefused(task, error);
        throw error;
      }
      started = false;
      logger.warn('Execution start outcome unknown; the status events or the reconciler settle the task', {
        taskId,
        error: String(error),
      });
    }
    // A client that made the task ID can cancel or delete the task before the start above lands; stop
    // the execution that start then began, so none runs without a live task.
    if (request.taskId !== undefined) await this.stopIfWithdrawn(task);
    logger.info('Task created', { taskId, tool: tool.name, origin: task.origin, executionArn: task.executionArn });
    auditTask(logger, AuditEvent.Created, task);
    metrics.taskEvent(AuditEvent.Created, task.toolName);
    return { task, started };
  }

  /**
   * Holds one of the owner's active-task slots for the just-stored task, repairing the owner's slots once when
   * they look full (a release lost to a crash, a task swept unseen) and then trying again. The slot is taken after
   * the task is stored, so a slot whose task is absent is always a leftover. When no slot is free, or the store
   * fails, the task is removed before anything starts and the error thrown: `TaskLimitExceededError` when the limit
   * refused.
   */
  private async holdActiveSlot(task: TaskRecord): Promise<void> {
    const { quotas, settings, logger, metrics, store } = this.context;
    const max = settings.maxActiveTasksPerOwner;
    let failure: unknown;
    try {
      if (await quotas.holdActiveSlot(task.owner, task.taskId, max)) return;
      // Tried again even when the repair freed nothing: a task that just finished may have freed its own slot
      // between the two, and the owner who saw it finish must get that place.
      await quotas.reconcileActiveSlots(task.owner);
      if (await quotas.holdActiveSlot(task.owner, task.taskId, max)) return;
      auditTask(logger, AuditEvent.Refused, task, 'limit:active-tasks');
      metrics.taskEvent(AuditEvent.Refused, task.toolName);
      failure = new TaskLimitExceededError('active-tasks', max, Math.max(1, Math.ceil(settings.pollIntervalMs / 1000)));
    } catch (error) {
      failure = error;
    }
    await store.delete(task.owner, task.taskId).catch((error: unknown) => {
      logger.warn('Could not remove a task refused an active-task slot', { taskId: task.taskId, error: String(error) });
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
    if (refusal.fault === 'capacity' || refusal.fault === 'throttled')
      await stopBestEffort(this.context, task, 'The start was refused for capacity.');
    await this.context.store.delete(task.owner, task.taskId).then(
      () => this.tracker.releaseActiveSlot(task),
      (error: unknown) =>
        this.context.logger.warn('Could not remove the task of a refused start', {
          taskId: task.taskId,
          error: String(error),
        }),
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
        current = await this.context.store.get(task.owner, task.taskId);
      } catch (error) {
        if (error instanceof TaskExpiredError) current = null;
        else if (attempt + 1 >= WITHDRAWAL_READ_ATTEMPTS) {
          this.context.logger.warn(
            'Could not read the task after starting its execution; leaving the execution running',
            { taskId: task.taskId, error: String(error) },
          );
          return;
        } else await this.context.clock.sleep(WITHDRAWAL_READ_BACKOFF_MS * 2 ** attempt);
      }
    }
    if (current !== null && current.executionArn === task.executionArn && current.status !== TaskStatus.Cancelled)
      return;
    await this.context.executor.stop(task.executionArn, {
      error: 'TaskWithdrawn',
      cause: 'The task was cancelled or deleted while its execution started.',
    });
  }

  private async repairRetriedStart(retry: TaskRecord, start: StartRequest): Promise<void> {
    const existing = await this.context.store.get(retry.owner, retry.taskId).catch(() => null);
    if (existing === null || isTerminal(existing.status) || existing.inputDigest !== retry.inputDigest) return;
    // The stored task's own execution name, so the start can only find (or create) that one execution.
    const repair = { ...start, executionName: executionNameOf(existing.executionArn) };
    await this.context.executor.start(repair).catch((error: unknown) =>
      this.context.logger.warn('Repeated start of a retried task failed', {
        taskId: retry.taskId,
        error: String(error),
      }),
    );
  }

  private retentionFor(request: CreateTaskRequest): Retention {
    const { maxTtlMs, minTtlMs, defaultTtlMs, directCallTimeoutMs } = this.context.settings;
    if (request.origin === TaskOrigin.Direct)
      return { ms: directCallTimeoutMs + defaultTtlMs, clock: RetentionClock.FromCreation };
    const requested = Number.isFinite(request.requestedRetentionMs)
      ? Math.ceil(request.requestedRetentionMs!)
      : defaultTtlMs;
    const ms = Math.min(Math.max(requested, minTtlMs), maxTtlMs);
    // SEP-1686 counts keepAlive from completion; 2025-11-25 counts ttl from creation.
    return {
      ms,
      clock: request.origin === TaskOrigin.Sep1686 ? RetentionClock.FromCompletion : RetentionClock.FromCreation,
    };
  }
}
