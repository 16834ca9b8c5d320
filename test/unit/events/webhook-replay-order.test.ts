// A subscription made with cursor "0" while its task is still producing events: the replay the cursor asks for and
// the live events the projector queues meanwhile must reach the receiver as one sequence, in seq order, each once.
// The interleaving is forced, not hoped for: a store the use case calls runs the projector on the task's next change
// at the chosen step, on in-memory stores and the in-memory delivery queue.
import { beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../../lambda/core/clock.js';
import type { TaskRecord } from '../../../lambda/core/task.js';
import type { WebhookSubscription } from '../../../lambda/core/webhook-subscription.js';
import type { CallbackPolicy } from '../../../lambda/events/callback-url.js';
import type { Deliverer, DeliveryOutcome, WebhookDelivery } from '../../../lambda/events/delivery-queue.js';
import { InMemoryDeliveryQueue } from '../../../lambda/events/in-memory-delivery-queue.js';
import { TaskEventProjector, type TaskTableChange } from '../../../lambda/events/task-event-projector.js';
import { WebhookSubscriptions } from '../../../lambda/events/webhook-subscriptions.js';
import { InMemoryTaskEventStore } from '../../../lambda/store/in-memory-task-event-store.js';
import { InMemoryWebhookSubscriptions } from '../../../lambda/store/in-memory-webhook-subscriptions.js';
import { taskToItem } from '../../../lambda/store/task-item-codec.js';
import { ManualClock, newTask } from '../../contract/task-fixtures.js';
import { newWebhookSecret } from '../../contract/webhook-subscription-store-contract.js';
import { RecordingLogger } from '../../support/in-memory-backend.js';

const START = Date.UTC(2030, 0, 1);
const MAX_UNFINISHED_MS = 7 * 24 * 3_600_000;
const ORIGIN = 'https://hooks.example.com';
/** The receiver's origin is listed, so subscribing needs no handshake and nothing here touches the network. */
const POLICY: CallbackPolicy = { trustedOrigins: [ORIGIN] };

/** Records the seq of every event delivered, in the order the queue hands them over. */
class RecordingDeliverer implements Deliverer {
  readonly seqs: number[] = [];

  async deliver(delivery: WebhookDelivery): Promise<DeliveryOutcome> {
    this.seqs.push((JSON.parse(delivery.body) as { data: { seq: number } }).data.seq);
    return { kind: 'delivered' };
  }
}

/** Subscriptions in memory that run `hook` once, right after the next `put`. */
class HookedSubscriptions extends InMemoryWebhookSubscriptions {
  hook: (() => Promise<void>) | undefined;

  override async put(subscription: WebhookSubscription): Promise<void> {
    await super.put(subscription);
    const hook = this.hook;
    this.hook = undefined;
    await hook?.();
  }
}

/** The event log in memory that runs `hook` once, right before the next `readAfter` answers. */
class HookedEvents extends InMemoryTaskEventStore {
  hook: (() => Promise<void>) | undefined;

  override async readAfter(owner: string, taskId: string, afterSeq: number, limit: number) {
    const hook = this.hook;
    this.hook = undefined;
    await hook?.();
    return super.readAfter(owner, taskId, afterSeq, limit);
  }
}

describe('a webhook replay and live events of one task', () => {
  let clock: ManualClock;
  let events: HookedEvents;
  let subscriptions: HookedSubscriptions;
  let deliverer: RecordingDeliverer;
  let queue: InMemoryDeliveryQueue;
  let projector: TaskEventProjector;
  let useCase: WebhookSubscriptions;
  let task: TaskRecord;
  let position: number;

  beforeEach(() => {
    clock = new ManualClock(START);
    const port: Clock = { now: () => clock.now(), sleep: async () => {} };
    const logger = new RecordingLogger();
    events = new HookedEvents({ clock });
    subscriptions = new HookedSubscriptions({ clock });
    deliverer = new RecordingDeliverer();
    queue = new InMemoryDeliveryQueue({ deliverer, clock: port, logger });
    projector = new TaskEventProjector({ events, webhooks: { subscriptions, queue }, clock: port, logger });
    useCase = new WebhookSubscriptions({
      store: subscriptions,
      events,
      queue,
      policy: POLICY,
      taskExists: async () => true,
      clock: port,
      logger,
    });
    task = newTask(clock, { owner: 'alice', taskId: 't1' });
    position = 100;
  });

  /** The task's next change through the projector: one more event in its log, queued to whoever follows it. */
  async function nextEvent(): Promise<void> {
    clock.advance(10);
    position += 1;
    const before = position === 101 ? undefined : taskToItem(task, MAX_UNFINISHED_MS);
    if (before !== undefined) task = { ...task, statusMessage: `step ${position}`, lastUpdatedAt: clock.now() };
    const change: TaskTableChange = {
      kind: before === undefined ? 'INSERT' : 'MODIFY',
      position: String(position),
      newItem: taskToItem(task, MAX_UNFINISHED_MS),
      ...(before === undefined ? {} : { oldItem: before }),
    };
    await projector.project(change);
  }

  const subscribeFromStart = () =>
    useCase.subscribe('alice', {
      name: 'task.events',
      arguments: { taskId: 't1' },
      delivery: { mode: 'webhook', url: `${ORIGIN}/hook`, secret: newWebhookSecret() },
      cursor: '0',
    });

  async function delivered(): Promise<number[]> {
    await queue.idle();
    return deliverer.seqs;
  }

  it('delivers a live event made just after the subscription is saved behind the replayed ones', async () => {
    for (let i = 0; i < 3; i += 1) await nextEvent();
    subscriptions.hook = nextEvent;
    await subscribeFromStart();
    await nextEvent();
    expect(await delivered()).toEqual([1, 2, 3, 4, 5]);
  });

  it('delivers a live event made while the replay is read behind the replayed ones', async () => {
    for (let i = 0; i < 3; i += 1) await nextEvent();
    events.hook = nextEvent;
    await subscribeFromStart();
    await nextEvent();
    expect(await delivered()).toEqual([1, 2, 3, 4, 5]);
  });

  it('delivers every event once when the subscription is made before the task has any', async () => {
    subscriptions.hook = nextEvent;
    await subscribeFromStart();
    await nextEvent();
    expect(await delivered()).toEqual([1, 2]);
  });

  it('sends live events one at a time again once the replay is queued', async () => {
    for (let i = 0; i < 2; i += 1) await nextEvent();
    const { id } = await subscribeFromStart();
    expect((await subscriptions.get('alice', id))?.replayAfter).toBeUndefined();
    await queue.idle();
    clock.advance(10 * 60_000);
    await nextEvent();
    expect(await delivered()).toEqual([1, 2, 3]);
  });

  it('finishes on a refresh a replay an earlier subscribe left unqueued', async () => {
    for (let i = 0; i < 3; i += 1) await nextEvent();
    const first = await subscribeFromStart();
    await queue.idle();
    deliverer.seqs.length = 0;
    // As if that subscribe had stopped between saving the subscription and queueing its replay.
    const saved = (await subscriptions.get('alice', first.id))!;
    await subscriptions.put({ ...saved, replayAfter: 1 });
    clock.advance(10 * 60_000);
    const again = await subscribeFromStart();
    expect(again.cursor).toBe('1');
    expect(await delivered()).toEqual([2, 3]);
    expect((await subscriptions.get('alice', first.id))?.replayAfter).toBeUndefined();
  });
});
