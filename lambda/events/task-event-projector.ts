// Turns each write to the task table into the task's next event, then into the deliveries its webhook subscriptions
// are owed. It reads the table's change stream, so every path that changes a task (a status event, a poll's refresh,
// a cancel, the expiry sweep, a progress report, an input request) makes its event without knowing of events.
// Every step is safe to repeat: a redelivered change is appended once (the store keys it by its stream position) and
// queued under the same webhook ID (the queue drops the copy), so a failure anywhere throws and the change is
// processed again, and nothing is lost.
import { createHash } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { taskEventOf, type TaskEvent } from '../core/task-event.js';
import { isTerminal } from '../core/task-status.js';
import { TASK_ATTRIBUTE as A } from '../contract/task-item-attributes.js';
import { PARTITION_KEY, TTL_ATTRIBUTE } from '../contract/task-table-schema.js';
import { isLive, type WebhookSubscriptionSummary } from '../core/webhook-subscription.js';
import { taskFromItem, type Item } from '../store/task-item-codec.js';
import type { TaskEventStore } from '../store/task-event-store.js';
import type { WebhookSubscriptionStore } from '../store/webhook-subscription-store.js';
import { eventTypeNamed, filterOf, matches, occurrenceOf } from './event-catalog.js';
import { terminatedEnvelope } from './control-envelopes.js';
import type { DeliveryQueue, WebhookDelivery } from './delivery-queue.js';

/** One record of the task table's stream, its images unmarshalled. */
export interface TaskTableChange {
  readonly kind: 'INSERT' | 'MODIFY' | 'REMOVE';
  readonly oldItem?: Item;
  readonly newItem?: Item;
  /** The record's sequence number: grows with each change of one item. */
  readonly position: string;
}

/** How long a subscription to a task that is gone stays, for its `terminated` envelope to be delivered. */
export const TERMINATION_GRACE_MS = 15 * 60 * 1000;

export interface TaskEventProjectorOptions {
  readonly events: TaskEventStore;
  /** Absent when webhooks are off: events are still recorded, for poll and push. */
  readonly webhooks?: { readonly subscriptions: WebhookSubscriptionStore; readonly queue: DeliveryQueue };
  readonly clock: Clock;
  readonly logger: Logger;
}

/** A task item (not a request, active-count or creation-counter item): its key is the 64-hex task key. */
function isTaskItem(item: Item | undefined): item is Item {
  return (
    item !== undefined &&
    typeof item[A.taskId] === 'string' &&
    typeof item[A.owner] === 'string' &&
    /^[0-9a-f]{64}$/.test(String(item[PARTITION_KEY]))
  );
}

/** The group of deliveries that must arrive in order: one subscription's deliveries about one task. */
export function deliveryGroupOf(subscriptionId: string, taskId: string): string {
  return createHash('sha256').update(subscriptionId).update('\n').update(taskId).digest('hex');
}

/**
 * The delivery of one event to one subscription; its webhook ID is the event's, so a second copy is dropped. The
 * terminal event of the one task a subscription follows ends it once delivered: nothing more can come of that task.
 */
export function deliveryFor(
  subscription: Pick<WebhookSubscriptionSummary, 'id' | 'name' | 'arguments'>,
  event: TaskEvent,
): WebhookDelivery {
  const occurrence = occurrenceOf(subscription.name, event);
  const ends = subscription.arguments['taskId'] === event.taskId && isTerminal(event.task.status);
  return {
    owner: event.owner,
    subscriptionId: subscription.id,
    webhookId: occurrence.eventId,
    groupKey: deliveryGroupOf(subscription.id, event.taskId),
    body: JSON.stringify(occurrence),
    ...(ends ? { endsSubscription: true as const } : {}),
  };
}

export class TaskEventProjector {
  constructor(private readonly options: TaskEventProjectorOptions) {}

