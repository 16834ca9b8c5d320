// The in-memory delivery queue, the local stand-in for SQS FIFO and its Lambda: order within a group, groups side by
// side, a retry holding its group, deduplication, dead letters and `idle`. The deliverer is scripted; time is a clock
// whose sleep moves it on at once (nothing here waits for real time).
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../lambda/core/clock.js';
import type { Deliverer, DeliveryOutcome, WebhookDelivery } from '../../../lambda/events/delivery-queue.js';
import {
  DEDUPLICATION_WINDOW_MS,
  InMemoryDeliveryQueue,
  THROWN_ATTEMPT_PAUSE_MS,
} from '../../../lambda/events/in-memory-delivery-queue.js';

const silent = { info: () => {}, warn: () => {}, error: () => {} };

/** A clock whose sleep moves time on by what was asked, at once, and records each wait. */
function instantClock(): Clock & { sleeps: number[]; advance(ms: number): void } {
  let now = 1_000_000;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    advance: (ms) => (now += ms),
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}

function delivery(group: string, id: string, subscriptionId = 'sub_1'): WebhookDelivery {
  return { owner: 'alice', subscriptionId, webhookId: id, groupKey: group, body: `{"id":"${id}"}` };
}

/** A deliverer that answers each call by `script(delivery, attempt)` and records the calls. */
function scripted(
  script: (delivery: WebhookDelivery, attempt: number) => DeliveryOutcome | Promise<DeliveryOutcome> = () => ({
    kind: 'delivered',
  }),
): Deliverer & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async deliver(each, attempt) {
      calls.push(`${each.webhookId}#${attempt}`);
      return script(each, attempt);
    },
  };
}

