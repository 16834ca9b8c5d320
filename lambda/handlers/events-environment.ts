// The task events' and webhooks' settings from the environment the CDK construct writes (EVENTS_ENV), read the same
// way by the three functions that need them: the MCP function, the stream function and the delivery function.
import { createHash } from 'node:crypto';
import { EVENTS_ENV } from '../contract/environment-names.js';
import type { DeliveryQueue } from '../events/delivery-queue.js';
import { required } from './environment-values.js';
import { loadedOnFirstCall } from './loaded-on-first-call.js';
import { secretValue } from './secret-values.js';
import type { TaskEventsConfig } from './task-events-core.js';

/** The comma-separated origins, each checked: a typo must fail the deployment's first call, not trust nothing. */
export function trustedOriginsOf(value: string | undefined): string[] {
  const origins = (value ?? '')
    .split(',')
    .map((each) => each.trim())
    .filter((each) => each !== '');
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || !['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== origin) {
      throw new Error(
        `${EVENTS_ENV.trustedCallbackOrigins} holds '${origin}', which is not an origin like https://hooks.example.com`,
      );
    }
  }
  return origins;
}

/**
 * The 32-byte AES key from the sealing secret's value: the base64 of 32 bytes is those bytes; any other value (the
 * deployment generates 64 letters and digits, never with the `=` a 32-byte base64 ends in) is hashed, sha256 of its
 * UTF-8 bytes. Every function that seals or unseals derives it here.
 */
export function sealingKeyOf(value: string): Buffer {
  if (/^[A-Za-z0-9+/]{43}=$/.test(value)) return Buffer.from(value, 'base64');
  return createHash('sha256').update(value, 'utf8').digest();
}

/** The key read from Secrets Manager on first use (a failed read is tried again on the next). */
export function sealingKeyFromSecret(env: NodeJS.ProcessEnv): () => Promise<Buffer> {
  const secret = secretValue(required(env, EVENTS_ENV.sealingKeySecretArn));
  return async () => sealingKeyOf(await secret());
}

/** The SQS FIFO delivery queue, its client made on the first send. */
function sqsDeliveryQueue(queueUrl: string): DeliveryQueue {
  return loadedOnFirstCall<DeliveryQueue>(async () => {
    // aws-clients.js too: importing it loads the DynamoDB and Step Functions clients, which a cold start must not.
    const [{ SQSClient }, { SqsDeliveryQueue }, { AWS_CLIENT_BOUNDS }] = await Promise.all([
      import('@aws-sdk/client-sqs'),
      import('./sqs-delivery-queue.js'),
      import('./aws-clients.js'),
    ]);
    return new SqsDeliveryQueue({ client: new SQSClient({ ...AWS_CLIENT_BOUNDS }), queueUrl });
  }, {});
}

/** Task events as deployed; `undefined` when the function has no event table (events off). */
export function taskEventsConfigFromEnvironment(env: NodeJS.ProcessEnv): TaskEventsConfig | undefined {
  const eventTableName = env[EVENTS_ENV.eventTableName];
  if (eventTableName === undefined || eventTableName === '') return undefined;
  if (env[EVENTS_ENV.webhooksEnabled] === 'false') return { eventTableName };
  return {
    eventTableName,
    webhooks: {
      policy: { trustedOrigins: trustedOriginsOf(env[EVENTS_ENV.trustedCallbackOrigins]) },
      sealingKey: sealingKeyFromSecret(env),
      queue: sqsDeliveryQueue(required(env, EVENTS_ENV.deliveryQueueUrl)),
    },
  };
}
