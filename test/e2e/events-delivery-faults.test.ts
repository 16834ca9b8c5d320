// Faults in the middle of the event pipeline, injected where the stand-ins cannot fail by themselves: the delivery
// queue refusing a send, the event table failing an append, the subscription store failing after a receiver already
// accepted a delivery. Each time the failed step is retried (the stream record, or the delivery), and the receiver
// still gets every event, once per webhook-id, in order: nothing is lost, and what is repeated carries the same ID.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DeliveryQueue } from '../../lambda/events/delivery-queue.js';
import type { TaskEventStore } from '../../lambda/store/task-event-store.js';
import type { WebhookSubscriptionStore } from '../../lambda/store/webhook-subscription-store.js';
import { call, createTask, rpc } from '../support/events-rpc.js';
import { GENEROUS_WAIT, startTestServer, type TestEventsOptions, type TestServer } from '../support/local-backend.js';
import { isVerification, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;

interface Occurrence {
  eventId: string;
  data: { seq: number; task: { status: string } };
}

/** Fails the first `times` calls of `method`, then lets every call through. */
function failingFirst<T extends object>(target: T, method: keyof T, times: number): T {
  let failures = 0;
  return new Proxy(target, {
    get(object, key, receiver) {
      const value = Reflect.get(object, key, receiver) as unknown;
      if (key !== method || typeof value !== 'function')
        return typeof value === 'function' ? value.bind(object) : value;
      return async (...args: unknown[]) => {
        if (failures < times) {
          failures++;
          throw new Error(`injected fault in ${String(key)} (${failures} of ${times})`);
        }
        return (value as (...args: unknown[]) => Promise<unknown>).apply(object, args);
      };
    },
  });
}

describe('faults mid-delivery: nothing is lost', () => {
  let server: TestServer | undefined;
  let receiver: WebhookReceiver | undefined;

  afterEach(async () => {
    await server?.close();
    await receiver?.close();
  });

  /** A server with `faults`, a subscribed receiver, and one finished task: what the receiver got, and the log. */
  async function runOneTask(faults: TestEventsOptions['faults']) {
    receiver = await startWebhookReceiver();
    server = await startTestServer({}, { events: { allowLoopbackHttp: true, faults } });
    await call(server.url, 'events/subscribe', {
      name: 'tasks.updated',
      arguments: {},
      delivery: { mode: 'webhook', url: `${receiver.url}/hooks`, secret: SECRET },
    });
    const taskId = await createTask(server.url, 'analyze_documents', { documents: ['one', 'two'], reviewSeconds: 1 });
    let log: Occurrence[] = [];
    await vi.waitUntil(async () => {
      const page = await rpc<{ events: Occurrence[] }>(server!.url, 'events/poll', {
        name: 'task.events',
        arguments: { taskId },
        cursor: '0',
      });
      log = 'result' in page ? page.result.events : [];
      return log.some((event) => event.data.task.status === 'completed');
    }, GENEROUS_WAIT);
    await vi.waitUntil(
      () => receiver!.on('/hooks').some((request) => request.json?.['eventId'] === log.at(-1)!.eventId),
      GENEROUS_WAIT,
    );
    await server.events!.settled();
    const delivered = receiver.on('/hooks').filter((request) => !isVerification(request));
    return { log, delivered };
  }

  /** Every event of the log reached the receiver, the first copy of each in log order. */
  function expectEveryEventOnceInOrder(
    log: Occurrence[],
    delivered: ReadonlyArray<{ json?: Record<string, unknown> }>,
  ) {
    const seqs = log.map((event) => event.data.seq);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
    const firstCopies = [...new Set(delivered.map((request) => request.json?.['eventId'] as string))];
    expect(firstCopies).toEqual(log.map((event) => event.eventId));
  }

  it('the queue refuses the first two sends: the stream record is retried, no event is lost or numbered twice', async () => {
    const { log, delivered } = await runOneTask({
      projectorQueue: (queue: DeliveryQueue) => failingFirst(queue, 'send', 2),
    });
    expectEveryEventOnceInOrder(log, delivered);
    expect(delivered).toHaveLength(log.length);
  });

  it('the event table fails the first two appends: the stream record is retried, the log has no gap', async () => {
    const { log, delivered } = await runOneTask({
      events: (store: TaskEventStore) => failingFirst(store, 'append', 2),
    });
    expectEveryEventOnceInOrder(log, delivered);
    expect(delivered).toHaveLength(log.length);
  });

  it('the store fails after a receiver accepted a delivery: it comes again with the same webhook-id', async () => {
    const { log, delivered } = await runOneTask({
      deliverySubscriptions: (store: WebhookSubscriptionStore) => failingFirst(store, 'recordDelivered', 1),
    });
    expectEveryEventOnceInOrder(log, delivered);
    // At least once: the first event was accepted twice, under one webhook-id, so a receiver dedupes it.
    expect(delivered).toHaveLength(log.length + 1);
    const ids = delivered.map((request) => request.headers['webhook-id']);
    expect(ids[0]).toBe(ids[1]);
  });
});
