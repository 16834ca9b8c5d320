// The SEP-1686 task dialect on the wire: client-made task IDs in `_meta["modelcontextprotocol.io/task"]`,
// `notifications/tasks/created`, keepAlive counted from completion, tasks/get|result|list|delete.
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { statusMessageOf } from '../core/task-progress.js';
import { expiresAt, RetentionClock, TaskOrigin, type TaskRecord, type TaskSummary } from '../core/task.js';
import { TaskStatus } from '../core/task-status.js';
import { ProtocolError } from './protocol-errors.js';
import type { LegacyTaskDialect } from './task-dialect.js';

export const TASK_META_KEY = 'modelcontextprotocol.io/task';
export const RELATED_TASK_META_KEY_SEP = 'modelcontextprotocol.io/related-task';
export const TASK_CREATED_NOTIFICATION = 'notifications/tasks/created';

/** Client task IDs: what UUIDs, ULIDs and prefixed IDs need, nothing that could confuse a log line or a key. */
const CLIENT_TASK_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface Sep1686TaskRequest {
  readonly taskId: string;
  readonly keepAlive?: number;
}

/** The task augmentation of a request, or `undefined` when it has none; throws -32602 when it is unusable. */
export function sep1686TaskRequestOf(meta: Record<string, unknown> | undefined): Sep1686TaskRequest | undefined {
  const value = meta?.[TASK_META_KEY];
  if (value === undefined) return undefined;
  const invalid = (reason: string): ProtocolError =>
    new ProtocolError(ErrorCode.InvalidParams, `Invalid _meta["${TASK_META_KEY}"]: ${reason}`);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid('must be an object {taskId, keepAlive?}');
  const { taskId, keepAlive } = value as Record<string, unknown>;
  if (typeof taskId !== 'string') throw invalid('taskId must be a string');
  if (!CLIENT_TASK_ID.test(taskId))
    throw invalid('taskId must be 1-128 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-"');
  if (
    keepAlive !== undefined &&
    keepAlive !== null &&
    (typeof keepAlive !== 'number' || !Number.isInteger(keepAlive) || keepAlive < 0)
  ) {
    throw invalid('keepAlive must be a whole number of milliseconds, 0 or more');
  }
  return typeof keepAlive === 'number' ? { taskId, keepAlive } : { taskId };
}

export function relatedTaskMeta(taskId: string): Record<string, unknown> {
  return { [RELATED_TASK_META_KEY_SEP]: { taskId } };
}

/**
 * Where an active task's progress goes in this dialect. The seed's Task has no message field beside `error`
 * (failed tasks only), and says that task tracking belongs in `_meta` (seed, "Why _meta"): so a tasks/get or
 * tasks/list entry carries it in its `_meta` under this key, `{ statusMessage, progress?, total? }`. The key
 * is this server's own (the `modelcontextprotocol.io/` prefix is reserved for MCP).
 */
export const PROGRESS_META_KEY_SEP = 'mcp-tasks-sfn/progress';

/** The task's progress as this dialect's `_meta` entry, or nothing when there is none to show. */
export function progressMeta(
  task: Pick<TaskRecord, 'status' | 'statusMessage' | 'progress' | 'currentStep'>,
): Record<string, unknown> {
  const statusMessage = statusMessageOf(task);
  if (statusMessage === undefined || task.statusMessage !== undefined) return {};
  const { progress, total } = task.progress ?? {};
  return {
    [PROGRESS_META_KEY_SEP]: {
      statusMessage,
      ...(progress !== undefined ? { progress } : {}),
      ...(total !== undefined ? { total } : {}),
    },
  };
}

/** Whether a request speaks this dialect about a task: the seed's clients name the task in this meta key. */
export function namesSep1686Task(meta: Record<string, unknown> | undefined): boolean {
  return meta?.[RELATED_TASK_META_KEY_SEP] !== undefined;
}

/**
 * keepAlive counts from completion here; a task whose retention counts from creation reports what is left of it then.
 */
function wireKeepAlive(task: TaskSummary): number | null {
  if (task.retention.clock === RetentionClock.FromCompletion || task.retention.ms === null) return task.retention.ms;
  const end = expiresAt(task)!;
  return Math.max(0, end - (task.completedAt ?? task.createdAt));
}

/** The task as the seed's Task: {taskId, status, keepAlive, pollFrequency, error?}. */
function toSep1686Task(task: TaskSummary): Record<string, unknown> {
  const failed = task.status === TaskStatus.Failed || task.status === TaskStatus.Unknown;
  return {
    taskId: task.taskId,
    // The seed's statuses are the task model's: a tool-level error stays `completed` (seed 7.2).
    status: task.status,
    keepAlive: wireKeepAlive(task),
    pollFrequency: task.pollIntervalMs,
    ...(failed && task.statusMessage !== undefined ? { error: task.statusMessage } : {}),
  };
}

/** The SEP-1686 dialect: the seed's Task with its progress in `_meta`; tasks/result answers only a completed task. */
export const SEP_1686_DIALECT: LegacyTaskDialect = {
  origin: TaskOrigin.Sep1686,
  wireTask: (task) => ({ ...toSep1686Task(task), _meta: { ...relatedTaskMeta(task.taskId), ...progressMeta(task) } }),
  relatedTaskMeta,
  resultWaits: false,
};
