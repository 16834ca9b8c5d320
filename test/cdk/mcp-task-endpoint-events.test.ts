// Task events and webhooks as the example app deploys them: the task table's stream, the events table, the stream
// function and its event source mapping, the FIFO delivery queue and its dead-letter queue, the delivery function,
// the sealing key (named to the functions by ARN only), least privilege for the three functions that touch them, and
// the alarms. The props that change them are in mcp-task-endpoint-events-options.test.ts.
import { existsSync } from 'node:fs';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { describe, expect, it } from 'vitest';
import { ENV, EVENTS_ENV } from '../../lambda/contract/environment-names.js';
import { EVENT_PARTITION_KEY, EVENT_SORT_KEY, EVENT_TTL_ATTRIBUTE } from '../../lambda/contract/event-table-schema.js';
import {
  TASK_EVENT_ITERATOR_AGE_THRESHOLD,
  WEBHOOK_DELIVERY_AGE_THRESHOLD,
} from '../../lib/operations/endpoint-operations.js';
import { EVENT_TABLE_ACTIONS } from '../../lib/events/task-events.js';
import { dynamoDbActionsOf, logicalId, ownResources } from './cdk-app.js';
import { mappingOf, queuePolicyOf, variablesOf } from './events-template.js';
import { ids, policyStatements, resource, sorted, stack, template, useEndpointTemplate } from './endpoint-template.js';
import { rolesAllowed } from './oauth-proxy-template.js';

useEndpointTemplate();

/** The example stack's event pipeline, by logical ID. */
function eventIds() {
  const { endpoint } = stack;
  return {
    eventTable: logicalId(stack, endpoint.eventTable),
    streamFunction: logicalId(stack, endpoint.taskEventStreamHandler.function),
    streamRole: logicalId(stack, endpoint.taskEventStreamHandler.role),
    failureQueue: logicalId(stack, endpoint.taskEventStreamFailureQueue),
    deliveryQueue: logicalId(stack, endpoint.webhookDeliveryQueue!),
    deadLetterQueue: logicalId(stack, endpoint.webhookDeliveryDeadLetterQueue!),
    deliveryFunction: logicalId(stack, endpoint.webhookDeliveryHandler!.function),
    deliveryRole: logicalId(stack, endpoint.webhookDeliveryHandler!.role),
    mcpRole: logicalId(stack, endpoint.mcpHandler.role),
    sealingKey: logicalId(stack, endpoint.webhookSealingKey as never),
  };
}

