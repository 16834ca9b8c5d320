// The one interface every task dialect on the wire implements: SEP-1686 (sep-1686.ts), MCP 2025-11-25
// (mcp-2025-11-25.ts) and the 2026-07-28 tasks extension (tasks-extension.ts). The task model underneath is one; a
// dialect is how a task is created and shown to a client that speaks it.
import type { TaskOrigin, TaskSummary } from '../core/task.js';

export interface TaskDialect<T extends TaskSummary = TaskSummary> {
  /** The origin of the tasks this dialect creates: it decides how their retention counts. */
  readonly origin: TaskOrigin;
  /** The task as this dialect's task messages show it. */
  wireTask(task: T): Record<string, unknown>;
}

/** A dialect of the 2025 revisions: the legacy server picks one per request (legacy-server.ts, dialectOf). */
export interface LegacyTaskDialect extends TaskDialect {
  /** The `_meta` that ties a message (a result, a notification, a request to the client) to its task. */
  relatedTaskMeta(taskId: string): Record<string, unknown>;
  /** Whether tasks/result waits for an unfinished task (true) or refuses it at once (false). */
  readonly resultWaits: boolean;
}
