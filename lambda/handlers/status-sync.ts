// Lambda entry point for the engines' status events (EventBridge: Step Functions' "Execution Status Change", Lambda's
// "Durable Execution Status Change"): records each execution's new status on its task, so a poll finds it there with
// one DynamoDB read instead of waiting for its next refresh (a describe at most once per refresh interval, which still
// catches a lost event). A thrown error makes Lambda retry, then dead-letter.
import { createTaskCore } from './task-core.js';
import { defaultLogger } from './default-logger.js';
import { taskCoreConfigFromEnvironment } from './environment.js';
import { executionChangeOf, type StatusChangeEvent } from './execution-status-event.js';
import { handlerClients } from './handler-clients.js';
import { PowertoolsTaskMetrics } from './powertools-metrics.js';
import { traced, tracerFromEnvironment } from './tracing.js';

const logger = defaultLogger();
// Built once per Lambda instance; this function serves no tools, so it needs neither the catalog nor the MCP SDK.
const metrics = new PowertoolsTaskMetrics();
const tracer = await tracerFromEnvironment(process.env);
const backend = createTaskCore(
  taskCoreConfigFromEnvironment(process.env),
  handlerClients(metrics, tracer),
  logger,
  metrics,
);

export const handler = traced(tracer, async (event: StatusChangeEvent): Promise<void> => {
  const { executionArn, update, describedArn, status } = executionChangeOf(event);
  // Idempotent: duplicate, late and out-of-order events never overwrite a terminal status
  // (TaskTracker.recordExecutionEvent reads the task, TaskStore.update writes conditionally on the statuses it may move
  // from).
  const task = await backend.service.recordExecutionEvent(executionArn, update, describedArn);
  if (task === null) {
    logger.info('Execution belongs to no live task; event ignored', { executionArn, executionStatus: status });
    return;
  }
  logger.info('Execution status recorded', {
    taskId: task.taskId,
    executionArn,
    executionStatus: status,
    taskStatus: task.status,
  });
});
