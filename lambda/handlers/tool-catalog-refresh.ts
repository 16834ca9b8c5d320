// Lambda entry point of the tool catalog refresher, run on a schedule and when a state machine is created, updated,
// deleted or (un)tagged (EventBridge, the latter through CloudTrail): reads the account's selected machines and
// writes the discovered tools into the task table. The event carries nothing it needs; each run reads the account
// afresh, so a burst of changes costs a few full refreshes, never a wrong catalog.
import { SchemasClient } from '@aws-sdk/client-schemas';
import type { RefreshReport } from '../discovery/catalog-refresher.js';
import { AWS_CLIENT_BOUNDS } from './aws-clients.js';
import { handlerClients } from './handler-clients.js';
import { PowertoolsTaskMetrics } from './powertools-metrics.js';
import { defaultLogger } from './default-logger.js';
import { createCatalogRefresher } from './tool-catalog-refresh-core.js';
import { catalogRefreshConfigFromEnvironment } from './tool-catalog-refresh-environment.js';
import { traced, tracerFromEnvironment } from './tracing.js';

const logger = defaultLogger();
const metrics = new PowertoolsTaskMetrics();
const tracer = await tracerFromEnvironment(process.env);
const schemas = new SchemasClient({ ...AWS_CLIENT_BOUNDS });
const refresher = createCatalogRefresher(
  catalogRefreshConfigFromEnvironment(process.env),
  { ...(await handlerClients(metrics, tracer)()), schemas: tracer ? tracer.captureAWSv3Client(schemas) : schemas },
  logger,
);

// A failed read fails the run (the refresher leaves the stored catalog as it was); the next trigger tries again.
// AWS throttling is not translated here (busyWhenThrottled serves the MCP protocol's retry answer): a throttled
// refresh simply fails, and the schedule repeats it.
export const handler = traced(tracer, async (): Promise<RefreshReport> => refresher.refresh());
