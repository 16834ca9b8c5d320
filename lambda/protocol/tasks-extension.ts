// The MCP 2026-07-28 Tasks extension (io.modelcontextprotocol/tasks, SEP-2663) on the wire: the flat
// CreateTaskResult and the DetailedTask that tasks/get answers with, its result, error or input requests inlined.
import { openInputRequests } from '../core/input-request.js';
import { statusMessageOf } from '../core/task-progress.js';
import { retentionFromCreationMs, TaskOrigin, type TaskRecord } from '../core/task.js';
import { TaskStatus } from '../core/task-status.js';
import type { ToolResult } from '../core/tool-result.js';
import { progressMeta } from './sep-1686.js';
import type { TaskDialect } from './task-dialect.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** What a client must declare in its per-request capabilities for the task surface (-32021 data). */
export const TASKS_EXTENSION_CAPABILITY = { extensions: { [TASKS_EXTENSION]: {} } } as const;

/** JSON-RPC's "Internal error": what a failed execution is, seen from the request it ran for. */
const EXECUTION_FAILED_CODE = -32603;

type WireStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** The extension has no `submitted` or `unknown`; a tool error (`isError: true`) stays `completed` here. */
function wireStatus(status: TaskStatus): WireStatus {
  switch (status) {
    case TaskStatus.Submitted:
      return 'working';
    case TaskStatus.Unknown:
      return 'failed';
    default:
      return status;
  }
}

/**
 * The extension's Task: the fields a CreateTaskResult and every DetailedTask carry. An active task's progress also
 * rides in `_meta` under the key the SEP-1686 dialect uses (`{ statusMessage, progress?, total? }`): the extension's
 * Task has `statusMessage` but no count, and a client such as mcp-tasks draws its bar from it.
 */
export function toExtensionTask(task: TaskRecord): Record<string, unknown> {
  const statusMessage = statusMessageOf(task);
  const meta = progressMeta(task);
  return {
    taskId: task.taskId,
    status: wireStatus(task.status),
    ...(statusMessage !== undefined ? { statusMessage } : {}),
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    ttlMs: retentionFromCreationMs(task),
    pollIntervalMs: task.pollIntervalMs,
    ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}),
  };
}

/** The answer to a tools/call that became a task: `Result & Task`, flat, discriminated by `resultType`. */
export function toCreateTaskResult(task: TaskRecord): Record<string, unknown> {
  return { resultType: 'task', ...toExtensionTask(task) };
}

/**
 * The task as tasks/get and notifications/tasks show it: a completed task inlines the tool's result (a tool
 * error included), a failed one the JSON-RPC error its execution amounts to. `result` is the terminal task's
 * tool result, which the caller reads from the store.
 */
export function toDetailedTask(task: TaskRecord, result: ToolResult | undefined): Record<string, unknown> {
  const base = toExtensionTask(task);
  switch (base['status'] as WireStatus) {
    case 'completed':
      // The inlined result is the original request's result as this era sends it, `resultType` included.
      return { ...base, result: { ...(result ?? { content: [] }), resultType: 'complete' } };
    case 'failed':
      return {
        ...base,
        error: { code: EXECUTION_FAILED_CODE, message: task.statusMessage ?? 'The execution failed.' },
      };
    case 'input_required':
      return { ...base, inputRequests: toInputRequests(task) };
    default:
      return base;
  }
}

/**
 * The task's open input requests as the extension's `inputRequests` map: key -> the MCP request the client is to
 * answer (`{ method, params }`, e.g. `elicitation/create` with `message` and `requestedSchema`), answered by key with
 * `tasks/update` `inputResponses`. Answered ones are left out; the task token is never part of a request.
 */
export function toInputRequests(task: TaskRecord): Record<string, unknown> {
  return Object.fromEntries(openInputRequests(task.inputRequests).map((request) => [request.key, request.request]));
}

/** The tasks extension's dialect: tasks the server chose to make, shown as the extension's Task. */
export const TASKS_EXTENSION_DIALECT: TaskDialect<TaskRecord> = {
  origin: TaskOrigin.TasksExtension,
  wireTask: toExtensionTask,
};
