// One delivery attempt against a real receiver: the tests' webhook receiver on 127.0.0.1 (trusted through the local
// stack's allowLoopbackHttp) whose answers each test scripts, with the subscriptions in memory. What is sent (checked
// with an independent Standard Webhooks verify), what the outcome is, what the subscription records, and what is
// logged.
import type { ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SYSTEM_CLOCK } from '../../../lambda/core/clock.js';
import { HEALTHY_DELIVERY, type WebhookSubscription } from '../../../lambda/core/webhook-subscription.js';
import type { CallbackPolicy } from '../../../lambda/events/callback-url.js';
import { FAST_DELIVERY_SCHEDULE, type DeliverySchedule } from '../../../lambda/events/delivery-backoff.js';
import type { WebhookDelivery } from '../../../lambda/events/delivery-queue.js';
import { WebhookDeliverer } from '../../../lambda/events/webhook-deliverer.js';
import { InMemoryWebhookSubscriptions } from '../../../lambda/store/in-memory-webhook-subscriptions.js';
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../../support/webhook-receiver.js';

const secretOf = (): string => `whsec_${randomBytes(32).toString('base64')}`;
const LOCAL: CallbackPolicy = { trustedOrigins: [], allowLoopbackHttp: true };
/** Words the receiver says, which must never reach a log or an outcome. */
const RECEIVER_WORDS = 'receiver-internal-9c1d';
const OWNER = 'alice';
/** The receiver's path the subscriptions' URL names. */
const PATH = '/hooks/mcp';

type Answer = (received: ReceivedRequest, res: ServerResponse) => void;

const ok: Answer = (_received, res) => res.writeHead(200).end(RECEIVER_WORDS);
const echo: Answer = ({ rawBody }, res) => {
  const { challenge } = JSON.parse(rawBody) as { challenge: string };
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge }));
};
const status =
  (code: number): Answer =>
  (_received, res) =>
    res.writeHead(code).end(RECEIVER_WORDS);

/** A request's headers, each sent once. */
const headersOf = (request: ReceivedRequest): Record<string, string> => request.headers as Record<string, string>;

interface LogRecord {
  readonly level: string;
  readonly message: string;
  readonly extra: Record<string, unknown>;
}

