// The projector on hand-made changes of the task table's stream (items written by the store's own codec), with the
// event log and the subscriptions in memory and a queue that records what it is given: what is appended, what is
// queued to whom, what a repeated change does, what a removed task's subscriptions get, and what a failure leaves.
import { beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../../lambda/core/clock.js';
import { TASK_ATTRIBUTE as A } from '../../../lambda/contract/task-item-attributes.js';
import { TTL_ATTRIBUTE } from '../../../lambda/contract/task-table-schema.js';
import { RetentionClock, type TaskRecord } from '../../../lambda/core/task.js';
import { snapshotOf, TaskEventChange } from '../../../lambda/core/task-event.js';
import { TaskStatus } from '../../../lambda/core/task-status.js';
import type { WebhookSubscription } from '../../../lambda/core/webhook-subscription.js';
import { EVENTS_ERROR_CODE } from '../../../lambda/events/control-envelopes.js';
import type { DeliveryQueue, WebhookDelivery } from '../../../lambda/events/delivery-queue.js';
import { occurrenceOf } from '../../../lambda/events/event-catalog.js';
import {
  deliveryGroupOf,
  TaskEventProjector,
  TERMINATION_GRACE_MS,
  type TaskTableChange,
} from '../../../lambda/events/task-event-projector.js';
import { InMemoryTaskEventStore } from '../../../lambda/store/in-memory-task-event-store.js';
import { InMemoryWebhookSubscriptions } from '../../../lambda/store/in-memory-webhook-subscriptions.js';
import { taskToItem, type Item } from '../../../lambda/store/task-item-codec.js';
import { requestKey } from '../../../lambda/store/task-table-keys.js';
import { ManualClock, newTask } from '../../contract/task-fixtures.js';
import { newSubscription } from '../../contract/webhook-subscription-store-contract.js';
import { RecordingLogger } from '../../support/in-memory-backend.js';

/** A fixed start, far from the real time: nothing here may depend on it. */
const START = Date.UTC(2030, 0, 1);
const HOUR_MS = 3_600_000;
const MAX_UNFINISHED_MS = 7 * 24 * HOUR_MS;

/** A queue that records each send, and throws while `failing` is set. */
class RecordingQueue implements DeliveryQueue {
  readonly sends: WebhookDelivery[][] = [];
  failing = false;

  async send(deliveries: readonly WebhookDelivery[]): Promise<void> {
    if (this.failing) throw new Error('queue unavailable');
    this.sends.push([...deliveries]);
  }

  /** Every delivery sent, in order. */
  get deliveries(): WebhookDelivery[] {
    return this.sends.flat();
  }
}

/** The task's item as the store writes it, with `extra` attributes other writers keep on it. */
function itemOf(task: TaskRecord, extra: Item = {}): Item {
  return { ...taskToItem(task, MAX_UNFINISHED_MS), ...extra };
}

let position = 100;
/** A stream record: positions grow with each one made. */
function change(kind: TaskTableChange['kind'], images: { oldItem?: Item; newItem?: Item }): TaskTableChange {
  position += 1;
  return { kind, position: String(position), ...images };
}

describe('TaskEventProjector', () => {
  let clock: ManualClock;
  let events: InMemoryTaskEventStore;
  let subscriptions: InMemoryWebhookSubscriptions;
  let queue: RecordingQueue;
  let logger: RecordingLogger;
  let projector: TaskEventProjector;
  let task: TaskRecord;

  const clockPort = (manual: ManualClock): Clock => ({ now: () => manual.now(), sleep: async () => {} });
  const projectorWith = (webhooks: boolean) =>
    new TaskEventProjector({
      events,
      ...(webhooks ? { webhooks: { subscriptions, queue } } : {}),
      clock: clockPort(clock),
      logger,
    });
  const log = (owner = task.owner, taskId = task.taskId) => events.readAfter(owner, taskId, 0, 100);
  const subscribed = async (overrides: Partial<WebhookSubscription>) => {
    const subscription = newSubscription(clock, { owner: task.owner, ...overrides });
    await subscriptions.put(subscription);
    return subscription;
  };

  beforeEach(() => {
    clock = new ManualClock(START);
    events = new InMemoryTaskEventStore({ clock });
    subscriptions = new InMemoryWebhookSubscriptions({ clock });
    queue = new RecordingQueue();
    logger = new RecordingLogger();
    projector = projectorWith(true);
    task = newTask(clock, { owner: 'alice', taskId: 'task-1' });
  });

  describe('the event log', () => {
    it('appends a created task as event 1, a status event, with what a watcher sees of it', async () => {
      clock.advance(5);
      await projector.project(change('INSERT', { newItem: itemOf(task) }));
      const [event, ...rest] = await log();
      expect(rest).toEqual([]);
      expect(event).toMatchObject({
        owner: 'alice',
        taskId: 'task-1',
        seq: 1,
        at: task.lastUpdatedAt,
        changes: [TaskEventChange.Status],
        task: snapshotOf(task, START + 5),
      });
    });

    it('appends the next change as the next event', async () => {
      await projector.project(change('INSERT', { newItem: itemOf(task) }));
      const done = { ...task, status: TaskStatus.Completed, completedAt: START + 9, lastUpdatedAt: START + 9 };
      await projector.project(change('MODIFY', { oldItem: itemOf(task), newItem: itemOf(done) }));
      const log2 = await log();
      expect(log2.map((event) => [event.seq, event.at, event.task.status])).toEqual([
        [1, START, 'working'],
        [2, START + 9, 'completed'],
      ]);
    });

    it('appends nothing, and queues nothing, for a change no watcher sees', async () => {
      await subscribed({ name: 'tasks.updated', arguments: {} });
      const refreshed = { ...task, lastCheckedAt: START + 1_000 };
      await projector.project(change('MODIFY', { oldItem: itemOf(task), newItem: itemOf(refreshed) }));
      expect(await log()).toEqual([]);
      expect(queue.sends).toEqual([]);
    });

    it('appends a redelivered change once, and queues it again under the same webhook ID', async () => {
      const subscription = await subscribed({ name: 'tasks.updated', arguments: {} });
      const created = change('INSERT', { newItem: itemOf(task) });
      await projector.project(created);
      await projector.project(created);
      expect((await log()).map((event) => event.seq)).toEqual([1]);
      expect(queue.sends).toHaveLength(2);
      expect(queue.deliveries.map((each) => [each.subscriptionId, each.webhookId])).toEqual([
        [subscription.id, 'evt_task-1_1'],
        [subscription.id, 'evt_task-1_1'],
      ]);
      expect(queue.sends[1]).toEqual(queue.sends[0]);
    });

    it('ignores an item that is not a task, written or removed', async () => {
      await subscribed({ name: 'task.events', arguments: { taskId: 'task-1' } });
      const request: Item = { ...itemOf(task), pk: requestKey(task.owner, '"1"') };
      await projector.project(change('INSERT', { newItem: request }));
      await projector.project(change('MODIFY', { oldItem: request, newItem: { ...request, status: 'completed' } }));
      await projector.project(change('REMOVE', { oldItem: request }));
      expect(await log()).toEqual([]);
      expect(queue.sends).toEqual([]);
      expect((await subscriptions.listForOwner(task.owner))[0]?.refreshBefore).toBe(START + HOUR_MS);
    });

    it('starts a task created anew under the same ID with a status event, not a diff against the old one', async () => {
      const old = { ...task, currentStep: 'Analyse' };
      await projector.project(change('INSERT', { newItem: itemOf(old, { [A.currentStep]: 'Analyse' }) }));
      const again = newTask(clock, { owner: 'alice', taskId: 'task-1', lastUpdatedAt: START + 50 });
      expect(again.executionArn).not.toBe(old.executionArn);
      await projector.project(
        change('MODIFY', { oldItem: itemOf(old, { [A.currentStep]: 'Analyse' }), newItem: itemOf(again) }),
      );
      const latest = (await log()).at(-1);
      expect(latest).toMatchObject({ seq: 2, at: START + 50, changes: [TaskEventChange.Status] });
      expect(latest?.task).toEqual(snapshotOf(again, START));
    });

    it('gives the event the expiry of the item it came from (its TTL attribute, in ms)', async () => {
      const ttlSeconds = Math.floor(START / 1000) + 86_400;
      await projector.project(change('INSERT', { newItem: itemOf(task, { [TTL_ATTRIBUTE]: ttlSeconds }) }));
      expect((await log())[0]?.expiresAt).toBe(ttlSeconds * 1000);
    });

    it('gives an event of a task kept until deleted no expiry', async () => {
      const kept = newTask(clock, { owner: 'alice', retention: { ms: null, clock: RetentionClock.FromCreation } });
      const item = itemOf(kept);
      expect(item[TTL_ATTRIBUTE]).toBeUndefined();
      await projector.project(change('INSERT', { newItem: item }));
      const [event] = await log(kept.owner, kept.taskId);
      expect(event).toBeDefined();
      expect(event).not.toHaveProperty('expiresAt');
    });
  });

  describe('fan-out to webhook subscriptions', () => {
    it("queues the event to the owner's live subscriptions that match it, and to no other", async () => {
      const all = await subscribed({ name: 'tasks.updated', arguments: {} });
      const thisTask = await subscribed({ name: 'tasks.updated', arguments: { taskId: 'task-1' } });
      const log1 = await subscribed({ name: 'task.events', arguments: { taskId: 'task-1' } });
      await subscribed({ name: 'tasks.updated', arguments: { taskId: 'task-2' } });
      await subscribed({ name: 'task.events', arguments: { taskId: 'task-2' } });
      await subscribed({ name: 'task.events', arguments: { taskId: 'task-1' }, refreshBefore: START + 10 });
      await subscriptions.put(newSubscription(clock, { owner: 'bob', name: 'tasks.updated', arguments: {} }));
      await subscriptions.put(
        newSubscription(clock, { owner: 'bob', name: 'task.events', arguments: { taskId: 'task-1' } }),
      );
      clock.advance(10);
      await projector.project(change('INSERT', { newItem: itemOf(task) }));

      expect(queue.sends).toHaveLength(1);
      const sent = queue.deliveries;
      expect(sent.map((each) => each.subscriptionId).sort()).toEqual([all.id, thisTask.id, log1.id].sort());
      const [event] = await log();
      for (const each of sent) {
        const subscription = [all, thisTask, log1].find((one) => one.id === each.subscriptionId)!;
        expect(each).toEqual({
          owner: 'alice',
          subscriptionId: subscription.id,
          webhookId: 'evt_task-1_1',
          groupKey: deliveryGroupOf(subscription.id, 'task-1'),
          body: JSON.stringify(occurrenceOf(subscription.name, event!)),
        });
      }
      const bodyOf = (id: string) => JSON.parse(sent.find((each) => each.subscriptionId === id)!.body);
      expect(bodyOf(log1.id)).toMatchObject({ name: 'task.events', cursor: '1', data: { taskId: 'task-1', seq: 1 } });
      expect(bodyOf(all.id)).toMatchObject({ name: 'tasks.updated', cursor: null, eventId: 'evt_task-1_1' });
      expect(bodyOf(all.id).timestamp).toBe(new Date(task.lastUpdatedAt).toISOString());
    });

    it('judges a subscription lapsed by its own clock, whatever the store still lists', async () => {
      // A store reading a clock that lags behind (another host's) still lists the lapsed subscription.
      subscriptions = new InMemoryWebhookSubscriptions({ clock: new ManualClock(START) });
      projector = projectorWith(true);
      await subscribed({ name: 'tasks.updated', arguments: {}, refreshBefore: START + 10 });
      clock.advance(10);
      await projector.project(change('INSERT', { newItem: itemOf(task) }));
      expect((await log()).map((event) => event.seq)).toEqual([1]);
      expect(queue.sends).toEqual([]);
    });

    it('groups deliveries per subscription and task: one group for one task, another for another', async () => {
      const all = await subscribed({ name: 'tasks.updated', arguments: {} });
      const other = await subscribed({ name: 'task.events', arguments: { taskId: 'task-1' } });
      const second = newTask(clock, { owner: 'alice', taskId: 'task-2' });
      await projector.project(change('INSERT', { newItem: itemOf(task) }));
      const failed = { ...task, status: TaskStatus.Failed, completedAt: START + 1, lastUpdatedAt: START + 1 };
      await projector.project(change('MODIFY', { oldItem: itemOf(task), newItem: itemOf(failed) }));
      await projector.project(change('INSERT', { newItem: itemOf(second) }));
      const groupsOf = (id: string, webhookIdPrefix: string) =>
        queue.deliveries
          .filter((each) => each.subscriptionId === id && each.webhookId.startsWith(webhookIdPrefix))
          .map((each) => each.groupKey);
      const [one, two] = groupsOf(all.id, 'evt_task-1_');
      expect(one).toMatch(/^[0-9a-f]{64}$/);
      expect(two).toBe(one);
      const [otherTask] = groupsOf(all.id, 'evt_task-2_');
      expect(otherTask).toBeDefined();
      expect(otherTask).not.toBe(one);
      const [otherSubscription, otherSubscriptionAgain] = groupsOf(other.id, 'evt_task-1_');
      expect(otherSubscriptionAgain).toBe(otherSubscription);
      expect(otherSubscription).not.toBe(one);
      expect(deliveryGroupOf(all.id, 'task-1')).toBe(one);
    });

    it('keeps recording events, and queues nothing, with webhooks off', async () => {
      await subscribed({ name: 'tasks.updated', arguments: {} });
      await subscribed({ name: 'task.events', arguments: { taskId: 'task-1' } });
      const off = projectorWith(false);
      await off.project(change('INSERT', { newItem: itemOf(task) }));
      await off.project(change('REMOVE', { oldItem: itemOf(task) }));
      expect((await log()).map((event) => event.seq)).toEqual([1]);
      expect(queue.sends).toEqual([]);
      expect((await subscriptions.listForOwner('alice')).map((each) => each.refreshBefore)).toEqual([
        START + HOUR_MS,
        START + HOUR_MS,
      ]);
    });

    it('skips a stored subscription whose event type is gone, with a warning, and serves the others', async () => {
      const withdrawn = await subscribed({ name: 'task.withdrawn', arguments: {} });
      const kept = await subscribed({ name: 'tasks.updated', arguments: {} });
      await projector.project(change('INSERT', { newItem: itemOf(task) }));
      expect(queue.deliveries.map((each) => each.subscriptionId)).toEqual([kept.id]);
      expect(logger.records).toContainEqual(
        expect.objectContaining({ level: 'warn', extra: expect.objectContaining({ subscriptionId: withdrawn.id }) }),
      );
    });

    it('throws when the queue fails, so the change is processed again; the retry appends no second event', async () => {
      const subscription = await subscribed({ name: 'task.events', arguments: { taskId: 'task-1' } });
      const created = change('INSERT', { newItem: itemOf(task) });
      queue.failing = true;
      await expect(projector.project(created)).rejects.toThrow('queue unavailable');
      expect((await log()).map((event) => event.seq)).toEqual([1]);
      queue.failing = false;
      await projector.project(created);
      expect((await log()).map((event) => event.seq)).toEqual([1]);
      expect(queue.deliveries.map((each) => [each.subscriptionId, each.webhookId])).toEqual([
        [subscription.id, 'evt_task-1_1'],
      ]);
    });
  });

  describe('a removed task', () => {
    it('sends a terminated envelope to the subscriptions on that task, and to no other', async () => {
      const onTask = await subscribed({ name: 'task.events', arguments: { taskId: 'task-1' } });
      const updates = await subscribed({ name: 'tasks.updated', arguments: { taskId: 'task-1' } });
      await subscribed({ name: 'tasks.updated', arguments: {} });
      await subscribed({ name: 'task.events', arguments: { taskId: 'task-2' } });
      await subscriptions.put(
        newSubscription(clock, { owner: 'bob', name: 'task.events', arguments: { taskId: 'task-1' } }),
      );
      await projector.project(change('REMOVE', { oldItem: itemOf(task) }));

      expect(queue.sends).toHaveLength(1);
      const sent = queue.deliveries;
      expect(sent.map((each) => each.subscriptionId).sort()).toEqual([onTask.id, updates.id].sort());
      for (const each of sent) {
        expect(each).toMatchObject({ owner: 'alice', groupKey: deliveryGroupOf(each.subscriptionId, 'task-1') });
        expect(each.webhookId).toMatch(/^msg_terminated_[0-9a-f]+$/);
        expect(JSON.parse(each.body)).toEqual({
          type: 'terminated',
          error: {
            code: EVENTS_ERROR_CODE.NotFound,
            message: expect.stringContaining('task-1'),
            data: { kind: 'task', taskId: 'task-1' },
          },
        });
      }
      expect(await log()).toEqual([]);
    });

    it('queues the same envelope ID when the removal is processed again, so it is delivered once', async () => {
      await subscribed({ name: 'task.events', arguments: { taskId: 'task-1' } });
      const removed = change('REMOVE', { oldItem: itemOf(task) });
      await projector.project(removed);
      await projector.project(removed);
      const [first, second] = queue.deliveries;
      expect(second?.webhookId).toBe(first?.webhookId);
    });

    it(`lets those subscriptions lapse ${TERMINATION_GRACE_MS / 60_000} minutes on, unless they end sooner`, async () => {
      const long = await subscribed({ name: 'task.events', arguments: { taskId: 'task-1' } });
      const forever = await subscribed({ name: 'tasks.updated', arguments: { taskId: 'task-1' }, refreshBefore: null });
      const soon = await subscribed({
        name: 'task.events',
        arguments: { taskId: 'task-1' },
        refreshBefore: START + 60_000,
      });
      const unrelated = await subscribed({ name: 'tasks.updated', arguments: {} });
      await projector.project(change('REMOVE', { oldItem: itemOf(task) }));
      const grantOf = async (subscription: WebhookSubscription) =>
        (await subscriptions.get('alice', subscription.id))?.refreshBefore;
      expect(await grantOf(long)).toBe(START + TERMINATION_GRACE_MS);
      expect(await grantOf(forever)).toBe(START + TERMINATION_GRACE_MS);
      expect(await grantOf(soon)).toBe(START + 60_000);
      expect(await grantOf(unrelated)).toBe(START + HOUR_MS);
      const kept = await subscriptions.get('alice', long.id);
      expect(kept).toEqual({ ...long, refreshBefore: START + TERMINATION_GRACE_MS });
      clock.advance(TERMINATION_GRACE_MS);
      expect(await subscriptions.get('alice', long.id)).toBeNull();
    });

    it('queues nothing, and changes nothing, when no subscription follows the task', async () => {
      const unrelated = await subscribed({ name: 'tasks.updated', arguments: {} });
      await projector.project(change('REMOVE', { oldItem: itemOf(task) }));
      expect(queue.sends).toEqual([]);
      expect(await subscriptions.get('alice', unrelated.id)).toEqual(unrelated);
    });

    it('throws when the envelope cannot be queued, leaving the grants as they were for the retry', async () => {
      const onTask = await subscribed({ name: 'task.events', arguments: { taskId: 'task-1' } });
      queue.failing = true;
      await expect(projector.project(change('REMOVE', { oldItem: itemOf(task) }))).rejects.toThrow();
      expect((await subscriptions.get('alice', onTask.id))?.refreshBefore).toBe(START + HOUR_MS);
    });
  });
});
