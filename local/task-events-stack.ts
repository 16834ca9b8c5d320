// Task events and webhooks on the local stand-ins, wired as in AWS: the task table's stream (DynamoDB Local's) read by
// a poller standing in for the event source mapping, the projector recording events in the event table, and an
// in-memory FIFO queue standing in for SQS and the delivery function. The sealing key is random per run unless the
// caller keeps one (with the tables, under LOCAL_STATE_DIR), so subscriptions kept across a restart stay deliverable.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SYSTEM_CLOCK } from '../lambda/core/clock.js';
import type { Logger } from '../lambda/core/logger.js';
import type { CallbackPolicy } from '../lambda/events/callback-url.js';
import type { LookupFunction } from '../lambda/outbound/safe-fetch.js';
import { FAST_DELIVERY_SCHEDULE, type DeliverySchedule } from '../lambda/events/delivery-backoff.js';
import type { DeliveryQueue } from '../lambda/events/delivery-queue.js';
import { InMemoryDeliveryQueue } from '../lambda/events/in-memory-delivery-queue.js';
import { TaskEventProjector } from '../lambda/events/task-event-projector.js';
import { WebhookDeliverer } from '../lambda/events/webhook-deliverer.js';
import type { TaskEventsConfig } from '../lambda/handlers/task-events-core.js';
import { createTaskEventStreamHandler } from '../lambda/handlers/task-event-stream-core.js';
import { DynamoDbTaskEventStore } from '../lambda/store/dynamodb-task-event-store.js';
import { DynamoDbWebhookSubscriptions } from '../lambda/store/dynamodb-webhook-subscriptions.js';
import { AesGcmSecretSealer, randomSealingKey } from '../lambda/store/secret-sealer.js';
import type { TaskEventStore } from '../lambda/store/task-event-store.js';
import type { WebhookSubscriptionStore } from '../lambda/store/webhook-subscription-store.js';
import { startStreamPoller, type StreamPoller } from './dynamodb-stream-poller.js';
import { streamArnOf } from './status-events-stand-in.js';

export interface LocalTaskEventsOptions {
  readonly dynamoDb: DynamoDBClient;
  readonly dynamoDbEndpoint: string;
  readonly taskTableName: string;
  readonly eventTableName: string;
  /** @default true */
  readonly webhooks?: boolean;
  /** Callback origins trusted as they are (no handshake, http and private addresses allowed). @default none */
  readonly trustedOrigins?: readonly string[];
  /** Loopback receivers on any port count as trusted: `npm start` sets it. @default false */
  readonly allowLoopbackHttp?: boolean;
  /** Certificates a test's https receiver is signed with. */
  readonly ca?: string | Buffer;
  /** Resolves callback hosts (tests inject answers). @default dns.lookup */
  readonly lookup?: LookupFunction;
  /** @default FAST_DELIVERY_SCHEDULE */
  readonly schedule?: DeliverySchedule;
  /** The key webhook secrets are sealed with. @default a random one */
  readonly sealingKey?: Buffer;
  /**
   * Where the task table's stream reader keeps its place across restarts (with a kept database), so that events
   * already projected are not projected, nor their webhooks sent, again. @default none: read from the start
   */
  readonly streamPositionFile?: string;
  /** Wrappers around the pipeline's parts, for tests that inject faults (a failed send, a failed write). */
  readonly faults?: {
    /** The queue the projector sends to. */
    readonly projectorQueue?: (queue: DeliveryQueue) => DeliveryQueue;
    /** The event log the projector appends to. */
    readonly events?: (store: TaskEventStore) => TaskEventStore;
    /** The subscriptions the deliverer reads and records outcomes on. */
    readonly deliverySubscriptions?: (store: WebhookSubscriptionStore) => WebhookSubscriptionStore;
  };
  readonly logger: Logger;
}

export interface LocalTaskEvents {
  /** What the MCP endpoint is composed with (BackendConfig.events). */
  readonly config: TaskEventsConfig;
  readonly queue: InMemoryDeliveryQueue;
  /** Resolves once every change written so far is recorded and every delivery queued so far has ended. */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

export async function startLocalTaskEvents(options: LocalTaskEventsOptions): Promise<LocalTaskEvents> {
  const { logger } = options;
  const clock = SYSTEM_CLOCK;
  const client = DynamoDBDocumentClient.from(options.dynamoDb, { marshallOptions: { removeUndefinedValues: true } });
  const events = new DynamoDbTaskEventStore({ client, tableName: options.eventTableName, clock });
  const key = options.sealingKey ?? randomSealingKey();
  const subscriptions = new DynamoDbWebhookSubscriptions({
    client,
    tableName: options.eventTableName,
    sealer: new AesGcmSecretSealer(key),
    clock,
  });
  const policy: CallbackPolicy = {
    trustedOrigins: options.trustedOrigins ?? [],
    ...(options.allowLoopbackHttp ? { allowLoopbackHttp: true } : {}),
    ...(options.ca !== undefined ? { ca: options.ca } : {}),
    ...(options.lookup !== undefined ? { lookup: options.lookup } : {}),
  };
  const { faults = {} } = options;
  const deliverer = new WebhookDeliverer({
    subscriptions: faults.deliverySubscriptions ? faults.deliverySubscriptions(subscriptions) : subscriptions,
    policy,
    schedule: options.schedule ?? FAST_DELIVERY_SCHEDULE,
    clock,
    logger,
  });
  const queue = new InMemoryDeliveryQueue({ deliverer, clock, logger });
  const webhooks = options.webhooks ?? true;
  const projector = new TaskEventProjector({
    events: faults.events ? faults.events(events) : events,
    ...(webhooks
      ? { webhooks: { subscriptions, queue: faults.projectorQueue ? faults.projectorQueue(queue) : queue } }
      : {}),
    clock,
    logger,
  });
  const project = createTaskEventStreamHandler(projector, logger);
  const poller: StreamPoller = startStreamPoller({
    endpoint: options.dynamoDbEndpoint,
    streamArn: await streamArnOf(options.dynamoDb, options.taskTableName),
    handle: project,
    onError: (error) => logger.warn('Task table stream read failed', { error: String(error) }),
    ...(options.streamPositionFile !== undefined ? { positionFile: options.streamPositionFile } : {}),
  });
  return {
    config: {
      eventTableName: options.eventTableName,
      ...(webhooks ? { webhooks: { policy, sealingKey: async () => key, queue } } : {}),
    },
    queue,
    settled: async () => {
      await poller.caughtUp();
      await queue.idle();
    },
    stop: async () => {
      await poller.stop();
      queue.stop();
    },
  };
}
