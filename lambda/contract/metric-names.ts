// Names of the task metrics, shared by the handlers that emit them and the construct's dashboard and alarms. Its own
// module, importing nothing, so that the construct (which ships without the Lambda dependencies) can read them.

/** The namespace when POWERTOOLS_METRICS_NAMESPACE is unset; the construct sets it to this too. */
export const METRICS_NAMESPACE = 'McpTasks';

/** Metric names, shared with the construct's dashboard and alarms (lib/operations/endpoint-operations.ts). */
export const METRIC = {
  TasksCreated: 'TasksCreated',
  TasksRefused: 'TasksRefused',
  TasksCompleted: 'TasksCompleted',
  TasksFailed: 'TasksFailed',
  TasksCancelled: 'TasksCancelled',
  TasksUnknown: 'TasksUnknown',
  TasksExpired: 'TasksExpired',
  /** Creation to terminal status, in ms, with the terminal event's count. */
  TimeToCompletion: 'TimeToCompletion',
  /**
   * An answered input request's wait, from the workflow's ask to the client's answer, in ms; its count is the answers.
   */
  InputWaitTime: 'InputWaitTime',
  /** Every failed attempt of an AWS call (retried ones too), dimensions `awsService` and `operation`. */
  AwsCallErrors: 'AwsCallErrors',
  /** The throttled share of AwsCallErrors. */
  AwsCallThrottles: 'AwsCallThrottles',
  /**
   * A request the OAuth proxy refused for a limit (sign-ins or metadata document fetches per source, registrations per
   * source or in total), dimension `limit`: a flood being turned away shows here.
   */
  OAuthRequestsLimited: 'OAuthRequestsLimited',
} as const;

/** Dimension names. Powertools adds `service` (POWERTOOLS_SERVICE_NAME) to every metric; these come beside it. */
export const DIMENSION = { tool: 'tool', awsService: 'awsService', operation: 'operation', limit: 'limit' } as const;

/** Environment variables Powertools reads: the construct sets them, the handlers' metrics take them. */
export const METRICS_ENV = {
  namespace: 'POWERTOOLS_METRICS_NAMESPACE',
  serviceName: 'POWERTOOLS_SERVICE_NAME',
} as const;
