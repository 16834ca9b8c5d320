// Lambda entry point of the reconciler, run every minute by EventBridge: describes the executions of active tasks
// whose check is due (a status event may have been lost), at most RECONCILER_MAX_CHECKS a run, the deployment's
// budget of Step Functions calls for this safety net. The event carries nothing; each run reads the table afresh.
import type { Context } from 'aws-lambda';
import { ENV } from '../contract/environment-names.js';
import { DEFAULT_RECONCILER_MAX_CHECKS, type ReconcileReport } from '../service/execution-reconciler.js';
import { taskCoreConfigFromEnvironment } from './environment.js';
import { positiveInteger } from './environment-values.js';
import { handlerClients } from './handler-clients.js';
import { PowertoolsTaskMetrics } from './powertools-metrics.js';
import { createTaskCore } from './task-core.js';
import { defaultLogger } from './default-logger.js';
import { traced, tracerFromEnvironment } from './tracing.js';

/** Time kept back from the function's timeout: no check begins after it, so one begun just before still ends. */
const DEADLINE_MARGIN_MS = 15_000;

const logger = defaultLogger();
const metrics = new PowertoolsTaskMetrics();
const tracer = await tracerFromEnvironment(process.env);
// This function serves no tools: it needs neither the catalog nor the MCP SDK.
const backend = createTaskCore(
  taskCoreConfigFromEnvironment(process.env),
  handlerClients(metrics, tracer),
  logger,
  metrics,
);
const maxChecks = positiveInteger(process.env, ENV.reconcilerMaxChecks, DEFAULT_RECONCILER_MAX_CHECKS);

export const handler = traced(
  tracer,
  async (_event: unknown, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<ReconcileReport> => {
    const deadline = context ? Date.now() + context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS : undefined;
    // Failed checks are in the report and the log; a thrown error (the query failed) fails the run, and the next
    // scheduled run tries again.
    return backend.service.reconcileDue({ maxChecks, ...(deadline !== undefined ? { deadline } : {}) });
  },
);