/** Statements as `[actions, resources]`, both sorted, for comparing a role's whole policy. */
function grantsOf(functionId: string): [string[], string[]][] {
  return policyStatements(functionId)
    .map((statement): [string[], string[]] => [
      sorted(statement.Action),
      [statement.Resource]
        .flat()
        .map((each) => JSON.stringify(each))
        .sort(),
    ])
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

const arn = (id: string) => JSON.stringify({ 'Fn::GetAtt': [id, 'Arn'] });
const SECRET_READ = ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'];
const SEND = ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'];

describe('task table stream', () => {
  it('streams every change of the task table with the item before and after', () => {
    expect(resource(ids.table).Properties['StreamSpecification']).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
  });
});

describe('events table', () => {
  it('is keyed by partition and sort key, on demand, TTL-swept, with point-in-time recovery and encryption at rest, and no stream', () => {
    const { eventTable } = eventIds();
    expect(resource(eventTable).Properties).toEqual({
      KeySchema: [
        { AttributeName: EVENT_PARTITION_KEY, KeyType: 'HASH' },
        { AttributeName: EVENT_SORT_KEY, KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: EVENT_PARTITION_KEY, AttributeType: 'S' },
        { AttributeName: EVENT_SORT_KEY, AttributeType: 'S' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: EVENT_TTL_ATTRIBUTE, Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
  });

  it('is retained with the task table by default', () => {
    expect(template.toJSON()['Resources'][eventIds().eventTable]).toMatchObject({
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });
});

describe('task event stream function', () => {
  it('reads the task table stream from its start, 100 records at a time, four batches of a shard at once, bisecting and retrying a failing batch, reporting failed items, into an on-failure queue', () => {
    const { streamFunction, failureQueue } = eventIds();
    expect(mappingOf(streamFunction, template)).toEqual({
      FunctionName: { Ref: streamFunction },
      EventSourceArn: { 'Fn::GetAtt': [ids.table, 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      ParallelizationFactor: 4,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      MaximumRecordAgeInSeconds: 24 * 60 * 60,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [failureQueue, 'Arn'] } } },
    });
  });

  it('keeps failed stream positions 14 days in an encrypted queue that takes TLS only', () => {
    const { failureQueue } = eventIds();
    expect(resource(failureQueue).Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 60 * 60,
    });
    expect(resource(failureQueue).Properties['FifoQueue']).toBeUndefined();
    expect(JSON.stringify(queuePolicyOf(failureQueue))).toContain('"aws:SecureTransport":"false"');
  });

  it('is given the task table, the events table, webhooks on, the delivery queue and the sealing key’s ARN', () => {
    const { streamFunction, eventTable, deliveryQueue, sealingKey } = eventIds();
    expect(variablesOf(streamFunction, template)).toMatchObject({
      [ENV.tableName]: { Ref: ids.table },
      [EVENTS_ENV.eventTableName]: { Ref: eventTable },
      [EVENTS_ENV.webhooksEnabled]: 'true',
      [EVENTS_ENV.deliveryQueueUrl]: { Ref: deliveryQueue },
      [EVENTS_ENV.sealingKeySecretArn]: { Ref: sealingKey },
    });
  });
});

describe('webhook delivery', () => {
  it('queues deliveries in an encrypted FIFO queue, deduplicated per message group by ID (never by content), hidden longer than the function runs, kept 14 days, with a FIFO dead-letter queue after 10 receives', () => {
    const { deliveryQueue, deadLetterQueue, deliveryFunction } = eventIds();
    const timeout = resource(deliveryFunction).Properties['Timeout'] as number;
    const queue = resource(deliveryQueue).Properties;
    expect(queue).toMatchObject({
      FifoQueue: true,
      ContentBasedDeduplication: false,
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 60 * 60,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [deadLetterQueue, 'Arn'] }, maxReceiveCount: 10 },
    });
    expect(queue['VisibilityTimeout']).toBeGreaterThan(timeout);
    expect(resource(deadLetterQueue).Properties).toMatchObject({
      FifoQueue: true,
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 60 * 60,
    });
    for (const queueId of [deliveryQueue, deadLetterQueue])
      expect(JSON.stringify(queuePolicyOf(queueId))).toContain('"aws:SecureTransport":"false"');
  });

  it('hands the delivery function one delivery at a time, to at most 50 instances at once, and takes it back when it reports it failed', () => {
    const { deliveryFunction, deliveryQueue } = eventIds();
    expect(mappingOf(deliveryFunction, template)).toEqual({
      FunctionName: { Ref: deliveryFunction },
      EventSourceArn: { 'Fn::GetAtt': [deliveryQueue, 'Arn'] },
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 50 },
    });
  });

  it('gives the delivery function the events table, the sealing key’s ARN and the queue, not the task table', () => {
    const { deliveryFunction, eventTable, deliveryQueue, sealingKey } = eventIds();
    const variables = variablesOf(deliveryFunction, template);
    expect(variables).toMatchObject({
      [EVENTS_ENV.eventTableName]: { Ref: eventTable },
      [EVENTS_ENV.sealingKeySecretArn]: { Ref: sealingKey },
      [EVENTS_ENV.deliveryQueueUrl]: { Ref: deliveryQueue },
    });
    expect(variables[ENV.tableName]).toBeUndefined();
    expect(variables[EVENTS_ENV.trustedCallbackOrigins]).toBeUndefined();
    expect(resource(deliveryFunction).Properties['Timeout']).toBe(60);
  });
});

describe('sealing key', () => {
  it('is 64 generated letters and digits, retained by default', () => {
    const { sealingKey } = eventIds();
    expect(template.toJSON()['Resources'][sealingKey]).toMatchObject({
      Type: 'AWS::SecretsManager::Secret',
      DeletionPolicy: 'Retain',
      Properties: { GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true, IncludeSpace: false } },
    });
    expect(resource(sealingKey).Properties['SecretString']).toBeUndefined();
  });

  it('appears in no function’s environment but as its ARN, for the MCP, stream and delivery functions', () => {
    const { sealingKey, streamFunction, deliveryFunction } = eventIds();
    const holders: string[] = [];
    for (const [functionId, fn] of Object.entries(ownResources(template, 'AWS::Lambda::Function'))) {
      for (const [name, value] of Object.entries(
        (fn.Properties['Environment']?.Variables ?? {}) as Record<string, unknown>,
      )) {
        if (!JSON.stringify(value).includes(`"${sealingKey}"`)) continue;
        expect(value, `${functionId} ${name}`).toEqual({ Ref: sealingKey });
        expect(name).toBe(EVENTS_ENV.sealingKeySecretArn);
        holders.push(functionId);
      }
    }
    expect(holders.sort()).toEqual([ids.mcpFunction, streamFunction, deliveryFunction].sort());
    // No dynamic reference resolves its value at deployment anywhere.
    expect(JSON.stringify(template.toJSON())).not.toMatch(/resolve:secretsmanager/);
  });

  it('is readable by those three functions and no one else', () => {
    const { sealingKey, mcpRole, streamRole, deliveryRole } = eventIds();
    expect(rolesAllowed(template, 'secretsmanager:GetSecretValue', sealingKey)).toEqual(
      [mcpRole, streamRole, deliveryRole].sort(),
    );
  });
});

describe('the MCP function and task events', () => {
  it('is given the events table, webhooks on, the delivery queue (for a subscription’s replay) and the sealing key’s ARN', () => {
    const { eventTable, sealingKey, deliveryQueue } = eventIds();
    const variables = variablesOf(ids.mcpFunction, template);
    expect(variables).toMatchObject({
      [EVENTS_ENV.eventTableName]: { Ref: eventTable },
      [EVENTS_ENV.webhooksEnabled]: 'true',
      [EVENTS_ENV.deliveryQueueUrl]: { Ref: deliveryQueue },
      [EVENTS_ENV.sealingKeySecretArn]: { Ref: sealingKey },
    });
    expect(variables[EVENTS_ENV.trustedCallbackOrigins]).toBeUndefined();
  });

  it('may send to the delivery queue, and neither receive from it nor touch its dead-letter queue', () => {
    const { deliveryQueue, deadLetterQueue } = eventIds();
    const sqsStatements = policyStatements(ids.mcpFunction).filter((statement) =>
      [statement.Action].flat().some((action) => action.startsWith('sqs:')),
    );
    expect(sqsStatements.map((statement) => [sorted(statement.Action), statement.Resource])).toEqual([
      [['sqs:SendMessage'], { 'Fn::GetAtt': [deliveryQueue, 'Arn'] }],
    ]);
    expect(JSON.stringify(policyStatements(ids.mcpFunction))).not.toContain(`"${deadLetterQueue}"`);
  });
});

describe('IAM of the event pipeline', () => {
  it('lets the stream function (fan-out) and the MCP function (a subscription’s replay) send to the delivery queue, not the delivery function', () => {
    const { deliveryQueue, streamRole, mcpRole } = eventIds();
    expect(rolesAllowed(template, 'sqs:SendMessage', deliveryQueue)).toEqual([streamRole, mcpRole].sort());
  });

  it('lets only the delivery function receive, delete and delay deliveries', () => {
    const { deliveryQueue, deliveryRole } = eventIds();
    for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility'])
      expect(rolesAllowed(template, action, deliveryQueue), action).toEqual([deliveryRole]);
  });

  it('lets the stream function read the task table’s stream, use the events table, queue deliveries, park failed batches and read the sealing key, nothing more', () => {
    const ids_ = eventIds();
    expect(grantsOf(ids_.streamFunction)).toEqual(
      [
        [['logs:CreateLogStream', 'logs:PutLogEvents'], [expect.stringContaining('StreamHandlerLogGroup')]],
        // ListStreams has no resource-level permissions (acknowledged for cdk-nag with its reason).
        [['dynamodb:ListStreams'], ['"*"']],
        [
          ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
          [JSON.stringify({ 'Fn::GetAtt': [ids.table, 'StreamArn'] })],
        ],
        [sorted(EVENT_TABLE_ACTIONS), [arn(ids_.eventTable)]],
        // Deliveries are sent in batches (SendMessageBatch needs SendMessage alone); CDK's grant on the failure queue.
        [['sqs:SendMessage'], [arn(ids_.deliveryQueue)]],
        [SEND, [arn(ids_.failureQueue)]],
        [SECRET_READ, [JSON.stringify({ Ref: ids_.sealingKey })]],
      ].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    );
  });

  it('lets the delivery function use the events table, consume the delivery queue and read the sealing key, nothing more: not the task table', () => {
    const ids_ = eventIds();
    expect(grantsOf(ids_.deliveryFunction)).toEqual(
      [
        [['logs:CreateLogStream', 'logs:PutLogEvents'], [expect.stringContaining('DeliveryHandlerLogGroup')]],
        [sorted(EVENT_TABLE_ACTIONS), [arn(ids_.eventTable)]],
        [
          [
            'sqs:ChangeMessageVisibility',
            'sqs:DeleteMessage',
            'sqs:GetQueueAttributes',
            'sqs:GetQueueUrl',
            'sqs:ReceiveMessage',
          ],
          [arn(ids_.deliveryQueue)],
        ],
        [SECRET_READ, [JSON.stringify({ Ref: ids_.sealingKey })]],
      ].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    );
    expect(JSON.stringify(policyStatements(ids_.deliveryFunction))).not.toContain(`"${ids.table}"`);
  });

  it('gives the stream function no item access to the task table: it reads the changes from the stream', () => {
    const { streamRole, deliveryRole } = eventIds();
    for (const action of ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem']) {
      expect(rolesAllowed(template, action, ids.table), action).not.toContain(streamRole);
      expect(rolesAllowed(template, action, ids.table), action).not.toContain(deliveryRole);
    }
    expect(rolesAllowed(template, 'dynamodb:GetRecords', ids.table)).toEqual([streamRole]);
  });

  it('lets the MCP, stream and delivery functions, and only they, use the events table', () => {
    const { eventTable, mcpRole, streamRole, deliveryRole } = eventIds();
    for (const action of EVENT_TABLE_ACTIONS)
      expect(rolesAllowed(template, action, eventTable), action).toEqual([mcpRole, streamRole, deliveryRole].sort());
  });

  it.each([
    ['task event store', 'lambda/store/dynamodb-task-event-store.ts'],
    ['webhook subscription store', 'lambda/store/dynamodb-webhook-subscriptions.ts'],
  ])('grants every DynamoDB call the %s makes', (_name, storeModule) => {
    // The stores are written beside this construct; until one exists there is nothing to hold it to.
    if (!existsSync(new URL(`../../${storeModule}`, import.meta.url))) return;
    for (const action of dynamoDbActionsOf(storeModule)) expect(EVENT_TABLE_ACTIONS).toContain(action);
  });
});

describe('task event alarms', () => {
  const alarm = (construct: cloudwatch.Alarm) =>
    resource(logicalId(stack, construct)).Properties as Record<string, unknown>;

  it('go off on the first failed stream batch and on the first delivery dead letter', () => {
    const { failureQueue, deadLetterQueue } = eventIds();
    const { operations } = stack.endpoint;
    for (const [construct, queueId] of [
      [operations.taskEventStreamFailureAlarm, failureQueue],
      [operations.webhookDeliveryDeadLetterAlarm!, deadLetterQueue],
    ] as const) {
      expect(alarm(construct)).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Statistic: 'Maximum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
      });
    }
  });

  it('go off when the stream function’s iterator age reaches 5 minutes, and the oldest delivery 15 minutes', () => {
    const { streamFunction, deliveryQueue } = eventIds();
    const { operations } = stack.endpoint;
    expect(alarm(operations.taskEventStreamIteratorAgeAlarm)).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
      Statistic: 'Maximum',
      Period: 300,
      Threshold: TASK_EVENT_ITERATOR_AGE_THRESHOLD.toMilliseconds(),
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: streamFunction } }],
    });
    expect(alarm(operations.webhookDeliveryAgeAlarm!)).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Statistic: 'Maximum',
      Threshold: WEBHOOK_DELIVERY_AGE_THRESHOLD.toSeconds(),
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [deliveryQueue, 'QueueName'] } }],
    });
  });

  it('watch the errors and throttles of the stream and delivery functions', () => {
    const { streamFunction, deliveryFunction } = eventIds();
    const { operations } = stack.endpoint;
    for (const [role, functionId] of [
      ['taskEventStream', streamFunction],
      ['webhookDelivery', deliveryFunction],
    ] as const) {
      for (const construct of [operations.functionErrorAlarms[role], operations.functionThrottleAlarms[role]])
        expect(alarm(construct)).toMatchObject({
          Namespace: 'AWS/Lambda',
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId } }],
        });
    }
  });

  it('are drawn on the dashboard: iterator age, deliveries queued and finished, the queue’s backlog, dead letters', () => {
    const body = JSON.stringify(
      stack.resolve((stack.endpoint.operations.dashboard!.node.defaultChild as cloudwatch.CfnDashboard).dashboardBody),
    );
    for (const text of [
      'IteratorAge',
      'NumberOfMessagesSent',
      'NumberOfMessagesDeleted',
      'ApproximateAgeOfOldestMessage',
      'Task event dead letters',
    ])
      expect(body).toContain(text);
  });
});
