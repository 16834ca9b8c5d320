// Operations for one McpTaskEndpoint: the alarms that say something is wrong, the dashboard that shows where, and
// the metrics environment of its functions (namespace and service name, so this endpoint's task metrics are its own).
import { Duration } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DIMENSION, METRIC, METRICS_ENV, METRICS_NAMESPACE } from '../../lambda/contract/metric-names.js';

/** The endpoint's functions, by role: each gets an error and a throttle alarm and a line on the dashboard. */
export interface OperatedFunctions {
  readonly mcp: lambda.Function;
  readonly statusSync: lambda.Function;
  readonly expirySweep: lambda.Function;
  /** Checks the executions of tasks whose status news is old. */
  readonly reconciler: lambda.Function;
  /** Consumes the task table's stream into the task event log. */
  readonly taskEventStream: lambda.Function;
  /** Delivers webhooks, when the endpoint has them. */
  readonly webhookDelivery?: lambda.Function;
  /** The OAuth proxy's function, when the endpoint has one. */
  readonly oauth?: lambda.Function;
}
export type FunctionRole = keyof OperatedFunctions;
/** One alarm per function the endpoint has. */
export type FunctionAlarms = { readonly [Role in FunctionRole]: cloudwatch.Alarm };

function operated(functions: OperatedFunctions): [FunctionRole, lambda.Function][] {
  return (Object.entries(functions) as [FunctionRole, lambda.Function | undefined][]).filter(
    (entry): entry is [FunctionRole, lambda.Function] => entry[1] !== undefined,
  );
}

/** The task event pipeline's parts whose backlog and dead letters are watched. */
export interface OperatedTaskEvents {
  /** The stream function: its IteratorAge is how far the event log lags behind the task table. */
  readonly streamFunction: lambda.Function;
  /** The stream mapping's on-failure destination. */
  readonly streamFailureQueue: sqs.IQueue;
  /** With webhooks: the FIFO delivery queue and its dead-letter queue. */
  readonly deliveryQueue?: sqs.IQueue;
  readonly deliveryDeadLetterQueue?: sqs.IQueue;
}

export interface EndpointOperationsProps {
  /** The `service` dimension of this endpoint's task metrics: unique per endpoint, so two endpoints never mix. */
  readonly serviceName: string;
  readonly api: apigw.RestApi;
  readonly functions: OperatedFunctions;
  readonly deadLetterQueue: sqs.IQueue;
  /** The dead-letter alarm made with the queue; it notifies the topic like the alarms made here. */
  readonly deadLetterAlarm: cloudwatch.Alarm;
  readonly taskEvents: OperatedTaskEvents;
  /** Every alarm notifies this topic, on alarm and on recovery. @default - alarms without actions */
  readonly alarmTopic?: sns.ITopic;
  /** @default true */
  readonly dashboard?: boolean;
}

const PERIOD = Duration.minutes(5);
/** Share of API requests answered 5xx over one period that raises the alarm. */
export const API_5XX_RATE_THRESHOLD = 0.05;
/**
 * DescribeExecution throttles (every attempt) in one period that raise the alarm: retries absorb a few, a storm slows
 * polls.
 */
export const DESCRIBE_EXECUTION_THROTTLE_THRESHOLD = 5;
/**
 * The age of the newest stream record the stream function has read, at which the alarm goes off: events, pushes and
 * webhooks lag the task table by that much (a batch normally takes well under a second).
 */
export const TASK_EVENT_ITERATOR_AGE_THRESHOLD = Duration.minutes(5);
/**
 * The age of the oldest queued webhook delivery at which the alarm goes off: beyond a delivery's own retries (5
 * attempts, about 3 minutes of backoff), so deliveries are piling up or the function is not running.
 */
export const WEBHOOK_DELIVERY_AGE_THRESHOLD = Duration.minutes(15);

