// A subscription to one task ends once that task has ended and the receiver has its terminal event: it stops
// counting toward its owner's limit then, not when its grant runs out. Wired end to end on in-memory stores: the use
// case, the projector on hand-made changes of the task table, the in-memory delivery queue and the real deliverer,
// POSTing to the tests' receiver on 127.0.0.1 (trusted as loopback, so the handshake runs against it).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../../lambda/core/clock.js';
import type { TaskRecord } from '../../../lambda/core/task.js';
import { TaskStatus } from '../../../lambda/core/task-status.js';
import type { CallbackPolicy } from '../../../lambda/events/callback-url.js';
import { FAST_DELIVERY_SCHEDULE } from '../../../lambda/events/delivery-backoff.js';
import { SubscriptionLimitError } from '../../../lambda/events/event-errors.js';
import { InMemoryDeliveryQueue } from '../../../lambda/events/in-memory-delivery-queue.js';
import { TaskEventProjector } from '../../../lambda/events/task-event-projector.js';
import { WebhookDeliverer } from '../../../lambda/events/webhook-deliverer.js';
import {
  DEFAULT_SUBSCRIPTION_SETTINGS,
  WebhookSubscriptions,
  type SubscriptionParams,
} from '../../../lambda/events/webhook-subscriptions.js';
import { InMemoryTaskEventStore } from '../../../lambda/store/in-memory-task-event-store.js';
import { InMemoryWebhookSubscriptions } from '../../../lambda/store/in-memory-webhook-subscriptions.js';
import { taskToItem } from '../../../lambda/store/task-item-codec.js';
import { newTask } from '../../contract/task-fixtures.js';
import { newWebhookSecret } from '../../contract/webhook-subscription-store-contract.js';
import { RecordingLogger } from '../../support/in-memory-backend.js';
import {
  answering,
  isVerification,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../../support/webhook-receiver.js';

const MAX_UNFINISHED_MS = 7 * 24 * 3_600_000;
const LOCAL: CallbackPolicy = { trustedOrigins: [], allowLoopbackHttp: true };
/** Real time for the stores and the signatures; no wait between attempts. */
const CLOCK: Clock = { now: () => Date.now(), sleep: async () => {} };

describe('a subscription whose task has ended', () => {
  let receiver: WebhookReceiver;
  let subscriptions: InMemoryWebhookSubscriptions;
  let projector: TaskEventProjector;
  let queue: InMemoryDeliveryQueue;
  let useCase: WebhookSubscriptions;
  let position = 100;

  beforeEach(async () => {
    receiver = await startWebhookReceiver();
    const logger = new RecordingLogger();
    const events = new InMemoryTaskEventStore({ clock: CLOCK });
    subscriptions = new InMemoryWebhookSubscriptions({ clock: CLOCK });
    const deliverer = new WebhookDeliverer({
      subscriptions,
      policy: LOCAL,
      schedule: FAST_DELIVERY_SCHEDULE,
      clock: CLOCK,
      logger,
      random: () => 0.5,
    });
    queue = new InMemoryDeliveryQueue({ deliverer, clock: CLOCK, logger });
    projector = new TaskEventProjector({ events, webhooks: { subscriptions, queue }, clock: CLOCK, logger });
    useCase = new WebhookSubscriptions({
      store: subscriptions,
      events,
      queue,
      policy: LOCAL,
      taskExists: async () => true,
      clock: CLOCK,
      logger,
      // One slot: a second subscription is refused while the first holds it.
      settings: { ...DEFAULT_SUBSCRIPTION_SETTINGS, maxPerOwner: 1 },
    });
  });

  afterEach(async () => {
    queue.stop();
    await receiver.close();
  });

  /** The task's change through the projector, from `before` (absent: its creation). */
  async function changed(after: TaskRecord, before?: TaskRecord): Promise<void> {
    position += 1;
    await projector.project({
      kind: before === undefined ? 'INSERT' : 'MODIFY',
      position: String(position),
      newItem: taskToItem(after, MAX_UNFINISHED_MS),
      ...(before === undefined ? {} : { oldItem: taskToItem(before, MAX_UNFINISHED_MS) }),
    });
  }

  /** The events the receiver got at `path`, handshakes left out. */
  const eventsAt = (path: string) =>
    receiver
      .on(path)
      .filter((request) => !isVerification(request))
      .map((request) => request.json?.['data']);

  const completed = (task: TaskRecord): TaskRecord => ({
    ...task,
    status: TaskStatus.Completed,
    completedAt: Date.now(),
    lastUpdatedAt: Date.now(),
  });

  const follow = (path: string, args: Record<string, unknown>): SubscriptionParams => ({
    name: args['taskId'] === undefined ? 'tasks.updated' : 'task.events',
    arguments: args,
    delivery: { mode: 'webhook', url: `${receiver.url}${path}`, secret: newWebhookSecret() },
    ...(args['taskId'] === undefined ? {} : { cursor: '0' }),
  });

  it('frees its slot once the terminal event is delivered', async () => {
    const task = newTask(CLOCK, { owner: 'alice', taskId: 't1' });
    await changed(task);
    const first = await useCase.subscribe('alice', follow('/t1', { taskId: 't1' }));
    await changed(completed(task), task);
    await queue.idle();
    expect(eventsAt('/t1')).toMatchObject([
      { seq: 1, task: { status: 'working' } },
      { seq: 2, task: { status: 'completed' } },
    ]);
    expect(await subscriptions.get('alice', first.id)).toBeNull();
    await expect(useCase.subscribe('alice', follow('/t2', { taskId: 't2' }))).resolves.toMatchObject({ cursor: '0' });
  });

  it('keeps its slot while the terminal event is not delivered', async () => {
    receiver.script('/t1', answering(503));
    const task = newTask(CLOCK, { owner: 'alice', taskId: 't1' });
    await changed(task);
    await useCase.subscribe('alice', follow('/t1', { taskId: 't1' }));
    await changed(completed(task), task);
    await queue.idle();
    await expect(useCase.subscribe('alice', follow('/t2', { taskId: 't2' }))).rejects.toThrow(SubscriptionLimitError);
  });

  it('keeps a subscription to every task when one of them ends', async () => {
    const task = newTask(CLOCK, { owner: 'alice', taskId: 't1' });
    const all = await useCase.subscribe('alice', follow('/all', {}));
    await changed(task);
    await changed(completed(task), task);
    await queue.idle();
    expect(eventsAt('/all')).toHaveLength(2);
    expect(await subscriptions.get('alice', all.id)).not.toBeNull();
  });
});
