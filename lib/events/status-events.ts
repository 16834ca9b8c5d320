// Status push: one EventBridge rule per registered state machine or durable function, matching the status changes of
// the executions this backend started (RUNNING and the terminal ones) and delivering them to the status-sync function;
// what cannot be delivered or applied ends in one dead-letter queue.
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import {
  ExecutionStatus,
  EXECUTION_STATUS_CHANGE,
  STEP_FUNCTIONS_EVENT_SOURCE,
} from '../../lambda/contract/execution-status-events.js';
import { EXECUTION_NAME_PREFIX } from '../../lambda/contract/execution-name.js';
import {
  DURABLE_EXECUTION_STATUS_CHANGE,
  FOLLOWED_DURABLE_STATUSES,
  LAMBDA_EVENT_SOURCE,
} from '../../lambda/contract/durable-execution-status-events.js';
import { STATUS_EVENT_MAX_AGE, STATUS_EVENT_TARGET_RETRY_ATTEMPTS } from '../props/mcp-task-endpoint-defaults.js';

/**
 * RUNNING moves a task from `submitted` to `working`; the terminal statuses finish it. PENDING_REDRIVE is left out:
 * it only follows a failure, and a finished task never changes again.
 */
export const PUSHED_EXECUTION_STATUSES: readonly string[] = [
  ExecutionStatus.Running,
  ExecutionStatus.Succeeded,
  ExecutionStatus.Failed,
  ExecutionStatus.TimedOut,
  ExecutionStatus.Aborted,
];

/** Holds events for 14 days: those EventBridge could not deliver and those the function failed on after its retries. */
export function createStatusDeadLetterQueue(scope: Construct, id: string): sqs.Queue {
  return new sqs.Queue(scope, id, {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
}

/** In alarm as soon as one event sits in the dead-letter queue: a task status change was lost to the push path. */
export function createStatusDeadLetterAlarm(scope: Construct, id: string, queue: sqs.IQueue): cloudwatch.Alarm {
  return new cloudwatch.Alarm(scope, id, {
    alarmDescription:
      'MCP task status events could not be applied and are in the dead-letter queue; tasks catch ' +
      'up only on a poll refresh',
    metric: queue.metricApproximateNumberOfMessagesVisible({
      period: Duration.minutes(5),
      statistic: cloudwatch.Stats.MAXIMUM,
    }),
    threshold: 0,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
}

export interface StatusRuleProps {
  readonly stateMachineArn: string;
  readonly handler: lambda.IFunction;
  readonly deadLetterQueue: sqs.IQueue;
}

/**
 * A rule per machine keeps every pattern far below EventBridge's 2048-character limit, however many tools there are.
 * Delivery is best effort, so the backend still refreshes a task from Step Functions when an event goes missing.
 */
export function createStatusRule(scope: Construct, id: string, props: StatusRuleProps): events.Rule {
  return createStatusRuleMatching(scope, id, {
    ...props,
    stateMachineArns: [props.stateMachineArn],
    description: 'Step Functions execution status changes of one MCP tool, pushed into the task table',
  });
}

export interface StatusRuleMatchingProps extends Omit<StatusRuleProps, 'stateMachineArn'> {
  /** EventBridge matchers of the machine ARN: an ARN, or `{ prefix }` for every machine whose ARN starts so. */
  readonly stateMachineArns: ReadonlyArray<string | { readonly prefix: string }>;
  readonly description: string;
}

/** The status rule for the machines the matchers name: one ARN, or (for discovered tools) ARN prefixes and names. */
export function createStatusRuleMatching(scope: Construct, id: string, props: StatusRuleMatchingProps): events.Rule {
  return new events.Rule(scope, id, {
    description: props.description,
    eventPattern: {
      source: [STEP_FUNCTIONS_EVENT_SOURCE],
      detailType: [EXECUTION_STATUS_CHANGE],
      // Only executions this backend started: another user of a shared machine never invokes status-sync.
      detail: {
        stateMachineArn: [...props.stateMachineArns],
        name: [{ prefix: EXECUTION_NAME_PREFIX }],
        status: [...PUSHED_EXECUTION_STATUSES],
      },
    },
    targets: [
      new targets.LambdaFunction(props.handler, {
        deadLetterQueue: props.deadLetterQueue,
        retryAttempts: STATUS_EVENT_TARGET_RETRY_ATTEMPTS,
        maxEventAge: STATUS_EVENT_MAX_AGE,
      }),
    ],
  });
}

export interface DurableStatusRuleProps extends Omit<StatusRuleProps, 'stateMachineArn'> {
  /** The durable function's unqualified ARN: its executions' ARNs start with it and `:<version>`. */
  readonly functionArn: string;
}

/**
 * The status rule of one durable function: Lambda's "Durable Execution Status Change" events of the executions this
 * backend started (named `task-…`), of any version of the function, RUNNING and every terminal status.
 */
export function createDurableStatusRule(scope: Construct, id: string, props: DurableStatusRuleProps): events.Rule {
  return new events.Rule(scope, id, {
    description: 'Lambda durable execution status changes of one MCP tool, pushed into the task table',
    eventPattern: {
      source: [LAMBDA_EVENT_SOURCE],
      detailType: [DURABLE_EXECUTION_STATUS_CHANGE],
      detail: {
        durableExecutionArn: [{ prefix: `${props.functionArn}:` }],
        durableExecutionName: [{ prefix: EXECUTION_NAME_PREFIX }],
        status: [...FOLLOWED_DURABLE_STATUSES],
      },
    },
    targets: [
      new targets.LambdaFunction(props.handler, {
        deadLetterQueue: props.deadLetterQueue,
        retryAttempts: STATUS_EVENT_TARGET_RETRY_ATTEMPTS,
        maxEventAge: STATUS_EVENT_MAX_AGE,
      }),
    ],
  });
}
