// The MCP 2025-11-25 task dialect on the wire: `params.task` on tools/call, CreateTaskResult, tasks/get|result|list|cancel.
import type { Task } from '@modelcontextprotocol/sdk/types.js';
import { TaskStatus, type TaskRecord } from '../core/task.js';

/**
 * The task as a 2025-11-25 Task. That dialect counts a tool-level error (`isError: true`) as `failed`,
 * while the task model keeps it `completed` with an error result, so the mapping happens here.
 */
export function toMcpTask(task: TaskRecord): Task {
  const toolError = task.status === TaskStatus.Completed && task.result?.isError === true;
  return {
    taskId: task.taskId,
    status: toolError ? TaskStatus.Failed : task.status,
    ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    ttl: task.retention.ms,
    pollInterval: task.pollIntervalMs,
  };
}
