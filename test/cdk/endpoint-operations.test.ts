// The endpoint's operations in the template: its alarms (each on the right metric), the dashboard (and its opt-out),
// the alarm topic as every alarm's action, the metrics environment the functions emit under, and the alarm on the
// tool catalog refresher that discoverTools adds.
import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import { describe, expect, it } from 'vitest';
import { DIMENSION, METRIC, METRICS_ENV, METRICS_NAMESPACE } from '../../lambda/contract/metric-names.js';
import { McpTaskEndpoint } from '../../lib/mcp-task-endpoint.js';
import type { McpTaskEndpointProps } from '../../lib/props/mcp-task-endpoint-props.js';
import {
  API_5XX_RATE_THRESHOLD,
  DESCRIBE_EXECUTION_THROTTLE_THRESHOLD,
} from '../../lib/operations/endpoint-operations.js';
import { logicalId, testStack } from './cdk-app.js';

function synth(props: McpTaskEndpointProps = {}, withTopic = false) {
  const stack = testStack();
  const topic = withTopic ? new sns.Topic(stack, 'Alarms') : undefined;
  const endpoint = new McpTaskEndpoint(stack, 'Endpoint', {
    openEndpoint: true,
    ...props,
    ...(topic ? { alarmTopic: topic } : {}),
  });
  return { stack, endpoint, topic, template: Template.fromStack(stack) };
}

/**
 * An open endpoint's alarms: errors and throttles of its six functions (MCP, status sync, expiry sweep, reconciler,
 * task event stream, webhook delivery), the API 5xx rate, DescribeExecution throttles, the status dead letters, and
 * the task events' four (stream failures, iterator age, delivery dead letters, delivery age).
 */
const ALARM_COUNT = 6 * 2 + 3 + 4;

type AlarmProperties = Record<string, unknown>;
function alarmOf(
  template: Template,
  stack: ReturnType<typeof testStack>,
  alarm: { node: { defaultChild?: unknown } },
): AlarmProperties {
  return template.toJSON()['Resources'][logicalId(stack, alarm)]['Properties'] as AlarmProperties;
}

describe('endpoint operations', () => {
  const { stack, endpoint, template } = synth();
  const variables = (fn: lambda.Function) =>
    stack.resolve((fn.node.defaultChild as lambda.CfnFunction).environment).variables as Record<string, string>;
  const serviceName = variables(endpoint.mcpFunction)[METRICS_ENV.serviceName];

  it('every function emits its metrics under the namespace and one service name for the endpoint', () => {
    expect(serviceName).toMatch(/^TestStack.*Endpoint/);
    for (const fn of [
      endpoint.mcpFunction,
      endpoint.statusSyncFunction,
      endpoint.expirySweep.function,
      endpoint.taskEventStreamHandler.function,
      endpoint.webhookDeliveryHandler!.function,
    ]) {
      expect(variables(fn)).toMatchObject({
        [METRICS_ENV.namespace]: METRICS_NAMESPACE,
        [METRICS_ENV.serviceName]: serviceName,
      });
    }
  });

  it('the API 5xx alarm watches the average of 5XXError (the rate) above 5%', () => {
    const alarm = alarmOf(template, stack, endpoint.operations.api5xxRateAlarm);
    expect(alarm).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      MetricName: '5XXError',
      Statistic: 'Average',
      Threshold: API_5XX_RATE_THRESHOLD,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(alarm['Dimensions']).toEqual([{ Name: 'ApiName', Value: expect.anything() }]);
  });

  it('each function has an Errors and a Throttles alarm on its own metric, from the first one', () => {
    const functions = {
      mcp: endpoint.mcpFunction,
      statusSync: endpoint.statusSyncFunction,
      expirySweep: endpoint.expirySweep.function,
      taskEventStream: endpoint.taskEventStreamHandler.function,
      webhookDelivery: endpoint.webhookDeliveryHandler!.function,
    };
    for (const [role, fn] of Object.entries(functions) as [keyof typeof functions, typeof endpoint.mcpFunction][]) {
      for (const [metricName, alarm] of [
        ['Errors', endpoint.operations.functionErrorAlarms[role]],
        ['Throttles', endpoint.operations.functionThrottleAlarms[role]],
      ] as const) {
        expect(alarmOf(template, stack, alarm)).toMatchObject({
          Namespace: 'AWS/Lambda',
          MetricName: metricName,
          Statistic: 'Sum',
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalId(stack, fn) } }],
        });
      }
    }
  });

  it("the DescribeExecution throttle alarm watches this endpoint's AwsCallThrottles for SFN DescribeExecution", () => {
    const alarm = alarmOf(template, stack, endpoint.operations.describeExecutionThrottleAlarm);
    expect(alarm).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      MetricName: METRIC.AwsCallThrottles,
      Statistic: 'Sum',
      Threshold: DESCRIBE_EXECUTION_THROTTLE_THRESHOLD,
    });
    expect(alarm['Dimensions']).toEqual(
      expect.arrayContaining([
        { Name: 'service', Value: serviceName },
        { Name: DIMENSION.awsService, Value: 'SFN' },
        { Name: DIMENSION.operation, Value: 'DescribeExecution' },
      ]),
    );
  });

  it('without a topic, the alarms have no actions', () => {
    for (const alarm of Object.values(template.findResources('AWS::CloudWatch::Alarm')))
      expect(alarm['Properties']['AlarmActions']).toBeUndefined();
  });

  it("a dashboard is made by default, with per-tool SEARCH graphs of this endpoint's task metrics", () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    const body = JSON.stringify(
      stack.resolve((endpoint.operations.dashboard!.node.defaultChild as cloudwatch.CfnDashboard).dashboardBody),
    );
    for (const name of [
      METRIC.TasksCreated,
      METRIC.TasksCompleted,
      METRIC.TasksFailed,
      METRIC.TimeToCompletion,
      METRIC.InputWaitTime,
    ])
      expect(body).toContain(`MetricName=\\\\\\"${name}\\\\\\" service=\\\\\\"${serviceName}\\\\\\"`);
    for (const name of [
      '5XXError',
      '4XXError',
      'Latency',
      'Errors',
      'Throttles',
      'Duration',
      'ApproximateNumberOfMessagesVisible',
      METRIC.AwsCallThrottles,
    ])
      expect(body).toContain(name);
  });
});

