// The CloudWatch side of TaskMetrics: Powertools Metrics, written to stdout as EMF (CloudWatch turns those log lines
// into metrics; no PutMetricData call, no extra latency). Also counts failed AWS calls, by a middleware on each client.
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { DeserializeMiddleware } from '@smithy/types';
import { AuditEvent } from '../core/audit-event.js';
import type { TaskMetrics } from '../core/task-metrics.js';
import { DIMENSION, METRIC, METRICS_ENV, METRICS_NAMESPACE } from '../contract/metric-names.js';
import type { BackendClients } from './aws-clients.js';
import { operationName, THROTTLING_ERROR_NAMES } from './aws-throttling.js';

/** The lifecycle events counted, by audit event; retrieved and deleted are client reads, not task outcomes. */
const COUNTED: Partial<Record<AuditEvent, string>> = {
  [AuditEvent.Created]: METRIC.TasksCreated,
  [AuditEvent.Refused]: METRIC.TasksRefused,
  [AuditEvent.Completed]: METRIC.TasksCompleted,
  [AuditEvent.Failed]: METRIC.TasksFailed,
  [AuditEvent.Cancelled]: METRIC.TasksCancelled,
  [AuditEvent.Unknown]: METRIC.TasksUnknown,
  [AuditEvent.Expired]: METRIC.TasksExpired,
};

/**
 * Error names that are answers, not failures: the store and executor expect them (a conditional write that lost a
 * race, an idempotent start or stop), so counting them would bury real errors under normal traffic.
 */
export const EXPECTED_ERROR_NAMES: ReadonlySet<string> = new Set([
  'ConditionalCheckFailedException',
  'TransactionCanceledException',
  'ExecutionAlreadyExists',
  'ExecutionDoesNotExist',
]);

export class PowertoolsTaskMetrics implements TaskMetrics {
  private metrics: Metrics | undefined;

  /**
   * Namespace and service name come from POWERTOOLS_METRICS_NAMESPACE and POWERTOOLS_SERVICE_NAME when set. The
   * default Metrics is made by the first metric, not with the function: it opens a console of its own on stdout, and
   * a cold start's first requests (initialize, tools/list) count nothing.
   */
  constructor(metrics?: Metrics) {
    this.metrics = metrics;
  }

  /**
   * Each metric is a single metric, published at once: CloudWatch EMF gives one dimension set to all the metrics of
   * a log line, and an invocation may touch tasks of several tools, so Powertools' answer to differing dimensions
   * (singleMetric) fits, and nothing is lost to an invocation that ends without a flush.
   */
  taskEvent(event: AuditEvent, tool: string, durationMs?: number): void {
    const name = COUNTED[event];
    if (name === undefined) return;
    const dimensions = { [DIMENSION.tool]: tool };
    this.emit(dimensions, name, MetricUnit.Count, 1);
    if (durationMs !== undefined) this.emit(dimensions, METRIC.TimeToCompletion, MetricUnit.Milliseconds, durationMs);
  }

  inputAnswered(tool: string, waitedMs: number): void {
    this.emit({ [DIMENSION.tool]: tool }, METRIC.InputWaitTime, MetricUnit.Milliseconds, waitedMs);
  }

  /**
   * Counts one failed attempt of `operation` on `awsService` (expected answers aside); a throttled one counts in
   * AwsCallThrottles too.
   */
  awsCallFailed(awsService: string, operation: string, errorName: string): void {
    if (EXPECTED_ERROR_NAMES.has(errorName)) return;
    const dimensions = { [DIMENSION.awsService]: awsService, [DIMENSION.operation]: operation };
    this.emit(dimensions, METRIC.AwsCallErrors, MetricUnit.Count, 1);
    if (THROTTLING_ERROR_NAMES.has(errorName)) this.emit(dimensions, METRIC.AwsCallThrottles, MetricUnit.Count, 1);
  }

  /** Counts one OAuth request refused by `limit` (the OAuth proxy's metrics port). */
  limitReached(limit: string): void {
    this.emit({ [DIMENSION.limit]: limit }, METRIC.OAuthRequestsLimited, MetricUnit.Count, 1);
  }

  /** A single metric publishes (and forgets its dimensions) on addMetric, so each metric gets its own. */
  private emit(
    dimensions: Record<string, string>,
    name: string,
    unit: (typeof MetricUnit)[keyof typeof MetricUnit],
    value: number,
  ): void {
    this.metrics ??= new Metrics({ namespace: process.env[METRICS_ENV.namespace] ?? METRICS_NAMESPACE });
    const single = this.metrics.singleMetric();
    // addDimension, not addDimensions: the latter makes a second dimension set, not one set of several names.
    for (const [key, dimension] of Object.entries(dimensions)) single.addDimension(key, dimension);
    single.addMetric(name, unit, value);
  }
}

/**
 * Counts every failed attempt of the clients' calls. The middleware sits inside the SDK's retry loop (deserialize
 * step), so a throttle the retries absorb still counts: throttles are the early warning, before calls fail.
 */
export function countAwsCallFailures(clients: BackendClients, metrics: PowertoolsTaskMetrics): BackendClients {
  clients.dynamoDb.middlewareStack.add(failureCounter(metrics, 'DynamoDB'), FAILURE_COUNTER);
  clients.stepFunctions.middlewareStack.add(failureCounter(metrics, 'SFN'), FAILURE_COUNTER);
  clients.lambda?.middlewareStack.add(failureCounter(metrics, 'Lambda'), FAILURE_COUNTER);
  return clients;
}

/** Replaces an earlier counter on the same client (override), rather than counting twice. */
const FAILURE_COUNTER = { step: 'deserialize', name: 'countAwsCallFailures', override: true } as const;

function failureCounter<Input extends object, Output extends object>(
  metrics: PowertoolsTaskMetrics,
  awsService: string,
): DeserializeMiddleware<Input, Output> {
  return (next, context) => async (args) => {
    try {
      return await next(args);
    } catch (error) {
      metrics.awsCallFailed(
        awsService,
        operationName(context.commandName),
        error instanceof Error ? error.name : 'Unknown',
      );
      throw error;
    }
  };
}
