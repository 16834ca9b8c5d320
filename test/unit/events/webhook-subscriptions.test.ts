// events/subscribe, events/unsubscribe and a task's subscriptions as use cases, on in-memory stores with a clock moved
// by hand, a queue that records what it is given, and a real receiver on 127.0.0.1 (trusted as loopback, so the
// verification handshake runs against it): the order refusals come in, the grants, refreshes, verification and its
// cache, the replay a cursor asks for, and removal.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../../lambda/core/clock.js';
import { TaskEventChange, type NewTaskEvent } from '../../../lambda/core/task-event.js';
import { TaskStatus } from '../../../lambda/core/task-status.js';
import { subscriptionIdOf } from '../../../lambda/core/webhook-subscription.js';
import type { CallbackPolicy } from '../../../lambda/events/callback-url.js';
import type { DeliveryQueue, WebhookDelivery } from '../../../lambda/events/delivery-queue.js';
import { occurrenceOf } from '../../../lambda/events/event-catalog.js';
import {
  CallbackEndpointError,
  EventTaskNotFoundError,
  EventTypeNotFoundError,
  InvalidEventParamsError,
  SubscriptionLimitError,
  SubscriptionNotFoundError,
} from '../../../lambda/events/event-errors.js';
import { deliveryGroupOf } from '../../../lambda/events/task-event-projector.js';
import {
  DEFAULT_SUBSCRIPTION_SETTINGS,
  WebhookSubscriptions,
  type SubscriptionParams,
  type WebhookSubscriptionSettings,
} from '../../../lambda/events/webhook-subscriptions.js';
import type { LookupFunction } from '../../../lambda/outbound/safe-fetch.js';
import { InMemoryTaskEventStore } from '../../../lambda/store/in-memory-task-event-store.js';
import { InMemoryWebhookSubscriptions } from '../../../lambda/store/in-memory-webhook-subscriptions.js';
import { ManualClock } from '../../contract/task-fixtures.js';
import { newWebhookSecret } from '../../contract/webhook-subscription-store-contract.js';
import { RecordingLogger } from '../../support/in-memory-backend.js';
import { isVerification, startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';

/** A fixed start, far from the real time: nothing here may depend on it. */
const START = Date.UTC(2030, 0, 1);
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
/** Loopback trusted (the local stack's policy), nothing listed: every new URL is verified by the handshake. */
const LOCAL: CallbackPolicy = { trustedOrigins: [], allowLoopbackHttp: true };

class RecordingQueue implements DeliveryQueue {
  readonly sends: WebhookDelivery[][] = [];

  async send(deliveries: readonly WebhookDelivery[]): Promise<void> {
    this.sends.push([...deliveries]);
  }
}

/** A resolver answering every name with `addresses` (or failing with ENOTFOUND), recording the names asked. */
function fakeDns(addresses: string[] | 'ENOTFOUND'): { lookup: LookupFunction; asked: string[] } {
  const asked: string[] = [];
  const lookup: LookupFunction = (hostname, _options, callback) => {
    asked.push(hostname);
    if (addresses === 'ENOTFOUND') {
      const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
      error.code = 'ENOTFOUND';
      return callback(error, '');
    }
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
  return { lookup, asked };
}

/** What a promise was rejected with; fails the test when it resolves. */
async function refusal(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  return expect.unreachable('expected a refusal');
}

function newEvent(owner: string, taskId: string, at: number): NewTaskEvent {
  return {
    owner,
    taskId,
    at,
    changes: [TaskEventChange.Status],
    task: { taskId, toolName: 'text_stats', status: TaskStatus.Working },
  };
}

describe('WebhookSubscriptions', () => {
  let receiver: WebhookReceiver;
  let run = 0;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });

  afterAll(async () => {
    await receiver.close();
  });

  let clock: ManualClock;
  let store: InMemoryWebhookSubscriptions;
  let events: InMemoryTaskEventStore;
  let queue: RecordingQueue;
  let logger: RecordingLogger;
  /** The tasks that exist, as `owner/taskId`; and every question asked about one. */
  let tasks: Set<string>;
  let asked: string[];

  beforeEach(() => {
    clock = new ManualClock(START);
    store = new InMemoryWebhookSubscriptions({ clock });
    events = new InMemoryTaskEventStore({ clock });
    queue = new RecordingQueue();
    logger = new RecordingLogger();
    tasks = new Set(['alice/t1', 'alice/t2', 'bob/t1', 'bob/t3']);
    asked = [];
  });

  function useCase(policy: CallbackPolicy = LOCAL, settings?: WebhookSubscriptionSettings): WebhookSubscriptions {
    const port: Clock = { now: () => clock.now(), sleep: async () => {} };
    return new WebhookSubscriptions({
      store,
      events,
      queue,
      policy,
      taskExists: async (owner, taskId) => {
        asked.push(`${owner}/${taskId}`);
        return tasks.has(`${owner}/${taskId}`);
      },
      clock: port,
      logger,
      ...(settings ? { settings } : {}),
    });
  }

  /** A fresh path on the receiver, and its URL. */
  function endpoint(label = 'hook'): { path: string; url: string } {
    run += 1;
    const path = `/${label}-${run}`;
    return { path, url: `${receiver.url}${path}` };
  }

  /** Params for a webhook subscription to `url`. */
  function params(url: string, extra: SubscriptionParams = {}, secret = newWebhookSecret()): SubscriptionParams {
    return { name: 'tasks.updated', arguments: {}, delivery: { mode: 'webhook', url, secret }, ...extra };
  }

  /** Nothing came of a refused request: no request reached `path`, nothing was stored or queued. */
  async function nothingDone(path: string, owner = 'alice'): Promise<void> {
    expect(receiver.on(path)).toEqual([]);
    expect(await store.listForOwner(owner)).toEqual([]);
    expect(queue.sends).toEqual([]);
  }

  describe('refusals, in the order they come', () => {
    it('answers an unknown event type NotFound before looking at anything else', async () => {
      const error = await refusal(
        useCase().subscribe('alice', { name: 'tasks.unknown', arguments: 7, delivery: 'x', cursor: 'x', ttlMs: -1 }),
      );
      expect(error).toBeInstanceOf(EventTypeNotFoundError);
      expect(await refusal(useCase().subscribe('alice', { delivery: 'x' }))).toBeInstanceOf(InvalidEventParamsError);
    });

    it('refuses a delivery that is no object', async () => {
      for (const delivery of [undefined, null, 'webhook', ['webhook']]) {
        const error = await refusal(useCase().subscribe('alice', { name: 'tasks.updated', delivery }));
        expect(error).toBeInstanceOf(InvalidEventParamsError);
        expect(error.message).toMatch(/params.delivery must be an object/);
      }
    });

    it('checks the delivery mode before the secret', async () => {
      const { path, url } = endpoint();
      const error = await refusal(
        useCase().subscribe('alice', { name: 'tasks.updated', delivery: { mode: 'push', url, secret: 'nope' } }),
      );
      expect(error).toBeInstanceOf(InvalidEventParamsError);
      expect(error.message).toMatch(/delivery.mode must be "webhook"/);
      await nothingDone(path);
    });

    it('checks the secret, present and well formed, before the URL', async () => {
      const missing = await refusal(
        useCase().subscribe('alice', { name: 'tasks.updated', delivery: { mode: 'webhook', url: 'ftp://x' } }),
      );
      expect(missing.message).toMatch(/delivery.secret is required/);
      for (const secret of ['whsec_c2hvcnQ=', 'not-a-secret', `whsec_${'A'.repeat(200)}`, 42]) {
        const error = await refusal(
          useCase().subscribe('alice', {
            name: 'tasks.updated',
            delivery: { mode: 'webhook', url: 'ftp://x', secret },
          }),
        );
        expect(error).toBeInstanceOf(InvalidEventParamsError);
        expect(error.message).toMatch(/must be a Standard Webhooks secret/);
      }
    });

    it('checks the URL before the arguments', async () => {
      const error = await refusal(
        useCase().subscribe('alice', params('http://hooks.example.com/mcp', { arguments: { bogus: 1 } })),
      );
      expect(error).toBeInstanceOf(InvalidEventParamsError);
      expect(error.message).toMatch(/https only/);
    });

    it('checks the arguments, then the cursor, before asking whether the task exists', async () => {
      const { path, url } = endpoint();
      const noTask = await refusal(useCase().subscribe('alice', params(url, { name: 'task.events', arguments: {} })));
      expect(noTask.message).toMatch(/needs arguments.taskId/);
      const badCursor = await refusal(
        useCase().subscribe('alice', params(url, { name: 'task.events', arguments: { taskId: 't9' }, cursor: '01' })),
      );
      expect(badCursor).toBeInstanceOf(InvalidEventParamsError);
      expect(badCursor.message).toMatch(/cursor/);
      expect(asked).toEqual([]);
      await nothingDone(path);
    });

    it("answers a task that is not the caller's NotFound, before contacting the endpoint", async () => {
      const { path, url } = endpoint();
      // t3 is bob's, t9 nobody's: said the same either way.
      for (const taskId of ['t3', 't9']) {
        const error = await refusal(
          useCase().subscribe('alice', params(url, { name: 'task.events', arguments: { taskId } })),
        );
        expect(error).toBeInstanceOf(EventTaskNotFoundError);
        expect(error).toMatchObject({ taskId });
      }
      expect(asked).toEqual(['alice/t3', 'alice/t9']);
      await nothingDone(path);
    });

    it('asks whether the task of a tasks.updated filter exists too', async () => {
      const { path, url } = endpoint();
      const error = await refusal(useCase().subscribe('alice', params(url, { arguments: { taskId: 'gone' } })));
      expect(error).toBeInstanceOf(EventTaskNotFoundError);
      await nothingDone(path);
    });

    it('refuses a new subscription past the limit, before contacting the endpoint; a refresh still goes', async () => {
      const subscriptions = useCase(LOCAL, { ...DEFAULT_SUBSCRIPTION_SETTINGS, maxPerOwner: 2 });
      const first = params(endpoint().url);
      await subscriptions.subscribe('alice', first);
      await subscriptions.subscribe('alice', params(endpoint().url));
      const { path, url } = endpoint();
      const error = await refusal(subscriptions.subscribe('alice', params(url)));
      expect(error).toBeInstanceOf(SubscriptionLimitError);
      expect(error).toMatchObject({ max: 2 });
      expect(receiver.on(path)).toEqual([]);
      expect(await store.listForOwner('alice')).toHaveLength(2);
      await subscriptions.subscribe('alice', first);
      await subscriptions.subscribe('bob', params(url));
      expect(await store.listForOwner('bob')).toHaveLength(1);
    });

    it('counts only live subscriptions against the limit', async () => {
      const subscriptions = useCase(LOCAL, { ...DEFAULT_SUBSCRIPTION_SETTINGS, maxPerOwner: 1 });
      await subscriptions.subscribe('alice', params(endpoint().url, { ttlMs: MINUTE_MS }));
      clock.advance(MINUTE_MS);
      await subscriptions.subscribe('alice', params(endpoint().url));
      expect(await store.listForOwner('alice')).toHaveLength(1);
    });

    it('refuses a URL whose host is a private address literal, or resolves to one, without connecting', async () => {
      const literal = await refusal(useCase().subscribe('alice', params('https://10.0.0.1/hook')));
      expect(literal).toBeInstanceOf(InvalidEventParamsError);
      expect(literal.message).toMatch(/private address/);
      const dns = fakeDns(['93.184.216.34', '169.254.169.254']);
      const resolved = await refusal(
        useCase({ trustedOrigins: [], lookup: dns.lookup }).subscribe('alice', params('https://hooks.example.com/h')),
      );
      expect(resolved).toBeInstanceOf(InvalidEventParamsError);
      expect(resolved.message).toMatch(/resolves to 169.254.169.254/);
      expect(dns.asked).toEqual(['hooks.example.com']);
      expect(await store.listForOwner('alice')).toEqual([]);
    });

    it.each<[string, unknown]>([
      ['-1', -1],
      ['0', 0],
      ['NaN', Number.NaN],
      ['Infinity', Number.POSITIVE_INFINITY],
      ['the string "3600000"', '3600000'],
      ['an object', {}],
    ])('refuses a ttlMs of %s, storing nothing', async (_what, ttlMs) => {
      const { url } = endpoint();
      const error = await refusal(useCase().subscribe('alice', params(url, { ttlMs })));
      expect(error).toBeInstanceOf(InvalidEventParamsError);
      expect(error.message).toMatch(/ttlMs/);
      expect(await store.listForOwner('alice')).toEqual([]);
    });

    it('refuses a bad ttlMs before sending anything to the endpoint', async () => {
      const { path, url } = endpoint();
      const error = await refusal(useCase().subscribe('alice', params(url, { ttlMs: -1 })));
      expect(error).toBeInstanceOf(InvalidEventParamsError);
      // A request refused for its own params must not have the server POST to a URL a stranger chose.
      expect(receiver.on(path)).toEqual([]);
    });
  });

  describe('the grant', () => {
    const granted = async (ttlMs?: unknown) => {
      const result = await useCase().subscribe('alice', params(endpoint().url, ttlMs === undefined ? {} : { ttlMs }));
      expect((await store.get('alice', result.id))?.refreshBefore).toBe(result.refreshBefore);
      return result.refreshBefore - START;
    };

    it('is a day when no TTL is suggested', async () => {
      expect(await granted()).toBe(DAY_MS);
    });

    it('is the suggestion within a minute and thirty days, in whole milliseconds', async () => {
      expect(await granted(HOUR_MS)).toBe(HOUR_MS);
      expect(await granted(90_000.7)).toBe(90_000);
    });

    it('raises a suggestion under a minute to a minute', async () => {
      expect(await granted(1)).toBe(MINUTE_MS);
    });

    it('lowers a suggestion over thirty days, and a request for none, to thirty days', async () => {
      expect(await granted(365 * DAY_MS)).toBe(30 * DAY_MS);
      expect(await granted(null)).toBe(30 * DAY_MS);
    });

    it('answers a new subscription with its ID, grant and no delivery status', async () => {
      const { url } = endpoint();
      const result = await useCase().subscribe('alice', params(url));
      expect(result).toEqual({
        id: subscriptionIdOf({ owner: 'alice', url, name: 'tasks.updated', arguments: {} }),
        refreshBefore: START + DAY_MS,
        cursor: null,
        truncated: false,
      });
    });
  });

  describe('a refresh (subscribing again with the same key)', () => {
    it('keeps the ID and createdAt, renews the grant and reports how delivery had been going', async () => {
      const subscriptions = useCase();
      const { path, url } = endpoint();
      const secret = newWebhookSecret();
      const first = await subscriptions.subscribe('alice', params(url, {}, secret));
      await store.recordDelivered('alice', first.id, START + 5);
      clock.advance(HOUR_MS);
      const again = await subscriptions.subscribe('alice', params(url, {}, secret));
      expect(again).toEqual({
        id: first.id,
        refreshBefore: START + HOUR_MS + DAY_MS,
        cursor: null,
        truncated: false,
        deliveryStatus: { active: true, failedEvents: 0, lastDeliveryAt: START + 5 },
      });
      const stored = await store.get('alice', first.id);
      expect(stored).toMatchObject({ createdAt: START, refreshBefore: START + HOUR_MS + DAY_MS, secret });
      expect(stored).not.toHaveProperty('previousSecret');
      expect(await store.listForOwner('alice')).toHaveLength(1);
      expect(receiver.on(path)).toHaveLength(1);
    });

    it('resumes a suspended subscription, reporting it suspended', async () => {
      const subscriptions = useCase();
      const { url } = endpoint();
      const secret = newWebhookSecret();
      const { id } = await subscriptions.subscribe('alice', params(url, {}, secret));
      const failure = { category: 'http_5xx', at: START + 1, suspendAfter: 1 } as const;
      expect(await store.recordAbandoned('alice', id, failure)).toMatchObject({ active: false });
      const again = await subscriptions.subscribe('alice', params(url, {}, secret));
      expect(again.deliveryStatus).toEqual({
        active: false,
        failedEvents: 1,
        lastError: 'http_5xx',
        failedSince: START + 1,
      });
      expect((await store.get('alice', id))?.delivery).toMatchObject({ active: true, failedEvents: 1 });
    });

    it('rotates to a new secret, still signing with the old one for the grace window', async () => {
      const subscriptions = useCase();
      const { url } = endpoint();
      const [a, b] = [newWebhookSecret(), newWebhookSecret()];
      const { id } = await subscriptions.subscribe('alice', params(url, {}, a));
      clock.advance(MINUTE_MS);
      await subscriptions.subscribe('alice', params(url, {}, b));
      const until = START + MINUTE_MS + DEFAULT_SUBSCRIPTION_SETTINGS.secretGraceMs;
      expect(await store.get('alice', id)).toMatchObject({ secret: b, previousSecret: a, previousSecretUntil: until });
      clock.advance(MINUTE_MS);
      await subscriptions.subscribe('alice', params(url, {}, b));
      expect(await store.get('alice', id)).toMatchObject({ secret: b, previousSecret: a, previousSecretUntil: until });
      clock.set(until);
      await subscriptions.subscribe('alice', params(url, {}, b));
      const settled = await store.get('alice', id);
      expect(settled?.secret).toBe(b);
      expect(settled).not.toHaveProperty('previousSecret');
      expect(settled).not.toHaveProperty('previousSecretUntil');
    });

    it('is a new subscription once the old one has lapsed', async () => {
      const subscriptions = useCase();
      const { url } = endpoint();
      await subscriptions.subscribe('alice', params(url, { ttlMs: MINUTE_MS }));
      clock.advance(MINUTE_MS);
      const again = await subscriptions.subscribe('alice', params(url));
      expect(again).not.toHaveProperty('deliveryStatus');
      expect((await store.get('alice', again.id))?.createdAt).toBe(START + MINUTE_MS);
    });
  });

  describe('verification', () => {
    it('takes an origin on the trusted list as verified, sending it nothing', async () => {
      const { path, url } = endpoint();
      const { id } = await useCase({ trustedOrigins: [receiver.origin] }).subscribe('alice', params(url));
      expect((await store.get('alice', id))?.verified).toBe(true);
      expect(receiver.on(path)).toEqual([]);
    });

    it('verifies a reachable endpoint that echoes the challenge, with one signed verification POST', async () => {
      const { path, url } = endpoint();
      const { id } = await useCase().subscribe('alice', params(url));
      expect((await store.get('alice', id))?.verified).toBe(true);
      const [challenge, ...rest] = receiver.on(path);
      expect(rest).toEqual([]);
      expect(challenge && isVerification(challenge)).toBe(true);
      expect(challenge?.headers['x-mcp-subscription-id']).toBe(id);
      expect(challenge?.headers['webhook-id']).toMatch(/^msg_verification_/);
    });

    it('refuses an endpoint that answers without the echo as challenge_failed, storing nothing', async () => {
      const { path, url } = endpoint();
      receiver.script(path, (_request, res) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"challenge":"not-it"}');
      });
      const error = await refusal(useCase().subscribe('alice', params(url)));
      expect(error).toBeInstanceOf(CallbackEndpointError);
      expect(error).toMatchObject({ category: 'challenge_failed' });
      expect(receiver.on(path)).toHaveLength(1);
      expect(await store.listForOwner('alice')).toEqual([]);
      expect(queue.sends).toEqual([]);
    });

    it('stores a subscription to a host that does not resolve yet unverified, without connecting', async () => {
      const dns = fakeDns('ENOTFOUND');
      const subscriptions = useCase({ trustedOrigins: [], lookup: dns.lookup });
      const { id } = await subscriptions.subscribe('alice', params('https://hooks.example.com/later'));
      expect((await store.get('alice', id))?.verified).toBe(false);
      // Asked once, by the address check: a connection would have asked again.
      expect(dns.asked).toEqual(['hooks.example.com']);
    });

    it("trusts the owner's verified URL for its next subscription, but not another owner's", async () => {
      const subscriptions = useCase();
      const { path, url } = endpoint();
      await subscriptions.subscribe('alice', params(url));
      expect(receiver.on(path)).toHaveLength(1);
      const second = await subscriptions.subscribe(
        'alice',
        params(url, { name: 'task.events', arguments: { taskId: 't1' } }),
      );
      expect((await store.get('alice', second.id))?.verified).toBe(true);
      expect(receiver.on(path)).toHaveLength(1);
      const bobs = await subscriptions.subscribe('bob', params(url));
      expect((await store.get('bob', bobs.id))?.verified).toBe(true);
      expect(receiver.on(path)).toHaveLength(2);
    });

    it('does not take an unverified subscription of the same URL as verification', async () => {
      const dns = fakeDns('ENOTFOUND');
      const subscriptions = useCase({ trustedOrigins: [], lookup: dns.lookup });
      const url = 'https://hooks.example.com/pending';
      await subscriptions.subscribe('alice', params(url));
      const second = await subscriptions.subscribe('alice', params(url, { arguments: { taskId: 't1' } }));
      expect((await store.get('alice', second.id))?.verified).toBe(false);
    });
  });

  describe('replay', () => {
    /** alice's task t1 with `count` events in its log. */
    async function logOf(count: number) {
      const appended = [];
      for (let seq = 1; seq <= count; seq += 1)
        appended.push(await events.append(newEvent('alice', 't1', START + seq), String(seq)));
      return appended;
    }

    const follow = (url: string, cursor: unknown, secret?: string) =>
      params(url, { name: 'task.events', arguments: { taskId: 't1' }, cursor }, secret);

    it('queues the stored events after cursor "0" to a new task.events subscription, in order', async () => {
      const stored = await logOf(3);
      const { url } = endpoint();
      const result = await useCase().subscribe('alice', follow(url, '0'));
      expect(result.cursor).toBe('0');
      expect(queue.sends).toHaveLength(1);
      expect(queue.sends[0]).toEqual(
        stored.map((event) => ({
          owner: 'alice',
          subscriptionId: result.id,
          webhookId: `evt_t1_${event.seq}`,
          groupKey: deliveryGroupOf(result.id, 't1'),
          body: JSON.stringify(occurrenceOf('task.events', event)),
        })),
      );
    });

    it('queues only the events after a later cursor', async () => {
      await logOf(3);
      const result = await useCase().subscribe('alice', follow(endpoint().url, '2'));
      expect(result.cursor).toBe('2');
      expect(queue.sends.flat().map((each) => each.webhookId)).toEqual(['evt_t1_3']);
    });

    it('queues nothing from now (no cursor) or from the newest event, answering the newest position', async () => {
      await logOf(3);
      expect((await useCase().subscribe('alice', follow(endpoint().url, null))).cursor).toBe('3');
      expect((await useCase().subscribe('alice', follow(endpoint().url, '3'))).cursor).toBe('3');
      expect((await useCase().subscribe('alice', follow(endpoint().url, '9'))).cursor).toBe('3');
      expect(queue.sends).toEqual([]);
    });

    it('replays nothing on a refresh, whatever cursor it carries', async () => {
      await logOf(2);
      const subscriptions = useCase();
      const { url } = endpoint();
      const secret = newWebhookSecret();
      await subscriptions.subscribe('alice', follow(url, null, secret));
      const again = await subscriptions.subscribe('alice', follow(url, '0', secret));
      expect(again.cursor).toBe('2');
      expect(queue.sends).toEqual([]);
    });

    it('has no replay and no cursor for tasks.updated', async () => {
      await logOf(2);
      const result = await useCase().subscribe(
        'alice',
        params(endpoint().url, { arguments: { taskId: 't1' }, cursor: '0' }),
      );
      expect(result.cursor).toBeNull();
      expect(queue.sends).toEqual([]);
    });
  });

  describe('unsubscribe', () => {
    const key = (url: string, extra: SubscriptionParams = {}): SubscriptionParams => ({
      name: 'task.events',
      arguments: { taskId: 't1' },
      delivery: { mode: 'webhook', url },
      ...extra,
    });

    it('removes the subscription named by its key, without needing the secret', async () => {
      const subscriptions = useCase();
      const { url } = endpoint();
      const kept = await subscriptions.subscribe('alice', params(url));
      const { id } = await subscriptions.subscribe(
        'alice',
        params(url, { name: 'task.events', arguments: { taskId: 't1' } }),
      );
      await subscriptions.unsubscribe('alice', key(url));
      expect(await store.get('alice', id)).toBeNull();
      expect(await store.get('alice', kept.id)).not.toBeNull();
    });

    it('answers an unknown key, or a key already removed, SubscriptionNotFound', async () => {
      const subscriptions = useCase();
      const { url } = endpoint();
      await subscriptions.subscribe('alice', params(url, { name: 'task.events', arguments: { taskId: 't1' } }));
      expect(
        await refusal(subscriptions.unsubscribe('alice', key(url, { arguments: { taskId: 't2' } }))),
      ).toBeInstanceOf(SubscriptionNotFoundError);
      await subscriptions.unsubscribe('alice', key(url));
      expect(await refusal(subscriptions.unsubscribe('alice', key(url)))).toBeInstanceOf(SubscriptionNotFoundError);
    });

    it("answers another owner's subscription NotFound, leaving it", async () => {
      const subscriptions = useCase();
      const { url } = endpoint();
      const { id } = await subscriptions.subscribe(
        'alice',
        params(url, { name: 'task.events', arguments: { taskId: 't1' } }),
      );
      expect(await refusal(subscriptions.unsubscribe('bob', key(url)))).toBeInstanceOf(SubscriptionNotFoundError);
      expect(await store.get('alice', id)).not.toBeNull();
    });

    it('checks the name, URL and arguments as subscribe does', async () => {
      const subscriptions = useCase();
      expect(await refusal(subscriptions.unsubscribe('alice', key('https://x', { name: 'nope' })))).toBeInstanceOf(
        EventTypeNotFoundError,
      );
      expect((await refusal(subscriptions.unsubscribe('alice', key('ftp://x')))).message).toMatch(/https only/);
      const noTask = await refusal(subscriptions.unsubscribe('alice', key(endpoint().url, { arguments: {} })));
      expect(noTask.message).toMatch(/needs arguments.taskId/);
    });
  });

  describe('forTask', () => {
    it("lists the owner's live subscriptions that follow the task, tasks.updated without a task included", async () => {
      const subscriptions = useCase();
      const url = endpoint().url;
      const all = await subscriptions.subscribe('alice', params(url));
      const updates = await subscriptions.subscribe('alice', params(url, { arguments: { taskId: 't1' } }));
      const log = await subscriptions.subscribe(
        'alice',
        params(url, { name: 'task.events', arguments: { taskId: 't1' } }),
      );
      await subscriptions.subscribe('alice', params(url, { name: 'task.events', arguments: { taskId: 't2' } }));
      await subscriptions.subscribe('alice', params(endpoint().url, { arguments: { taskId: 't1' }, ttlMs: MINUTE_MS }));
      await subscriptions.subscribe('bob', params(url, { name: 'task.events', arguments: { taskId: 't1' } }));
      clock.advance(MINUTE_MS);
      const listed = await subscriptions.forTask('alice', 't1');
      expect(listed.map((each) => each.id).sort()).toEqual([all.id, updates.id, log.id].sort());
      expect(listed.find((each) => each.id === log.id)).toEqual({
        id: log.id,
        name: 'task.events',
        delivery: { active: true, failedEvents: 0 },
      });
      expect(await subscriptions.forTask('carol', 't1')).toEqual([]);
    });
  });
});