describe('endpoint operations, configured', () => {
  it('with the OAuth proxy, its function has Errors and Throttles alarms too, and a line on the dashboard', () => {
    const { stack, endpoint, template } = synth({ openEndpoint: false });
    const oauthFunction = endpoint.oauthProxy!.function;
    for (const [metricName, alarm] of [
      ['Errors', endpoint.operations.functionErrorAlarms.oauth],
      ['Throttles', endpoint.operations.functionThrottleAlarms.oauth],
    ] as const)
      expect(alarmOf(template, stack, alarm!)).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: metricName,
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalId(stack, oauthFunction) } }],
      });
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    expect(JSON.stringify(dashboard!['Properties']['DashboardBody'])).toContain(
      JSON.stringify({ Ref: logicalId(stack, oauthFunction) }),
    );
  });

  it('without the OAuth proxy there is no alarm for it', () => {
    expect(synth().endpoint.operations.functionErrorAlarms.oauth).toBeUndefined();
  });

  it('dashboard: false makes no dashboard, and the alarms still exist', () => {
    const { endpoint, template } = synth({ dashboard: false });
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 0);
    expect(endpoint.operations.dashboard).toBeUndefined();
    template.resourceCountIs('AWS::CloudWatch::Alarm', ALARM_COUNT);
  });

  it('with alarmTopic, every alarm (the dead-letter alarm too) notifies it on alarm and on recovery', () => {
    const { stack, template, topic } = synth({}, true);
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(ALARM_COUNT);
    const action = [{ Ref: logicalId(stack, topic!) }];
    for (const alarm of alarms) expect(alarm['Properties']).toMatchObject({ AlarmActions: action, OKActions: action });
    template.hasResourceProperties(
      'AWS::CloudWatch::Alarm',
      Match.objectLike({ MetricName: 'ApproximateNumberOfMessagesVisible', AlarmActions: action }),
    );
  });
});

describe('the tool catalog refresher’s alarm (discoverTools)', () => {
  function discovering(refreshRate: Duration | undefined, withTopic = false) {
    const stack = testStack();
    const topic = withTopic ? new sns.Topic(stack, 'Alarms') : undefined;
    const endpoint = new McpTaskEndpoint(stack, 'Endpoint', {
      openEndpoint: true,
      ...(topic ? { alarmTopic: topic } : {}),
    });
    const discovery = endpoint.discoverTools({ namePrefix: 'orders-', ...(refreshRate ? { refreshRate } : {}) });
    const template = Template.fromStack(stack);
    return { alarm: alarmOf(template, stack, discovery.refreshFailureAlarm), stack, discovery, topic, template };
  }

  it('goes off when refreshes failed in two refresh periods in a row, each as long as the refresh rate', () => {
    const { alarm, stack, discovery } = discovering(undefined);
    expect(alarm).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 2,
      DatapointsToAlarm: 2,
      TreatMissingData: 'notBreaching',
    });
    expect(alarm['Dimensions']).toEqual([
      { Name: 'FunctionName', Value: { Ref: logicalId(stack, discovery.function) } },
    ]);
    expect(alarm['AlarmActions']).toBeUndefined();
  });

  it('counts over the refresh rate, at most 12 hours, so that two periods fit in CloudWatch’s day', () => {
    expect(discovering(Duration.minutes(30)).alarm['Period']).toBe(30 * 60);
    expect(discovering(Duration.days(1)).alarm['Period']).toBe(12 * 60 * 60);
  });

  it('notifies the endpoint’s alarm topic on alarm and on recovery', () => {
    const { alarm, stack, topic } = discovering(undefined, true);
    const action = [{ Ref: logicalId(stack, topic!) }];
    expect(alarm).toMatchObject({ AlarmActions: action, OKActions: action });
  });
});
