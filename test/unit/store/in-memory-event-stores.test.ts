// The in-memory task event store and webhook subscriptions held to the same contract suites as the DynamoDB ones, on a
// clock the tests move by hand; and what only an in-memory store could get wrong: sharing its state with a caller.
import { describe, expect, it } from 'vitest';
import { TaskEventChange, type NewTaskEvent } from '../../../lambda/core/task-event.js';
import { TaskStatus } from '../../../lambda/core/task-status.js';
import type { WebhookSubscription } from '../../../lambda/core/webhook-subscription.js';
import { InMemoryTaskEventStore } from '../../../lambda/store/in-memory-task-event-store.js';
import { InMemoryWebhookSubscriptions } from '../../../lambda/store/in-memory-webhook-subscriptions.js';
import { ManualClock } from '../../contract/task-fixtures.js';
import { taskEventStoreContract } from '../../contract/task-event-store-contract.js';
import {
  newSubscription,
  webhookSubscriptionStoreContract,
} from '../../contract/webhook-subscription-store-contract.js';

/** A fixed start, far from the real time: nothing here may depend on it. */
const START = Date.UTC(2030, 0, 1);

taskEventStoreContract('InMemoryTaskEventStore', () => {
  const clock = new ManualClock(START);
  return { events: new InMemoryTaskEventStore({ clock }), clock };
});

webhookSubscriptionStoreContract('InMemoryWebhookSubscriptions', () => {
  const clock = new ManualClock(START);
  return { subscriptions: new InMemoryWebhookSubscriptions({ clock }), clock };
});

/** What a careless caller might do to an object it holds. */
type Writable<T> = { -readonly [K in keyof T]: T[K] };

describe('InMemoryTaskEventStore copies', () => {
  it('keeps what was appended, whatever the caller then does to the event it passed or got back', async () => {
    const clock = new ManualClock(START);
    const events = new InMemoryTaskEventStore({ clock });
    const event: NewTaskEvent = {
      owner: 'alice',
      taskId: 'task-1',
      at: START,
      changes: [TaskEventChange.Status],
      task: { taskId: 'task-1', toolName: 'text_stats', status: TaskStatus.Working, openInputRequests: ['a'] },
    };
    const appended = await events.append(event, '1');
    (event.task as Writable<NewTaskEvent['task']>).status = TaskStatus.Failed;
    (appended.changes as TaskEventChange[]).push(TaskEventChange.Progress);
    const [read] = await events.readAfter('alice', 'task-1', 0, 10);
    (read!.task.openInputRequests as string[]).push('b');
    expect(await events.readAfter('alice', 'task-1', 0, 10)).toEqual([
      { ...event, seq: 1, task: { ...event.task, status: TaskStatus.Working } },
    ]);
  });
});

describe('InMemoryWebhookSubscriptions copies', () => {
  it('keeps what was put, whatever the caller then does to the subscription it passed or read', async () => {
    const clock = new ManualClock(START);
    const subscriptions = new InMemoryWebhookSubscriptions({ clock });
    const subscription = newSubscription(clock, { arguments: { taskId: 'task-1' } });
    await subscriptions.put(subscription);
    (subscription.arguments as Record<string, unknown>)['taskId'] = 'tampered';
    const read = (await subscriptions.get(subscription.owner, subscription.id)) as Writable<WebhookSubscription>;
    read.url = 'https://tampered.example.com';
    const [listed] = await subscriptions.listForOwner(subscription.owner);
    (listed!.delivery as Writable<WebhookSubscription['delivery']>).failedEvents = 99;
    expect(await subscriptions.get(subscription.owner, subscription.id)).toMatchObject({
      arguments: { taskId: 'task-1' },
      url: subscription.url,
      delivery: { failedEvents: 0 },
    });
  });
});
