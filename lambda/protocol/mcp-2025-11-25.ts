// The MCP 2025-11-25 task dialect on the wire: `params.task` on tools/call, CreateTaskResult,
// tasks/get|result|list|cancel.
import type { Task } from '@modelcontextprotocol/sdk/types.js';
import { statusMessageOf } from '../core/task-progress.js';
import { retentionFromCreationMs, TaskOrigin, type TaskSummary } from '../core/task.js';
import { TaskStatus } from '../core/task-status.js';
import type { LegacyTaskDialect } from './task-dialect.js';

export const RELATED_TASK_META_KEY_2025 = 'io.modelcontextprotocol/related-task';

function wireStatus(task: TaskSummary): Task['status'] {
  switch (task.status) {
    case TaskStatus.Submitted:
      return 'working';
    case TaskStatus.Unknown:
      return 'failed';
    // This dialect counts a tool-level error (`isError: true`) as failed; the task model keeps it completed.
    case TaskStatus.Completed:
      return task.toolError === true ? 'failed' : 'completed';
    default:
      return task.status;
  }
}

/** The task as a 2025-11-25 Task, whichever dialect created it. */
export function toMcpTask(task: TaskSummary): Task {
  const statusMessage = statusMessageOf(task);
  return {
    taskId: task.taskId,
    status: wireStatus(task),
    ...(statusMessage !== undefined ? { statusMessage } : {}),
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    ttl: retentionFromCreationMs(task),
    pollInterval: task.pollIntervalMs,
  };
}

/** The MCP 2025-11-25 dialect: `params.task` on tools/call; tasks/result waits for the task to end. */
export const MCP_2025_11_25_DIALECT: LegacyTaskDialect = {
  origin: TaskOrigin.Mcp20251125,
  wireTask: (task) => ({ ...toMcpTask(task) }),
  relatedTaskMeta: (taskId) => ({ [RELATED_TASK_META_KEY_2025]: { taskId } }),
  resultWaits: true,
};
