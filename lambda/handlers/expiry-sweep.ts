// Lambda entry point of the expiry sweep, run on a schedule (EventBridge): stops the executions of tasks that
// expired unread and finishes those tasks. The event carries nothing; each run reads the table afresh.
import type { Context } from 'aws-lambda';
import { expirySweepConfigFromEnvironment } from './environment.js';
import { createExpirySweep } from './expiry-sweep-core.js';
import { handlerClients } from './handler-clients.js';
import { PowertoolsTaskMetrics } from './powertools-metrics.js';
import { defaultLogger } from './default-logger.js';
import { traced, tracerFromEnvironment } from './tracing.js';
import type { ExpirySweepReport } from '../service/expiry-sweep-service.js';

/**
 * Time kept back from the function's timeout: no task is started after it, so one begun just before (a few AWS
 * calls, each bounded to about 10 s with retries) still ends before the function is cut off.
 */
const DEADLINE_MARGIN_MS = 15_000;

const logger = defaultLogger();
const metrics = new PowertoolsTaskMetrics();
const tracer = await tracerFromEnvironment(process.env);
const sweep = createExpirySweep(
  expirySweepConfigFromEnvironment(process.env),
  await handlerClients(metrics, tracer)(),
  logger,
  metrics,
);

export const handler = traced(
  tracer,
  async (_event: unknown, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<ExpirySweepReport> => {
    const deadline = context ? Date.now() + context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS : undefined;
    // Failures of single tasks are in the report and the log; a thrown error (the query failed) fails the run, and
    // the next scheduled run tries again.
    return sweep.run(deadline !== undefined ? { deadline } : {});
  },
);
