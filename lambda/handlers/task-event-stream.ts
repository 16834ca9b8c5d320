// Lambda entry point for the task table's DynamoDB stream: each change of a task becomes its next event, and the
// deliveries its webhook subscriptions are owed are queued (task-event-stream-core.ts, events/task-event-projector.ts).
// A change that fails is reported as the batch's failure: the event source mapping retries from it, then sends what
// it gives up on to its on-failure destination.
import { SYSTEM_CLOCK } from '../core/clock.js';
import { EVENTS_ENV } from '../contract/environment-names.js';
import { TaskEventProjector } from '../events/task-event-projector.js';
import { taskEventsConfigFromEnvironment } from './events-environment.js';
import { handlerClients } from './handler-clients.js';
import { PowertoolsTaskMetrics } from './powertools-metrics.js';
import { createTaskEventParts } from './task-events-core.js';
import { createTaskEventStreamHandler } from './task-event-stream-core.js';
import { defaultLogger } from './default-logger.js';
import { traced, tracerFromEnvironment } from './tracing.js';

const logger = defaultLogger();
const tracer = await tracerFromEnvironment(process.env);
const config = taskEventsConfigFromEnvironment(process.env);
if (config === undefined) throw new Error(`Environment variable ${EVENTS_ENV.eventTableName} is required`);
const parts = createTaskEventParts(config, handlerClients(new PowertoolsTaskMetrics(), tracer), {
  clock: SYSTEM_CLOCK,
  logger,
});
const projector = new TaskEventProjector({
  events: parts.events,
  ...(parts.subscriptionStore && config.webhooks
    ? { webhooks: { subscriptions: parts.subscriptionStore, queue: config.webhooks.queue } }
    : {}),
  clock: SYSTEM_CLOCK,
  logger,
});

export const handler = traced(tracer, createTaskEventStreamHandler(projector, logger));
