// Task events and webhooks on, as a deployment has them, for a bench's project server: a poll then pays for its
// webhook status as it does in AWS.
import type { DeliveryQueue } from '../lambda/events/delivery-queue.js';
import type { TaskEventsConfig } from '../lambda/handlers/task-events-core.js';
import { randomSealingKey } from '../lambda/store/secret-sealer.js';

export function deployedEvents(eventTableName: string): TaskEventsConfig {
  // The delivery pipeline is another function in AWS (the bench runs none): a poll never queues a delivery.
  const queue: DeliveryQueue = { send: () => Promise.reject(new Error('The bench server delivers no webhooks')) };
  const sealingKey = randomSealingKey();
  return { eventTableName, webhooks: { policy: { trustedOrigins: [] }, sealingKey: async () => sealingKey, queue } };
}
