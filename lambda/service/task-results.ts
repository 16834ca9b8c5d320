// What a tool call returns for a terminal task.
import { toolResultOf, type TaskRecord } from '../core/task.js';
import { TaskStatus } from '../core/task-status.js';
import type { ToolResult } from '../core/tool-result.js';
import type { TaskStore } from '../store/task-store.js';

/**
 * The tool result of a terminal task, and the record it was read from: list pages leave the output out, so this may
 * read the full record.
 */
export async function resultOfTask(
  store: TaskStore,
  task: TaskRecord,
): Promise<{ result: ToolResult | undefined; read: TaskRecord }> {
  const needsOutput = task.status === TaskStatus.Completed && task.output === undefined;
  const read = needsOutput ? ((await store.get(task.owner, task.taskId)) ?? task) : task;
  return { result: toolResultOf(read), read };
}
