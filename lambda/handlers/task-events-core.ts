// The task event log and webhook subscriptions, composed from one config for every function that needs them: the MCP
// function (events/* requests), the stream function (recording events) and the delivery function. The stores load on
// first use, like the task core's (task-core.ts).
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { onceLoaded } from '../core/once-loaded.js';
import type { CallbackPolicy } from '../events/callback-url.js';
import type { DeliveryQueue } from '../events/delivery-queue.js';
import type { WebhookSubscriptions, WebhookSubscriptionSettings } from '../events/webhook-subscriptions.js';
import type { TaskEventStore } from '../store/task-event-store.js';
import type { WebhookSubscriptionStore } from '../store/webhook-subscription-store.js';
import type { BackendClientsSource } from './task-core.js';
import { loadedOnFirstCall } from './loaded-on-first-call.js';

export interface WebhooksConfig {
  /** Which callback URLs are trusted as they are; every other one is checked and verified. */
  readonly policy: CallbackPolicy;
  /** The 32-byte key that seals subscription secrets at rest. */
  readonly sealingKey: () => Promise<Buffer>;
  /** Where deliveries are queued (a subscription's replay; the stream function's fan-out). */
  readonly queue: DeliveryQueue;
  readonly settings?: WebhookSubscriptionSettings;
}

export interface TaskEventsConfig {
  readonly eventTableName: string;
  /** Absent: webhooks are off (events/subscribe answers Unsupported); the event log still serves poll and push. */
  readonly webhooks?: WebhooksConfig;
}

export interface TaskEventParts {
  readonly events: TaskEventStore;
  readonly subscriptionStore?: WebhookSubscriptionStore;
  readonly subscriptions?: WebhookSubscriptions;
}

export function createTaskEventParts(
  config: TaskEventsConfig,
  clients: BackendClientsSource,
  ports: {
    readonly clock: Clock;
    readonly logger: Logger;
    /** Whether the owner has a live task with this ID; only the MCP function subscribes, so only it needs one. */
    readonly taskExists?: (owner: string, taskId: string) => Promise<boolean>;
  },
): TaskEventParts {
  const awsParts = onceLoaded(async () => {
    const [{ createEventAwsParts }, resolved] = await Promise.all([
      import('./event-aws-parts.js'),
      typeof clients === 'function' ? clients() : Promise.resolve(clients),
    ]);
    return createEventAwsParts(resolved.dynamoDb, config.eventTableName, ports.clock);
  });
  const events = loadedOnFirstCall<TaskEventStore>(async () => (await awsParts()).events, {});
  const webhooks = config.webhooks;
  if (webhooks === undefined) return { events };
  const subscriptionStore = loadedOnFirstCall<WebhookSubscriptionStore>(
    async () => (await awsParts()).subscriptions(webhooks.sealingKey),
    {},
  );
  // Loaded by the first events/subscribe, events/unsubscribe or webhook status read: it brings the callback checks, the
  // handshake and signing, which a cold start that serves no webhook request does not need.
  const subscriptions = loadedOnFirstCall<WebhookSubscriptions>(async () => {
    const { WebhookSubscriptions } = await import('../events/webhook-subscriptions.js');
    return new WebhookSubscriptions({
      store: subscriptionStore,
      events,
      queue: webhooks.queue,
      policy: webhooks.policy,
      taskExists: ports.taskExists ?? (async () => false),
      clock: ports.clock,
      logger: ports.logger,
      ...(webhooks.settings ? { settings: webhooks.settings } : {}),
    });
  }, {});
  return { events, subscriptionStore, subscriptions };
}