export class EndpointOperations extends Construct {
  /** More than 5% of the API's requests answered 5xx in 5 minutes (two periods in a row). */
  public readonly api5xxRateAlarm: cloudwatch.Alarm;
  /** Per function: at least one invocation error in 5 minutes. */
  public readonly functionErrorAlarms: FunctionAlarms;
  /** Per function: at least one throttled invocation in 5 minutes. */
  public readonly functionThrottleAlarms: FunctionAlarms;
  /** DescribeExecution throttled at least 5 times in 5 minutes (from the functions' AwsCallThrottles metric). */
  public readonly describeExecutionThrottleAlarm: cloudwatch.Alarm;
  /** A stream batch was given up on after its retries: its position is in the stream failure queue. */
  public readonly taskEventStreamFailureAlarm: cloudwatch.Alarm;
  /** The stream function's IteratorAge (maximum) reached 5 minutes: task events lag behind the tasks. */
  public readonly taskEventStreamIteratorAgeAlarm: cloudwatch.Alarm;
  /** A webhook delivery is in the delivery dead-letter queue. Absent without webhooks. */
  public readonly webhookDeliveryDeadLetterAlarm?: cloudwatch.Alarm;
  /** The oldest queued webhook delivery is 15 minutes old. Absent without webhooks. */
  public readonly webhookDeliveryAgeAlarm?: cloudwatch.Alarm;
  /** Absent when `dashboard` is false. */
  public readonly dashboard?: cloudwatch.Dashboard;

  private readonly serviceName: string;