/** A promise and the function that settles it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('InMemoryDeliveryQueue', () => {
  it('hands a group its deliveries in the order they were sent, one at a time', async () => {
    let inFlight = 0;
    let most = 0;
    const deliverer = scripted(async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight -= 1;
      return { kind: 'delivered' };
    });
    const queue = new InMemoryDeliveryQueue({ deliverer, clock: instantClock(), logger: silent });
    await queue.send([delivery('g', 'a'), delivery('g', 'b')]);
    await queue.send([delivery('g', 'c')]);
    await queue.idle();
    expect(deliverer.calls).toEqual(['a#1', 'b#1', 'c#1']);
    expect(most).toBe(1);
    expect(queue.attempts).toBe(3);
  });

  it('runs groups side by side: one group waiting does not hold another', async () => {
    const held = gate();
    const deliverer = scripted(async (each) => {
      if (each.groupKey === 'slow') await held.promise;
      return { kind: 'delivered' };
    });
    const queue = new InMemoryDeliveryQueue({ deliverer, clock: instantClock(), logger: silent });
    await queue.send([delivery('slow', 's1'), delivery('slow', 's2'), delivery('fast', 'f1'), delivery('fast', 'f2')]);
    await expect.poll(() => deliverer.calls).toEqual(['s1#1', 'f1#1', 'f2#1']);
    held.open();
    await queue.idle();
    expect(deliverer.calls).toEqual(['s1#1', 'f1#1', 'f2#1', 's2#1']);
  });

  it('holds a group while its head waits for a retry, then tries the head again with the next attempt number', async () => {
    const clock = instantClock();
    const deliverer = scripted((each, attempt) =>
      each.webhookId === 'a' && attempt < 3
        ? { kind: 'retry', afterMs: 5_000 * attempt, category: 'http_5xx' }
        : { kind: 'delivered' },
    );
    const queue = new InMemoryDeliveryQueue({ deliverer, clock, logger: silent });
    await queue.send([delivery('g', 'a'), delivery('g', 'b'), delivery('other', 'x')]);
    await queue.idle();
    expect(deliverer.calls.filter((call) => !call.startsWith('x'))).toEqual(['a#1', 'a#2', 'a#3', 'b#1']);
    expect(deliverer.calls).toContain('x#1');
    expect(clock.sleeps).toEqual([5_000, 10_000]);
  });

  it('takes the same webhook ID for the same subscription as one delivery within five minutes', async () => {
    const clock = instantClock();
    const deliverer = scripted();
    const queue = new InMemoryDeliveryQueue({ deliverer, clock, logger: silent });
    await queue.send([delivery('g', 'a'), delivery('g', 'a')]);
    await queue.send([delivery('g', 'a'), delivery('g', 'a', 'sub_2')]);
    await queue.idle();
    expect(deliverer.calls).toEqual(['a#1', 'a#1']);
    clock.advance(DEDUPLICATION_WINDOW_MS - 1);
    await queue.send([delivery('g', 'a')]);
    await queue.idle();
    expect(deliverer.calls).toHaveLength(2);
    clock.advance(1);
    await queue.send([delivery('g', 'a')]);
    await queue.idle();
    expect(deliverer.calls).toHaveLength(3);
  });

  it('dead-letters a delivery whose attempts keep throwing, after maxReceives, and goes on with its group', async () => {
    const clock = instantClock();
    const deliverer = scripted((each) => {
      if (each.webhookId === 'bad') throw new Error('store unavailable');
      return { kind: 'delivered' };
    });
    const queue = new InMemoryDeliveryQueue({ deliverer, clock, logger: silent, maxReceives: 3 });
    await queue.send([delivery('g', 'bad'), delivery('g', 'next')]);
    await queue.idle();
    expect(deliverer.calls).toEqual(['bad#1', 'bad#2', 'bad#3', 'next#1']);
    expect(queue.deadLetters).toEqual([delivery('g', 'bad')]);
    expect(clock.sleeps).toEqual([THROWN_ATTEMPT_PAUSE_MS, THROWN_ATTEMPT_PAUSE_MS]);
  });

  it('counts a thrown attempt as a receive, as SQS does, and delivers when a later one succeeds', async () => {
    let thrown = false;
    const deliverer = scripted(() => {
      if (!thrown) {
        thrown = true;
        throw new Error('once');
      }
      return { kind: 'delivered' };
    });
    const queue = new InMemoryDeliveryQueue({ deliverer, clock: instantClock(), logger: silent });
    await queue.send([delivery('g', 'a')]);
    await queue.idle();
    expect(deliverer.calls).toEqual(['a#1', 'a#2']);
    expect(queue.deadLetters).toEqual([]);
  });

  it('dead-letters a delivery still asking for a retry at maxReceives', async () => {
    const deliverer = scripted(() => ({ kind: 'retry', afterMs: 1_100, category: 'timeout' }));
    const queue = new InMemoryDeliveryQueue({ deliverer, clock: instantClock(), logger: silent, maxReceives: 2 });
    await queue.send([delivery('g', 'a')]);
    await queue.idle();
    expect(deliverer.calls).toEqual(['a#1', 'a#2']);
    expect(queue.deadLetters).toHaveLength(1);
  });

  it('goes on past a delivery dropped', async () => {
    const deliverer = scripted((each) =>
      each.webhookId === 'a' ? { kind: 'dropped', reason: 'subscription gone' } : { kind: 'delivered' },
    );
    const queue = new InMemoryDeliveryQueue({ deliverer, clock: instantClock(), logger: silent });
    await queue.send([delivery('g', 'a'), delivery('g', 'b')]);
    await queue.idle();
    expect(deliverer.calls).toEqual(['a#1', 'b#1']);
  });

  it('is idle at once when empty, and only once every group is done', async () => {
    const held = gate();
    const deliverer = scripted(async () => {
      await held.promise;
      return { kind: 'delivered' };
    });
    const queue = new InMemoryDeliveryQueue({ deliverer, clock: instantClock(), logger: silent });
    await queue.idle();
    await queue.send([delivery('g', 'a')]);
    let idle = false;
    const waiting = queue.idle().then(() => (idle = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(idle).toBe(false);
    held.open();
    await waiting;
    expect(idle).toBe(true);
  });

  it('picks up a delivery sent while its group is finishing, whenever it comes', async () => {
    // The worker's last look at its group and its end are some microtasks apart: send in each gap between.
    for (let ticks = 0; ticks < 30; ticks += 1) {
      const deliverer = scripted();
      const queue = new InMemoryDeliveryQueue({ deliverer, clock: instantClock(), logger: silent });
      await queue.send([delivery('g', 'a')]);
      for (let tick = 0; tick < ticks; tick += 1) await Promise.resolve();
      await queue.send([delivery('g', 'b')]);
      await queue.idle();
      expect(deliverer.calls).toEqual(['a#1', 'b#1']);
    }
  });

  it('after stop hands nothing more over, cuts a retry wait short and refuses to queue', async () => {
    const held = gate();
    const deliverer = scripted(async () => {
      await held.promise;
      return { kind: 'retry', afterMs: 60_000, category: 'http_5xx' };
    });
    const clock: Clock = {
      now: () => 0,
      sleep: (_ms, signal) => new Promise((resolve) => signal?.addEventListener('abort', () => resolve())),
    };
    const queue = new InMemoryDeliveryQueue({ deliverer, clock, logger: silent });
    await queue.send([delivery('g', 'a'), delivery('g', 'b')]);
    await expect.poll(() => deliverer.calls).toEqual(['a#1']);
    held.open();
    await new Promise((resolve) => setImmediate(resolve));
    queue.stop();
    await queue.idle();
    expect(deliverer.calls).toEqual(['a#1']);
    await expect(queue.send([delivery('g', 'c')])).rejects.toThrow(/stopped/);
  });
});
