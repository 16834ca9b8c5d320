// Task events in AWS: the event log made from the task table's stream, and webhook deliveries through an SQS FIFO
// queue. The stream function (lambda/handlers/task-event-stream.ts) reads every change of the task table, appends
// what a watcher sees to the task's log in the events table, and queues one delivery per matching webhook
// subscription; the delivery function (lambda/handlers/webhook-delivery.ts) POSTs them, each message group (one
// subscription and one task) in order. Nothing is lost silently: a stream batch that keeps failing leaves its
// position in an on-failure queue, a delivery the function keeps failing on ends in a dead-letter queue, and both
// raise alarms (endpoint-operations.ts).
//
// The sealing key: Secrets Manager generates 64 letters and digits at deployment. The functions read that string at
// run time by the secret's ARN (EVENTS_ENV.sealingKeySecretArn; the value is never in the template or an
// environment) and use sha256 of its UTF-8 bytes, 32 bytes, as the AES-256 key that seals subscription secrets at
// rest. A new value makes the sealed secrets of live subscriptions unreadable, until their clients subscribe again.
import { Duration, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV, EVENTS_ENV } from '../../lambda/contract/environment-names.js';
import { HandlerFunction, projectPath } from '../handlers/handler-function.js';
import {
  DEFAULT_TASK_EVENT_STREAM_PARALLELIZATION_FACTOR,
  DEFAULT_WEBHOOK_DELIVERY_MAX_CONCURRENCY,
  TASK_EVENT_STREAM_BATCH_SIZE,
  TASK_EVENT_STREAM_FUNCTION_TIMEOUT,
  TASK_EVENT_STREAM_MAX_RECORD_AGE,
  TASK_EVENT_STREAM_RETRY_ATTEMPTS,
  WEBHOOK_DELIVERY_BATCH_SIZE,
  WEBHOOK_DELIVERY_FUNCTION_TIMEOUT,
  WEBHOOK_DELIVERY_MAX_RECEIVE_COUNT,
  WEBHOOK_DELIVERY_VISIBILITY_TIMEOUT,
  WEBHOOK_SEALING_KEY_LENGTH,
} from '../props/mcp-task-endpoint-defaults.js';
import { createEventTable } from '../tables/task-table.js';

/**
 * What the event and subscription stores do to the events table: appends, reads after a position, subscriptions put,
 * listed, updated and removed. Every function that touches the table gets these and nothing else.
 */
export const EVENT_TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:Query',
];

/**
 * Lets `fn` queue deliveries: SendMessage alone (SendMessageBatch needs nothing else), on a queue it is given by URL
 * and encrypted with SQS managed keys, so no GetQueueUrl, GetQueueAttributes or KMS.
 */
function grantQueueing(queue: sqs.IQueue, fn: lambda.Function): void {
  iam.Grant.addToPrincipal({ grantee: fn, actions: ['sqs:SendMessage'], resourceArns: [queue.queueArn] });
}

/** How long a dead letter or a failed stream position is kept: the longest SQS allows. */
const DEAD_LETTER_RETENTION = Duration.days(14);
/**
 * How long a delivery may wait in the delivery queue: the longest SQS allows, not its 4-day default. Deliveries wait
 * there beyond their attempts' minutes when the delivery function cannot take them (at its concurrency cap, failing
 * on the server's side, its mapping disabled in an incident), and one that outlives the queue's retention is deleted
 * unseen: no dead letter, no alarm. SQS charges by request, not by the day kept.
 */
const DELIVERY_RETENTION = Duration.days(14);

export interface TaskEventsProps {
  /** The task table, with its stream on (TASK_TABLE's descriptor asks for NEW_AND_OLD_IMAGES). */
  readonly taskTable: dynamodb.Table;
  /** Customer managed KMS key for the events table, as for the task table. @default - the AWS managed key */
  readonly encryptionKey?: kms.IKey;
  /** Deploy webhook delivery: the queues, the delivery function and the sealing key. */
  readonly webhooks: boolean;
  /** Callback origins that need no verification (already validated); empty or absent for none. */
  readonly trustedCallbackOrigins?: readonly string[];
  /** Webhook delivery function instances at once (its SQS mapping's maximum concurrency). @default 50 */
  readonly webhookDeliveryMaxConcurrency?: number;
  /** Batches of one task table stream shard worked at once. @default 4 */
  readonly taskEventStreamParallelizationFactor?: number;
  readonly tracing: boolean;
  readonly logRetention: logs.RetentionDays;
  /** Applies to the events table, the sealing key and the log groups. */
  readonly removalPolicy: RemovalPolicy;
}

/** Webhook delivery's parts, present only with webhooks on. */
export interface WebhookDelivery {
  /** FIFO, deduplicated per message group by the delivery's ID; never content-based. */
  readonly queue: sqs.Queue;
  /** FIFO too: deliveries received {@link WEBHOOK_DELIVERY_MAX_RECEIVE_COUNT} times without an outcome. */
  readonly deadLetterQueue: sqs.Queue;
  readonly handler: HandlerFunction;
  /** Seals subscription secrets at rest; the functions read it by ARN. */
  readonly sealingKey: secretsmanager.Secret;
}