  constructor(scope: Construct, id: string, props: EndpointOperationsProps) {
    super(scope, id);
    this.serviceName = props.serviceName;
    for (const [, fn] of operated(props.functions)) {
      fn.addEnvironment(METRICS_ENV.namespace, METRICS_NAMESPACE);
      fn.addEnvironment(METRICS_ENV.serviceName, props.serviceName);
    }

    this.api5xxRateAlarm = new cloudwatch.Alarm(this, 'Api5xxRate', {
      alarmDescription: 'More than 5% of MCP API requests were answered 5xx',
      // 5XXError is 0 or 1 per request, so its average is the rate.
      metric: props.api.metricServerError({ period: PERIOD, statistic: cloudwatch.Stats.AVERAGE }),
      threshold: API_5XX_RATE_THRESHOLD,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 2,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    const perFunction = (kind: 'Errors' | 'Throttles', metric: (fn: lambda.Function) => cloudwatch.IMetric) =>
      Object.fromEntries(
        operated(props.functions).map(([role, fn]) => [
          role,
          atLeastOne(this, `${capitalize(role)}${kind}`, `${role} function: ${kind.toLowerCase()}`, metric(fn)),
        ]),
      ) as unknown as FunctionAlarms;
    this.functionErrorAlarms = perFunction('Errors', (fn) =>
      fn.metricErrors({ period: PERIOD, statistic: cloudwatch.Stats.SUM }),
    );
    this.functionThrottleAlarms = perFunction('Throttles', (fn) =>
      fn.metricThrottles({ period: PERIOD, statistic: cloudwatch.Stats.SUM }),
    );
    this.describeExecutionThrottleAlarm = new cloudwatch.Alarm(this, 'DescribeExecutionThrottles', {
      alarmDescription: 'Step Functions throttles DescribeExecution: task refreshes and result waits slow down',
      metric: this.awsCallMetric(METRIC.AwsCallThrottles, 'SFN', 'DescribeExecution'),
      threshold: DESCRIBE_EXECUTION_THROTTLE_THRESHOLD,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });

    const events = props.taskEvents;
    this.taskEventStreamFailureAlarm = atLeastOne(
      this,
      'TaskEventStreamFailures',
      'Task table stream records were given up on after their retries (their positions are in the stream failure ' +
        'queue): those changes are missing from the task event log and its webhooks',
      visibleMessages(events.streamFailureQueue),
    );
    this.taskEventStreamIteratorAgeAlarm = new cloudwatch.Alarm(this, 'TaskEventStreamIteratorAge', {
      alarmDescription: 'The task event log lags the task table by 5 minutes or more (stream function IteratorAge)',
      metric: iteratorAge(events.streamFunction),
      threshold: TASK_EVENT_ITERATOR_AGE_THRESHOLD.toMilliseconds(),
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    if (events.deliveryQueue && events.deliveryDeadLetterQueue) {
      this.webhookDeliveryDeadLetterAlarm = atLeastOne(
        this,
        'WebhookDeliveryDeadLetters',
        'Webhook deliveries the delivery function kept failing on (crashes or timeouts, not refusing receivers) ' +
          'are in the delivery dead-letter queue',
        visibleMessages(events.deliveryDeadLetterQueue),
      );
      this.webhookDeliveryAgeAlarm = new cloudwatch.Alarm(this, 'WebhookDeliveryAge', {
        alarmDescription: 'The oldest queued webhook delivery is 15 minutes old or more: deliveries are piling up',
        metric: events.deliveryQueue.metricApproximateAgeOfOldestMessage({
          period: PERIOD,
          statistic: cloudwatch.Stats.MAXIMUM,
        }),
        threshold: WEBHOOK_DELIVERY_AGE_THRESHOLD.toSeconds(),
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    }

    if (props.alarmTopic) {
      const action = new cloudwatchActions.SnsAction(props.alarmTopic);
      for (const alarm of this.alarms(props.deadLetterAlarm)) {
        alarm.addAlarmAction(action);
        alarm.addOkAction(action);
      }
    }
    if (props.dashboard ?? true) this.dashboard = this.createDashboard(props);
  }

  /** Every alarm of the endpoint, the dead-letter alarm included. */
  private alarms(deadLetterAlarm: cloudwatch.Alarm): cloudwatch.Alarm[] {
    return [
      this.api5xxRateAlarm,
      ...Object.values(this.functionErrorAlarms),
      ...Object.values(this.functionThrottleAlarms),
      this.describeExecutionThrottleAlarm,
      deadLetterAlarm,
      this.taskEventStreamFailureAlarm,
      this.taskEventStreamIteratorAgeAlarm,
      ...(this.webhookDeliveryDeadLetterAlarm ? [this.webhookDeliveryDeadLetterAlarm] : []),
      ...(this.webhookDeliveryAgeAlarm ? [this.webhookDeliveryAgeAlarm] : []),
    ];
  }

  /** A task or AWS-call metric of this endpoint (the `service` dimension Powertools adds is part of every one). */
  private awsCallMetric(name: string, awsService: string, operation: string): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: METRICS_NAMESPACE,
      metricName: name,
      dimensionsMap: {
        service: this.serviceName,
        [DIMENSION.awsService]: awsService,
        [DIMENSION.operation]: operation,
      },
      period: PERIOD,
      statistic: cloudwatch.Stats.SUM,
    });
  }

  /** One line per tool, whatever tools exist now or later: a SEARCH over this endpoint's `tool` dimension. */
  private perTool(metricName: string, statistic: string, label: string): cloudwatch.MathExpression {
    return new cloudwatch.MathExpression({
      expression:
        `SEARCH('{${METRICS_NAMESPACE},${DIMENSION.tool},service} MetricName="${metricName}" ` +
        `service="${this.serviceName}"', '${statistic}', ${PERIOD.toSeconds()})`,
      label,
      period: PERIOD,
    });
  }

  private createDashboard(props: EndpointOperationsProps): cloudwatch.Dashboard {
    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(3) });
    const fns = operated(props.functions);
    const graph = (title: string, left: cloudwatch.IMetric[], width = 8) =>
      new cloudwatch.GraphWidget({ title, left, width, height: 6 });
    dashboard.addWidgets(
      graph('API 5xx and 4xx', [
        props.api.metricServerError({ period: PERIOD, statistic: 'Sum' }),
        props.api.metricClientError({ period: PERIOD, statistic: 'Sum' }),
      ]),
      graph('API latency (p50, p99)', [
        props.api.metricLatency({ period: PERIOD, statistic: 'p50' }),
        props.api.metricLatency({ period: PERIOD, statistic: 'p99' }),
      ]),
      graph('Status dead-letter queue depth', [
        props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }),
      ]),
    );
    dashboard.addWidgets(
      graph(
        'Lambda errors',
        fns.map(([role, fn]) => fn.metricErrors({ period: PERIOD, statistic: 'Sum', label: role })),
      ),
      graph(
        'Lambda throttles',
        fns.map(([role, fn]) => fn.metricThrottles({ period: PERIOD, statistic: 'Sum', label: role })),
      ),
      graph(
        'Lambda duration (p99)',
        fns.map(([role, fn]) => fn.metricDuration({ period: PERIOD, statistic: 'p99', label: role })),
      ),
    );
    dashboard.addWidgets(
      graph('Tasks created per tool', [this.perTool(METRIC.TasksCreated, 'Sum', 'created')], 6),
      graph('Tasks completed per tool', [this.perTool(METRIC.TasksCompleted, 'Sum', 'completed')], 6),
      graph('Tasks failed per tool', [this.perTool(METRIC.TasksFailed, 'Sum', 'failed')], 6),
      graph('Time to completion per tool (p90, ms)', [this.perTool(METRIC.TimeToCompletion, 'p90', 'p90')], 6),
    );
    dashboard.addWidgets(
      // How long workflows wait on people (or their clients) once they ask, and how many answers came.
      graph('Time waiting for input per tool (p90, ms)', [this.perTool(METRIC.InputWaitTime, 'p90', 'p90')], 12),
      graph('Input answers per tool', [this.perTool(METRIC.InputWaitTime, 'SampleCount', 'answers')], 12),
    );
    dashboard.addWidgets(
      graph(
        'DescribeExecution throttles',
        [
          this.awsCallMetric(METRIC.AwsCallThrottles, 'SFN', 'DescribeExecution').with({
            label: 'this endpoint (every attempt)',
          }),
          // The account-wide view Step Functions publishes itself, every caller of the API in the region included.
          new cloudwatch.Metric({
            namespace: 'AWS/States',
            metricName: 'ThrottledEvents',
            dimensionsMap: { APIName: 'DescribeExecution' },
            period: PERIOD,
            statistic: 'Sum',
            label: 'account (AWS/States)',
          }),
        ],
        12,
      ),
      graph(
        'AWS call errors by service and operation',
        [
          new cloudwatch.MathExpression({
            expression:
              `SEARCH('{${METRICS_NAMESPACE},${DIMENSION.awsService},${DIMENSION.operation},service} ` +
              `MetricName="${METRIC.AwsCallErrors}" service="${this.serviceName}"', 'Sum', ` +
              `${PERIOD.toSeconds()})`,
            label: 'errors',
            period: PERIOD,
          }),
        ],
        12,
      ),
    );
    dashboard.addWidgets(...this.taskEventWidgets(props.taskEvents));
    return dashboard;
  }

  /** How far the event log lags, the deliveries queued and finished, the queue's backlog, and the dead letters. */
  private taskEventWidgets(events: OperatedTaskEvents): cloudwatch.GraphWidget[] {
    const { deliveryQueue, deliveryDeadLetterQueue } = events;
    const width = deliveryQueue ? 6 : 12;
    const graph = (title: string, left: cloudwatch.IMetric[], right: cloudwatch.IMetric[] = []) =>
      new cloudwatch.GraphWidget({ title, left, right, width, height: 6 });
    const sum = { period: PERIOD, statistic: cloudwatch.Stats.SUM };
    return [
      graph('Task event stream iterator age (max, ms)', [iteratorAge(events.streamFunction)]),
      ...(deliveryQueue
        ? [
            graph('Webhook deliveries queued and finished', [
              deliveryQueue.metricNumberOfMessagesSent({ ...sum, label: 'queued' }),
              deliveryQueue.metricNumberOfMessagesDeleted({ ...sum, label: 'finished (delivered or dropped)' }),
            ]),
            graph(
              'Webhook delivery queue',
              [visibleMessages(deliveryQueue).with({ label: 'waiting' })],
              [
                deliveryQueue.metricApproximateAgeOfOldestMessage({
                  period: PERIOD,
                  statistic: cloudwatch.Stats.MAXIMUM,
                  label: 'oldest (s)',
                }),
              ],
            ),
          ]
        : []),
      graph('Task event dead letters', [
        visibleMessages(events.streamFailureQueue).with({ label: 'stream batches given up on' }),
        ...(deliveryDeadLetterQueue
          ? [visibleMessages(deliveryDeadLetterQueue).with({ label: 'webhook deliveries' })]
          : []),
      ]),
    ];
  }
}

/** The messages waiting in a queue (the maximum over a period). */
function visibleMessages(queue: sqs.IQueue): cloudwatch.Metric {
  return queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: cloudwatch.Stats.MAXIMUM });
}

/** How old the last stream record a stream-consuming function read was (the maximum over a period, ms). */
function iteratorAge(fn: lambda.Function): cloudwatch.Metric {
  return fn.metric('IteratorAge', { period: PERIOD, statistic: cloudwatch.Stats.MAXIMUM });
}

/** In alarm as soon as `metric` (a Sum of occurrences, or a Maximum of waiting messages) reaches 1 in a period. */
function atLeastOne(scope: Construct, id: string, description: string, metric: cloudwatch.IMetric): cloudwatch.Alarm {
  return new cloudwatch.Alarm(scope, id, {
    alarmDescription: description,
    metric,
    threshold: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
