// What every task use case works with: the ports (store, quotas, executor and synchronous runs, logger, metrics,
// clock), the tool registry and the settings. The task service builds one and hands the same one to each use case.
import { SYSTEM_CLOCK, type Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { NO_TASK_METRICS, type TaskMetrics } from '../core/task-metrics.js';
import type { TaskRecord } from '../core/task.js';
import type { SyncExecutor } from '../executor/sync-executor.js';
import type { TaskExecutor } from '../executor/task-executor.js';
import type { OwnerQuotas } from '../store/owner-quotas.js';
import type { TaskStore } from '../store/task-store.js';
import type { ToolRegistry } from '../tools/tool-registry.js';
import type { TaskServiceSettings } from './settings.js';

export interface TaskContext {
  readonly store: TaskStore;
  readonly quotas: OwnerQuotas;
  readonly executor: TaskExecutor;
  /**
   * Runs EXPRESS machines synchronously: a plain call of an EXPRESS tool (express-calls.ts). @default - none: such a
   * call runs the tool's STANDARD wrapper as a task, as any other tool's plain call does
   */
  readonly syncExecutor?: SyncExecutor;
  readonly tools: ToolRegistry;
  readonly settings: TaskServiceSettings;
  readonly logger: Logger;
  /** Per-tool counts of lifecycle events, made beside each audit record. */
  readonly metrics: TaskMetrics;
  readonly clock: Clock;
}

/** The parts a caller gives; metrics and the clock have defaults. */
export type TaskContextParts = Omit<TaskContext, 'metrics' | 'clock'> & {
  /** @default NO_TASK_METRICS */
  readonly metrics?: TaskMetrics;
  /** @default SYSTEM_CLOCK */
  readonly clock?: Clock;
};

export function taskContext(parts: TaskContextParts): TaskContext {
  return { ...parts, metrics: parts.metrics ?? NO_TASK_METRICS, clock: parts.clock ?? SYSTEM_CLOCK };
}

/** Stops the task's execution, logging instead of throwing: for paths that are already failing. */
export async function stopBestEffort(context: TaskContext, task: TaskRecord, cause: string): Promise<void> {
  await context.executor
    .stop(task.executionArn, { error: 'TaskAbandoned', cause })
    .catch((error: unknown) =>
      context.logger.warn('Could not stop an abandoned execution', { taskId: task.taskId, error: String(error) }),
    );
}
