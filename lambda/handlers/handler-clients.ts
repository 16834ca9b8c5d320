// The AWS clients of a deployed handler: the production clients, their failed calls counted as metrics and, when
// tracing is on, their calls traced. Made on first use: the AWS SDK loads with them (see loaded-on-first-call.ts).
import type { Tracer } from '@aws-lambda-powertools/tracer';
import { countAwsCallFailures, type PowertoolsTaskMetrics } from './powertools-metrics.js';
import type { BackendClients } from './aws-clients.js';
import { tracedClients } from './tracing.js';

export function handlerClients(
  metrics: PowertoolsTaskMetrics,
  tracer: Tracer | undefined,
): () => Promise<BackendClients> {
  return async () => {
    const { defaultClients } = await import('./aws-clients.js');
    return tracedClients(countAwsCallFailures(defaultClients(), metrics), tracer);
  };
}