  /** Processes one change; throws when it must be processed again. */
  async project(change: TaskTableChange): Promise<void> {
    if (change.kind === 'REMOVE') {
      if (isTaskItem(change.oldItem)) await this.taskGone(change.oldItem);
      return;
    }
    if (!isTaskItem(change.newItem)) return;
    const after = taskFromItem(change.newItem);
    const before = isTaskItem(change.oldItem) ? taskFromItem(change.oldItem) : undefined;
    // A task created anew under a reused ID replaces the old item: its first event is a status event, numbered on from
    // the old task's (one log per owner and task ID; the old events go with their TTL).
    const sameTask = before !== undefined && before.executionArn === after.executionArn ? before : undefined;
    const news = taskEventOf(sameTask, after, this.options.clock.now());
    if (news === null) return;
    const ttlSeconds = change.newItem[TTL_ATTRIBUTE];
    const event = await this.options.events.append(
      typeof ttlSeconds === 'number' ? { ...news, expiresAt: ttlSeconds * 1000 } : news,
      change.position,
    );
    await this.fanOut(event);
  }

  private async fanOut(event: TaskEvent): Promise<void> {
    const webhooks = this.options.webhooks;
    if (webhooks === undefined) return;
    const subscriptions = await webhooks.subscriptions.summariesForOwner(event.owner);
    const deliveries: WebhookDelivery[] = [];
    for (const subscription of subscriptions) {
      if (!this.wants(subscription, event)) continue;
      // A replay not yet all queued: this event goes with every one before it, from the replay's start, so it cannot
      // overtake them (the copies the replay queues itself are dropped as duplicates).
      const run =
        subscription.replayAfter === undefined || subscription.replayAfter >= event.seq - 1
          ? [event]
          : await this.options.events.readAfter(
              event.owner,
              event.taskId,
              subscription.replayAfter,
              event.seq - subscription.replayAfter,
            );
      for (const each of run) if (each.seq <= event.seq) deliveries.push(deliveryFor(subscription, each));
    }
    if (deliveries.length > 0) await webhooks.queue.send(deliveries);
  }

  private wants(subscription: WebhookSubscriptionSummary, event: TaskEvent): boolean {
    if (!isLive(subscription, this.options.clock.now())) return false;
    try {
      return matches(filterOf(eventTypeNamed(subscription.name), subscription.arguments), event);
    } catch (error) {
      // Stored subscriptions were checked when made; one that no longer parses (a type withdrawn) gets nothing.
      this.options.logger.warn('Subscription skipped: its event type or arguments no longer hold', {
        subscriptionId: subscription.id,
        error: error instanceof Error ? error.message : String(error),
      });
      return false;
    }
  }

  /**
   * The task's item is gone (its retention ended, or it was deleted): a subscription to that task can never fire
   * again. It gets a `terminated` envelope and lapses soon after, long enough for the envelope to be delivered.
   */
  private async taskGone(item: Item): Promise<void> {
    const webhooks = this.options.webhooks;
    if (webhooks === undefined) return;
    const task = taskFromItem(item);
    const now = this.options.clock.now();
    const subscriptions = await webhooks.subscriptions.listForOwner(task.owner);
    const ending = subscriptions.filter((subscription) => subscription.arguments['taskId'] === task.taskId);
    if (ending.length === 0) return;
    const deliveries = ending.map((subscription): WebhookDelivery => {
      const envelope = terminatedEnvelope(task.taskId);
      return {
        owner: task.owner,
        subscriptionId: subscription.id,
        webhookId: envelope.webhookId,
        groupKey: deliveryGroupOf(subscription.id, task.taskId),
        body: envelope.body,
      };
    });
    await webhooks.queue.send(deliveries);
    for (const subscription of ending) {
      const lapse = now + TERMINATION_GRACE_MS;
      if (subscription.refreshBefore !== null && subscription.refreshBefore <= lapse) continue;
      await webhooks.subscriptions.put({ ...subscription, refreshBefore: lapse });
    }
  }
}
