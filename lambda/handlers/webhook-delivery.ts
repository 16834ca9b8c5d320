// Lambda entry point of webhook delivery: consumes the SQS FIFO delivery queue (event source mapping with batch item
// failures) and makes one attempt per message (webhook-delivery-core.ts). Composed from the environment: the
// subscriptions in the events table, their secrets unsealed with the key read from Secrets Manager on the first
// delivery, the operator's trusted callback origins, and AWS's delivery schedule. A retry is the message hidden for its
// backoff (ChangeMessageVisibility on the queue it came from).
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { EVENTS_ENV } from '../contract/environment-names.js';
import { SYSTEM_CLOCK } from '../core/clock.js';
import type { CallbackPolicy } from '../events/callback-url.js';
import { AWS_DELIVERY_SCHEDULE } from '../events/delivery-backoff.js';
import { WebhookDeliverer } from '../events/webhook-deliverer.js';
import { DynamoDbWebhookSubscriptions } from '../store/dynamodb-webhook-subscriptions.js';
import { AesGcmSecretSealer } from '../store/secret-sealer.js';
import { AWS_CLIENT_BOUNDS } from './aws-clients.js';
import { required } from './environment-values.js';
import { sealingKeyFromSecret, trustedOriginsOf } from './events-environment.js';
import { defaultLogger } from './default-logger.js';
import { traced, tracerFromEnvironment } from './tracing.js';
import { createWebhookDeliveryHandler, type VisibilityChanger } from './webhook-delivery-core.js';

export interface WebhookDeliveryConfig {
  readonly eventTableName: string;
  readonly sealingKeySecretArn: string;
  readonly trustedOrigins: readonly string[];
  /** Absent: each batch names its queue by ARN. */
  readonly queueUrl?: string;
}

export function webhookDeliveryConfigFromEnvironment(env: NodeJS.ProcessEnv): WebhookDeliveryConfig {
  const queueUrl = env[EVENTS_ENV.deliveryQueueUrl];
  return {
    eventTableName: required(env, EVENTS_ENV.eventTableName),
    sealingKeySecretArn: required(env, EVENTS_ENV.sealingKeySecretArn),
    trustedOrigins: trustedOriginsOf(env[EVENTS_ENV.trustedCallbackOrigins]),
    ...(queueUrl ? { queueUrl } : {}),
  };
}

/** `arn:<partition>:sqs:<region>:<account>:<name>` → the queue's URL. */
export function queueUrlOfArn(arn: string): string {
  const [, partition, , region, account, name] = arn.split(':');
  if (!partition || !region || !account || !name) throw new Error(`'${arn}' is not an SQS queue ARN`);
  const domain = partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com';
  return `https://sqs.${region}.${domain}/${account}/${name}`;
}

const logger = defaultLogger();
const tracer = await tracerFromEnvironment(process.env);
const config = webhookDeliveryConfigFromEnvironment(process.env);
const dynamoDb = new DynamoDBClient({ ...AWS_CLIENT_BOUNDS });
const sqs = new SQSClient({ ...AWS_CLIENT_BOUNDS });
const clients = tracer
  ? { dynamoDb: tracer.captureAWSv3Client(dynamoDb), sqs: tracer.captureAWSv3Client(sqs) }
  : { dynamoDb, sqs };
const sealingKey = sealingKeyFromSecret(process.env);
// Made on the first delivery, once the sealing key is read (a failed read is tried again on the next).
// The sealing key is read on the first delivery (a failed read is tried again on the next).
const subscriptions = new DynamoDbWebhookSubscriptions({
  client: DynamoDBDocumentClient.from(clients.dynamoDb, { marshallOptions: { removeUndefinedValues: true } }),
  tableName: config.eventTableName,
  sealer: async () => new AesGcmSecretSealer(await sealingKey()),
});
const policy: CallbackPolicy = { trustedOrigins: config.trustedOrigins };
const deliverer = new WebhookDeliverer({
  subscriptions,
  policy,
  schedule: AWS_DELIVERY_SCHEDULE,
  clock: SYSTEM_CLOCK,
  logger,
});

function visibilityOn(queueUrl: string): VisibilityChanger {
  return {
    async changeVisibility(receiptHandle, seconds) {
      await clients.sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: receiptHandle,
          VisibilityTimeout: seconds,
        }),
      );
    },
  };
}

export const handler = traced(tracer, async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const first = event.Records[0];
  if (first === undefined) return { batchItemFailures: [] };
  // One event's records all come from the one queue of the mapping.
  const queueUrl = config.queueUrl ?? queueUrlOfArn(first.eventSourceARN);
  return createWebhookDeliveryHandler({ deliverer, sqs: visibilityOn(queueUrl), logger })(event);
});