export class TaskEvents extends Construct {
  /** Each task's event log and the webhook subscriptions (EVENT_TABLE); TTL-swept. */
  public readonly table: dynamodb.Table;
  /** Consumes the task table's stream: appends events, queues webhook deliveries. */
  public readonly streamHandler: HandlerFunction;
  /** Where a stream batch goes after its retries: its shard and sequence numbers (the records stay in the stream). */
  public readonly streamFailureQueue: sqs.Queue;
  /** Absent with webhooks off. */
  public readonly webhookDelivery?: WebhookDelivery;

  private readonly trustedCallbackOrigins: readonly string[];

  constructor(scope: Construct, id: string, props: TaskEventsProps) {
    super(scope, id);
    const common = { tracing: props.tracing, logRetention: props.logRetention, removalPolicy: props.removalPolicy };
    this.trustedCallbackOrigins = props.trustedCallbackOrigins ?? [];
    this.table = createEventTable(this, 'Table', {
      removalPolicy: props.removalPolicy,
      ...(props.encryptionKey ? { encryptionKey: props.encryptionKey } : {}),
    });
    const sealingKey = props.webhooks ? this.createSealingKey(props.removalPolicy) : undefined;
    const queues = props.webhooks ? this.createDeliveryQueues() : undefined;

    this.streamFailureQueue = new sqs.Queue(this, 'StreamFailureQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: DEAD_LETTER_RETENTION,
    });
    this.streamHandler = new HandlerFunction(this, 'StreamHandler', {
      ...common,
      entry: projectPath('lambda/handlers/task-event-stream.ts'),
      description: 'Appends MCP task changes to the task event log and queues their webhook deliveries',
      timeout: TASK_EVENT_STREAM_FUNCTION_TIMEOUT,
      environment: {
        [ENV.tableName]: props.taskTable.tableName,
        [EVENTS_ENV.eventTableName]: this.table.tableName,
        [EVENTS_ENV.webhooksEnabled]: String(props.webhooks),
        ...(queues && sealingKey
          ? {
              [EVENTS_ENV.deliveryQueueUrl]: queues.queue.queueUrl,
              // Listing an owner's subscriptions unseals their secrets.
              [EVENTS_ENV.sealingKeySecretArn]: sealingKey.secretArn,
            }
          : {}),
      },
    });
    // Grants reading the stream (and, with a customer managed key, decrypting it) and sending to the failure queue.
    // Lambda keeps each item's changes in order however many batches of a shard run at once, and a task is one item
    // (the task table has a partition key and no sort key), so a task's events are appended and queued in order.
    this.streamHandler.function.addEventSource(
      new DynamoEventSource(props.taskTable, {
        startingPosition: lambda.StartingPosition.TRIM_HORIZON,
        batchSize: TASK_EVENT_STREAM_BATCH_SIZE,
        parallelizationFactor:
          props.taskEventStreamParallelizationFactor ?? DEFAULT_TASK_EVENT_STREAM_PARALLELIZATION_FACTOR,
        bisectBatchOnError: true,
        retryAttempts: TASK_EVENT_STREAM_RETRY_ATTEMPTS,
        maxRecordAge: TASK_EVENT_STREAM_MAX_RECORD_AGE,
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(this.streamFailureQueue),
      }),
    );
    this.grantEventTable(this.streamHandler.function);
    if (queues && sealingKey) {
      grantQueueing(queues.queue, this.streamHandler.function);
      sealingKey.grantRead(this.streamHandler.function);
      const maxConcurrency = props.webhookDeliveryMaxConcurrency ?? DEFAULT_WEBHOOK_DELIVERY_MAX_CONCURRENCY;
      const handler = this.createDeliveryHandler(common, queues, sealingKey, maxConcurrency);
      this.webhookDelivery = { ...queues, sealingKey, handler };
    }
    this.acknowledgeFindings();
  }

  /**
   * Sets up `mcpFunction` to serve events (`events/list`, `poll`, `stream`, and with webhooks `subscribe` and
   * `unsubscribe`): its variables, the events table, and with webhooks the sealing key and sending to the delivery
   * queue (a subscription to one task's log with a cursor queues the events after it, its replay). It verifies a
   * callback URL itself; it never receives deliveries.
   */
  public connectMcpFunction(mcpFunction: lambda.Function): void {
    mcpFunction.addEnvironment(EVENTS_ENV.eventTableName, this.table.tableName);
    mcpFunction.addEnvironment(EVENTS_ENV.webhooksEnabled, String(this.webhookDelivery !== undefined));
    this.grantEventTable(mcpFunction);
    if (!this.webhookDelivery) return;
    const { queue, sealingKey } = this.webhookDelivery;
    mcpFunction.addEnvironment(EVENTS_ENV.deliveryQueueUrl, queue.queueUrl);
    mcpFunction.addEnvironment(EVENTS_ENV.sealingKeySecretArn, sealingKey.secretArn);
    grantQueueing(queue, mcpFunction);
    sealingKey.grantRead(mcpFunction);
    if (this.trustedCallbackOrigins.length > 0)
      mcpFunction.addEnvironment(EVENTS_ENV.trustedCallbackOrigins, this.trustedCallbackOrigins.join(','));
  }

  /** The item and query actions on the events table, and its key when it has a customer managed one. */
  private grantEventTable(fn: lambda.Function): void {
    iam.Grant.addToPrincipal({ grantee: fn, actions: EVENT_TABLE_ACTIONS, resourceArns: [this.table.tableArn] });
    this.table.encryptionKey?.grantEncryptDecrypt(fn);
  }

  private createSealingKey(removalPolicy: RemovalPolicy): secretsmanager.Secret {
    return new secretsmanager.Secret(this, 'SealingKey', {
      description: 'Seals the secrets of MCP task event webhook subscriptions at rest (AES-256 key: sha256 of this)',
      generateSecretString: {
        passwordLength: WEBHOOK_SEALING_KEY_LENGTH,
        excludePunctuation: true,
        includeSpace: false,
      },
      removalPolicy,
    });
  }

  /**
   * The delivery queue and its dead-letter queue, both FIFO. Deduplication is per message group (high-throughput
   * FIFO): a group is one subscription and one task, so the delivery's ID (the event's) is unique within it.
   */
  private createDeliveryQueues(): { queue: sqs.Queue; deadLetterQueue: sqs.Queue } {
    const deadLetterQueue = new sqs.Queue(this, 'DeliveryDeadLetterQueue', {
      fifo: true,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: DEAD_LETTER_RETENTION,
    });
    const queue = new sqs.Queue(this, 'DeliveryQueue', {
      fifo: true,
      contentBasedDeduplication: false,
      deduplicationScope: sqs.DeduplicationScope.MESSAGE_GROUP,
      fifoThroughputLimit: sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
      visibilityTimeout: WEBHOOK_DELIVERY_VISIBILITY_TIMEOUT,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: DELIVERY_RETENTION,
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: WEBHOOK_DELIVERY_MAX_RECEIVE_COUNT },
    });
    return { queue, deadLetterQueue };
  }

  private createDeliveryHandler(
    common: Pick<TaskEventsProps, 'tracing' | 'logRetention' | 'removalPolicy'>,
    queues: { queue: sqs.Queue },
    sealingKey: secretsmanager.Secret,
    maxConcurrency: number,
  ): HandlerFunction {
    const handler = new HandlerFunction(this, 'DeliveryHandler', {
      ...common,
      entry: projectPath('lambda/handlers/webhook-delivery.ts'),
      description: 'Delivers MCP task events to webhook subscriptions, signed, in order per subscription and task',
      timeout: WEBHOOK_DELIVERY_FUNCTION_TIMEOUT,
      environment: {
        [EVENTS_ENV.eventTableName]: this.table.tableName,
        [EVENTS_ENV.sealingKeySecretArn]: sealingKey.secretArn,
        // A retry is the message made visible again later (ChangeMessageVisibility), which names the queue.
        [EVENTS_ENV.deliveryQueueUrl]: queues.queue.queueUrl,
        ...(this.trustedCallbackOrigins.length > 0
          ? { [EVENTS_ENV.trustedCallbackOrigins]: this.trustedCallbackOrigins.join(',') }
          : {}),
      },
    });
    // Grants receiving, deleting and ChangeMessageVisibility on the queue, nothing on its dead-letter queue. The cap
    // is the mapping's maximum concurrency, not reserved concurrency: at the cap Lambda stops receiving, so deliveries
    // wait in the queue, whereas a function throttled by reserved concurrency has its messages received and returned,
    // and each return counts toward the queue's maxReceiveCount (the dead-letter queue).
    handler.function.addEventSource(
      new SqsEventSource(queues.queue, {
        batchSize: WEBHOOK_DELIVERY_BATCH_SIZE,
        reportBatchItemFailures: true,
        maxConcurrency,
      }),
    );
    this.grantEventTable(handler.function);
    sealingKey.grantRead(handler.function);
    return handler;
  }

  private acknowledgeFindings(): void {
    Validations.of(this.streamHandler.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'dynamodb:ListStreams, which the event source mapping needs beside its reads of the task table stream, ' +
        'supports no resource-level permissions; the reads themselves are granted on that one stream.',
    });
    Validations.of(this.streamFailureQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself a dead-letter queue: the on-failure destination of the task table stream mapping ' +
        '(cdk-nag recognises only redrive policies and function dead-letter configs as such).',
    });
    if (this.webhookDelivery) {
      Validations.of(this.webhookDelivery.sealingKey).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          'A new sealing key makes the sealed secrets of live webhook subscriptions unreadable (their clients must ' +
          'subscribe again; a subscription lasts 30 days at most), so it is not rotated on a schedule: put a new ' +
          'value when it must change (instances read it once, so redeploy the functions to reach them all).',
      });
    }
  }
}