describe('WebhookDeliverer against a real receiver', () => {
  let receiver: WebhookReceiver;
  /** The answers to the next requests, in order; the last one repeats. */
  let answers: Answer[] = [ok];
  /** Every request the receiver got so far (the subscriptions' URL's or any other), oldest first. */
  const received = (): ReceivedRequest[] => [...receiver.requests];
  const logs: LogRecord[] = [];
  const logger = {
    info: (message: string, extra: Record<string, unknown>) => logs.push({ level: 'info', message, extra }),
    warn: (message: string, extra: Record<string, unknown>) => logs.push({ level: 'warn', message, extra }),
    error: (message: string, extra: Record<string, unknown>) => logs.push({ level: 'error', message, extra }),
  };

  let subscriptions: InMemoryWebhookSubscriptions;

  beforeEach(async () => {
    receiver = await startWebhookReceiver();
    receiver.script(PATH, (request, res) => {
      const answer = answers.length > 1 ? answers.shift()! : answers[0]!;
      answer(request, res);
    });
    logs.length = 0;
    answers = [ok];
    subscriptions = new InMemoryWebhookSubscriptions({ clock: SYSTEM_CLOCK });
  });

  afterEach(async () => {
    await receiver.close();
  });

  async function subscribe(extra: Partial<WebhookSubscription> = {}): Promise<WebhookSubscription> {
    const subscription: WebhookSubscription = {
      id: `sub_${randomBytes(16).toString('hex')}`,
      owner: OWNER,
      name: 'task.events',
      arguments: { taskId: 't1' },
      url: `${receiver.url}${PATH}?token=receiver-token`,
      secret: secretOf(),
      createdAt: Date.now(),
      refreshBefore: Date.now() + 3_600_000,
      verified: true,
      delivery: HEALTHY_DELIVERY,
      ...extra,
    };
    await subscriptions.put(subscription);
    return subscription;
  }

  function deliveryTo(subscription: WebhookSubscription, seq = 1): WebhookDelivery {
    return {
      owner: subscription.owner,
      subscriptionId: subscription.id,
      webhookId: `evt_t1_${seq}`,
      groupKey: 'group-1',
      body: JSON.stringify({ eventId: `evt_t1_${seq}`, name: 'task.events', data: { taskId: 't1', seq } }),
    };
  }

  function deliverer(schedule: DeliverySchedule = FAST_DELIVERY_SCHEDULE, policy: CallbackPolicy = LOCAL) {
    return new WebhookDeliverer({ subscriptions, policy, schedule, clock: SYSTEM_CLOCK, logger, random: () => 0.5 });
  }

  it('delivers a signed body to a verified subscription and records the delivery', async () => {
    const subscription = await subscribe();
    const delivery = deliveryTo(subscription);
    expect(await deliverer().deliver(delivery, 1)).toEqual({ kind: 'delivered' });
    expect(received()).toHaveLength(1);
    const [request] = received() as [ReceivedRequest];
    expect(request.rawBody).toBe(delivery.body);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['webhook-id']).toBe('evt_t1_1');
    expect(request.headers['x-mcp-subscription-id']).toBe(subscription.id);
    expect(new Webhook(subscription.secret).verify(request.rawBody, headersOf(request))).toEqual(
      JSON.parse(delivery.body),
    );
    const stored = await subscriptions.get(OWNER, subscription.id);
    expect(stored?.delivery.lastDeliveryAt).toBeTypeOf('number');
    expect(stored?.delivery.failedEvents).toBe(0);
  });

  it('verifies an unverified URL first, records it verified, then delivers', async () => {
    const subscription = await subscribe({ verified: false });
    answers = [echo, ok];
    expect(await deliverer().deliver(deliveryTo(subscription), 1)).toEqual({ kind: 'delivered' });
    expect(received().map((each) => (JSON.parse(each.rawBody) as { type?: string }).type ?? 'event')).toEqual([
      'verification',
      'event',
    ]);
    expect(received()[0]!.headers['webhook-id']).toMatch(/^msg_verification_/);
    expect((await subscriptions.get(OWNER, subscription.id))?.verified).toBe(true);
  });

  it('sends nothing but the challenge to a URL that fails verification, and tries again later', async () => {
    const subscription = await subscribe({ verified: false });
    answers = [ok]; // answers 200 without the echo
    const outcome = await deliverer().deliver(deliveryTo(subscription), 1);
    expect(outcome).toEqual({ kind: 'retry', afterMs: expect.any(Number), category: 'challenge_failed' });
    expect(received()).toHaveLength(1);
    expect(JSON.parse(received()[0]!.rawBody)).toMatchObject({ type: 'verification' });
    expect((await subscriptions.get(OWNER, subscription.id))?.verified).toBe(false);
  });

  it('sends a verification envelope queued as a delivery as it is, without a handshake before it', async () => {
    const subscription = await subscribe({ verified: false });
    const body = JSON.stringify({ type: 'verification', challenge: 'a'.repeat(32) });
    const delivery = { ...deliveryTo(subscription), webhookId: 'msg_verification_0123456789abcdef', body };
    expect(await deliverer().deliver(delivery, 1)).toEqual({ kind: 'delivered' });
    expect(received()).toHaveLength(1);
  });

  it('retries a 503 with the backoff of its attempt, then delivers on a 200', async () => {
    const subscription = await subscribe();
    answers = [status(503), status(503), ok];
    const d = deliverer();
    // Attempt 1 of the fast schedule: 1200 at the middle of the jitter (0.8) is 960, under the 1.1 s floor.
    expect(await d.deliver(deliveryTo(subscription), 1)).toEqual({
      kind: 'retry',
      afterMs: 1100,
      category: 'http_5xx',
    });
    // Attempt 2: 1200 * 2 * 0.8.
    expect(await d.deliver(deliveryTo(subscription), 2)).toEqual({
      kind: 'retry',
      afterMs: 1920,
      category: 'http_5xx',
    });
    expect(await d.deliver(deliveryTo(subscription), 3)).toEqual({ kind: 'delivered' });
    expect(received()).toHaveLength(3);
  });

  it('counts only the receiver’s failures: receives that fail on reading the subscription cost it no attempt', async () => {
    const subscription = await subscribe();
    answers = [status(503)];
    let unreadable = 2;
    const store = Object.create(subscriptions) as InMemoryWebhookSubscriptions;
    store.get = async (owner, id) => {
      if (unreadable-- > 0) throw new Error('ProvisionedThroughputExceededException');
      return subscriptions.get(owner, id);
    };
    const d = new WebhookDeliverer({
      subscriptions: store,
      policy: LOCAL,
      schedule: FAST_DELIVERY_SCHEDULE,
      clock: SYSTEM_CLOCK,
      logger,
      random: () => 0.5,
    });
    // As SQS hands it over: the receive count goes up on every receive, a thrown one too.
    const outcomes: unknown[] = [];
    for (let receive = 1; outcomes.at(-1) !== 'dropped' && receive <= 20; receive += 1) {
      try {
        outcomes.push((await d.deliver(deliveryTo(subscription), receive)).kind);
      } catch {
        outcomes.push('threw');
      }
    }
    expect(outcomes).toEqual(['threw', 'threw', 'retry', 'retry', 'retry', 'retry', 'dropped']);
    expect(received()).toHaveLength(FAST_DELIVERY_SCHEDULE.attempts);
    const firstRetry = logs.find((log) => log.message === 'Webhook attempt failed; will try again');
    expect(firstRetry?.extra).toMatchObject({ attempt: 1, receive: 3, afterMs: 1100 });
  });

  it.each([410, 413])(
    'drops the delivery at once on a %i, without counting it against the subscription',
    async (code) => {
      const subscription = await subscribe();
      answers = [status(code)];
      expect(await deliverer().deliver(deliveryTo(subscription), 1)).toEqual({
        kind: 'dropped',
        reason: `receiver answered ${code}`,
      });
      expect((await subscriptions.get(OWNER, subscription.id))?.delivery).toEqual(HEALTHY_DELIVERY);
      expect(logs.some((log) => log.level === 'warn' && log.extra['status'] === code)).toBe(true);
    },
  );

  it.each<[string, Answer, string]>([
    ['a 400', status(400), 'http_4xx'],
    ['a 500', status(500), 'http_5xx'],
    ['a 302', (_received, res) => res.writeHead(302, { location: 'http://127.0.0.1/' }).end(), 'connection_refused'],
  ])('retries %s as %s', async (_what, answer, category) => {
    const subscription = await subscribe();
    answers = [answer];
    expect(await deliverer().deliver(deliveryTo(subscription), 1)).toEqual({
      kind: 'retry',
      afterMs: expect.any(Number),
      category,
    });
  });

  it('retries a receiver slower than the timeout as timeout', async () => {
    const subscription = await subscribe();
    answers = [() => {}]; // never answers
    const outcome = await deliverer({ ...FAST_DELIVERY_SCHEDULE, timeoutMs: 200 }).deliver(deliveryTo(subscription), 1);
    expect(outcome).toEqual({ kind: 'retry', afterMs: expect.any(Number), category: 'timeout' });
  });

  it('gives up after the last attempt, records it, and suspends after suspendAfter events given up on', async () => {
    const subscription = await subscribe();
    answers = [status(503)];
    const d = deliverer();
    const last = FAST_DELIVERY_SCHEDULE.attempts;
    for (let seq = 1; seq <= FAST_DELIVERY_SCHEDULE.suspendAfter; seq += 1) {
      for (let attempt = 1; attempt < last; attempt += 1)
        expect(await d.deliver(deliveryTo(subscription, seq), attempt)).toMatchObject({ kind: 'retry' });
      expect(await d.deliver(deliveryTo(subscription, seq), last)).toEqual({ kind: 'dropped', reason: 'given up' });
      const stored = await subscriptions.get(OWNER, subscription.id);
      expect(stored?.delivery).toMatchObject({ failedEvents: seq, lastError: 'http_5xx' });
      expect(stored?.delivery.active).toBe(seq < FAST_DELIVERY_SCHEDULE.suspendAfter);
    }
    const before = received().length;
    expect(await d.deliver(deliveryTo(subscription, 9), 1)).toEqual({ kind: 'dropped', reason: 'suspended' });
    expect(received()).toHaveLength(before);
    const givenUp = logs.filter((log) => log.message === 'Webhook given up on');
    expect(givenUp.at(-1)?.extra).toMatchObject({ suspended: true, category: 'http_5xx', attempt: last });
  });

  it('drops a delivery whose subscription is gone, without a request', async () => {
    const subscription = await subscribe();
    await subscriptions.delete(OWNER, subscription.id);
    expect(await deliverer().deliver(deliveryTo(subscription), 1)).toEqual({
      kind: 'dropped',
      reason: 'subscription gone',
    });
    expect(received()).toHaveLength(0);
  });

  it('signs with the previous secret too while its grace window lasts, and not after', async () => {
    const previous = secretOf();
    const inGrace = await subscribe({ previousSecret: previous, previousSecretUntil: Date.now() + 60_000 });
    const d = deliverer();
    await d.deliver(deliveryTo(inGrace), 1);
    const dual = received().at(-1)!;
    expect(headersOf(dual)['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(inGrace.secret).verify(dual.rawBody, headersOf(dual))).toBeDefined();
    expect(new Webhook(previous).verify(dual.rawBody, headersOf(dual))).toBeDefined();

    const lapsed = await subscribe({ previousSecret: previous, previousSecretUntil: Date.now() - 1 });
    await d.deliver(deliveryTo(lapsed), 1);
    const single = received().at(-1)!;
    expect(headersOf(single)['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(() => new Webhook(previous).verify(single.rawBody, headersOf(single))).toThrow();
  });

  it('gives up at once when the policy no longer allows the URL', async () => {
    const subscription = await subscribe();
    const outcome = await deliverer(FAST_DELIVERY_SCHEDULE, { trustedOrigins: [] }).deliver(
      deliveryTo(subscription),
      1,
    );
    expect(outcome).toEqual({ kind: 'dropped', reason: 'given up' });
    expect(received()).toHaveLength(0);
    expect((await subscriptions.get(OWNER, subscription.id))?.delivery).toMatchObject({
      failedEvents: 1,
      lastError: 'connection_refused',
    });
  });

  it('logs the subscription, the message, the attempt and the category, never a secret, a path or a reply', async () => {
    const previous = secretOf();
    const subscription = await subscribe({
      verified: false,
      previousSecret: previous,
      previousSecretUntil: Date.now() + 60_000,
    });
    answers = [echo, status(503), status(410)];
    const d = deliverer();
    await d.deliver(deliveryTo(subscription), 1);
    await d.deliver(deliveryTo(subscription), 2);
    answers = [status(503)];
    await d.deliver(deliveryTo(subscription), FAST_DELIVERY_SCHEDULE.attempts);
    const failed = logs.find((log) => log.message === 'Webhook attempt failed; will try again');
    expect(failed?.extra).toMatchObject({
      subscriptionId: subscription.id,
      webhookId: 'evt_t1_1',
      attempt: 1,
      category: 'http_5xx',
    });
    const text = JSON.stringify(logs);
    for (const secret of [subscription.secret, previous]) expect(text).not.toContain(secret.slice(6));
    expect(text).not.toContain(RECEIVER_WORDS);
    expect(text).not.toContain('receiver-token');
    expect(text).not.toContain('/hooks/mcp');
  });
});
