// What the conformance suite's unreleased `events-webhook` scenario checks (webhook subscription management:
// events/subscribe, TTL negotiation, events/unsubscribe), written as our own tests against a real server. Its callback
// URLs are on `conformance.invalid`, a name that never resolves: such a subscription is accepted unverified (nothing is
// sent to it until its endpoint answers the handshake), as the scenario needs. Unlike the scenario, which holds one
// principal, these tests hold two, so the principal's part of the subscription key is tested too.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LookupFunction } from '../../lambda/outbound/safe-fetch.js';
import { startTestServer, TOKENS, type TestServer } from '../support/local-backend.js';
import { createTask, rpc, type RpcAnswer } from '../support/events-rpc.js';

const CALLBACK_BASE = 'https://conformance.invalid/mcp-events';
const HOUR_MS = 3_600_000;
const NAME = 'tasks.updated';

/** `.invalid` never resolves (RFC 6761); answered at once, so no test waits on a resolver. */
const noSuchHost: LookupFunction = (hostname, _options, callback) => {
  const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
  error.code = 'ENOTFOUND';
  callback(error, '');
};

const freshSecret = (bytes = 32): string => `whsec_${randomBytes(bytes).toString('base64')}`;

interface Granted {
  id: string;
  refreshBefore: string | null;
  cursor: string | null;
  truncated: boolean;
  resultType: string;
  deliveryStatus?: { active: boolean; lastError: string | null };
}

describe('events-webhook: webhook subscription management', () => {
  let server: TestServer;
  let run = 0;

  beforeAll(async () => {
    server = await startTestServer({}, { events: { lookup: noSuchHost } });
  });

  afterAll(async () => {
    await server.close();
  });

  const url = (suffix = ''): string => `${CALLBACK_BASE}/${Date.now()}-${run++}${suffix}`;
  const subscribe = (params: Record<string, unknown>, token?: string): Promise<RpcAnswer<Granted>> =>
    rpc<Granted>(server.url, 'events/subscribe', { name: NAME, arguments: {}, cursor: null, ...params }, token);
  const unsubscribe = (params: Record<string, unknown>, token?: string) =>
    rpc(server.url, 'events/unsubscribe', { name: NAME, arguments: {}, ...params }, token);
  const granted = async (answer: Promise<RpcAnswer<Granted>>): Promise<Granted> => {
    const settled = await answer;
    if ('error' in settled) throw new Error(`${settled.error.code} ${settled.error.message}`);
    return settled.result;
  };

  it('sep-9999-subscribe-webhook-only, -response-cursor, -response-truncated, -id-derived: a webhook subscribe is granted', async () => {
    const result = await granted(
      subscribe({ delivery: { mode: 'webhook', url: url(), secret: freshSecret() }, ttlMs: HOUR_MS }),
    );
    expect(result.resultType).toBe('complete');
    expect(result.id).toMatch(/^sub_[0-9a-f]{32}$/);
    expect(result.cursor).toBeNull(); // tasks.updated has no replay
    expect(result.truncated).toBe(false);
  });

  it('sep-9999-ttl-null-only-when-requested, -refresh-before-lte-suggestion: the grant is finite and within the suggestion', async () => {
    const before = Date.now();
    const result = await granted(
      subscribe({ delivery: { mode: 'webhook', url: url(), secret: freshSecret() }, ttlMs: HOUR_MS }),
    );
    const grant = Date.parse(result.refreshBefore!);
    expect(grant).toBeGreaterThan(before);
    expect(grant).toBeLessThanOrEqual(Date.now() + HOUR_MS);
  });

  it('sep-9999-ttl-omitted-means-default: no suggestion gets the default grant (a day)', async () => {
    const before = Date.now();
    const result = await granted(subscribe({ delivery: { mode: 'webhook', url: url(), secret: freshSecret() } }));
    expect(Date.parse(result.refreshBefore!)).toBeGreaterThanOrEqual(before + 24 * HOUR_MS);
  });

  it('sep-9999-ttl-no-rejection-path: a very short or very long suggestion is clamped, not refused', async () => {
    const before = Date.now();
    const short = await granted(
      subscribe({ delivery: { mode: 'webhook', url: url('-short'), secret: freshSecret() }, ttlMs: 1000 }),
    );
    expect(Date.parse(short.refreshBefore!)).toBeGreaterThanOrEqual(before + 60_000);
    const long = await granted(
      subscribe({ delivery: { mode: 'webhook', url: url('-long'), secret: freshSecret() }, ttlMs: 2_592_000_000 * 2 }),
    );
    expect(Date.parse(long.refreshBefore!)).toBeLessThanOrEqual(Date.now() + 2_592_000_000);
    // No expiry is asked for; a finite grant (the longest) answers it, never null.
    const none = await granted(
      subscribe({ delivery: { mode: 'webhook', url: url('-forever'), secret: freshSecret() }, ttlMs: null }),
    );
    expect(none.refreshBefore).not.toBeNull();
  });

  it.each([
    ['sep-9999-subscribe-secret-required', { mode: 'webhook', url: `${CALLBACK_BASE}/no-secret` }],
    [
      'sep-9999-subscribe-secret-format',
      { mode: 'webhook', url: `${CALLBACK_BASE}/bad-prefix`, secret: 'not-a-standard-webhooks-secret' },
    ],
    [
      'sep-9999-subscribe-secret-rejected',
      { mode: 'webhook', url: `${CALLBACK_BASE}/short-secret`, secret: freshSecret(8) },
    ],
    [
      'sep-9999-subscribe-url-non-https-rejected',
      { mode: 'webhook', url: 'http://conformance.invalid/insecure', secret: freshSecret() },
    ],
    ['a delivery mode other than webhook', { mode: 'push', url: `${CALLBACK_BASE}/push`, secret: freshSecret() }],
  ])('%s: refused with -32602 and a reason', async (_check, delivery) => {
    const answer = await subscribe({ delivery });
    expect('error' in answer && answer.error.code).toBe(-32602);
    if ('error' in answer) expect(answer.error.message).toMatch(/secret|https|webhook/);
  });

  it('sep-9999-subscribe-idempotent-upsert, -refresh-replaces-secret: the same key again refreshes in place', async () => {
    const callback = url();
    const first = await granted(
      subscribe({ delivery: { mode: 'webhook', url: callback, secret: freshSecret() }, ttlMs: HOUR_MS }),
    );
    const again = await granted(
      subscribe({ delivery: { mode: 'webhook', url: callback, secret: freshSecret() }, ttlMs: HOUR_MS }),
    );
    expect(again.id).toBe(first.id);
    // A refresh says how delivery has been going.
    expect(again.deliveryStatus).toMatchObject({ active: true, lastError: null });
    expect(first.deliveryStatus).toBeUndefined();
  });

  it('sep-9999-subscribe-key-composition, -key-immutable, -cross-tenant-isolation: each part of the key makes another subscription', async () => {
    const callback = url();
    const delivery = { mode: 'webhook', url: callback, secret: freshSecret() };
    const base = await granted(subscribe({ delivery }));
    const otherUrl = await granted(subscribe({ delivery: { ...delivery, url: `${callback}-other` } }));
    const taskId = await createTask(server.url, 'text_stats', { text: 'a' });
    const otherArguments = await granted(subscribe({ delivery, arguments: { taskId } }));
    const otherName = await granted(subscribe({ delivery, name: 'task.events', arguments: { taskId } }));
    const otherPrincipal = await granted(subscribe({ delivery }, TOKENS.bob));
    const ids = [base, otherUrl, otherArguments, otherName, otherPrincipal].map((each) => each.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('sep-9999-subscribe-id-not-an-input: an id in the params addresses nothing', async () => {
    const first = await granted(subscribe({ delivery: { mode: 'webhook', url: url(), secret: freshSecret() } }));
    const byId = await subscribe({
      id: first.id,
      delivery: { mode: 'webhook', url: url('-by-id'), secret: freshSecret() },
    });
    if ('result' in byId) expect(byId.result.id).not.toBe(first.id);
  });

  it('sep-9999-unsubscribe-by-key, -unknown-not-found: unsubscribe by key, then the key is unknown', async () => {
    const callback = url();
    await granted(subscribe({ delivery: { mode: 'webhook', url: callback, secret: freshSecret() } }));
    const removed = await unsubscribe({ delivery: { mode: 'webhook', url: callback } });
    expect(removed).toEqual({ result: { resultType: 'complete' } });
    const again = await unsubscribe({ delivery: { mode: 'webhook', url: callback } });
    expect(again).toEqual({
      error: {
        code: -32011,
        message: expect.stringMatching(/No webhook subscription/),
        data: { kind: 'subscription' },
      },
    });
  });

  it('another principal cannot unsubscribe, refresh or learn of a subscription', async () => {
    const callback = url();
    const alices = await granted(subscribe({ delivery: { mode: 'webhook', url: callback, secret: freshSecret() } }));
    expect(await unsubscribe({ delivery: { mode: 'webhook', url: callback } }, TOKENS.bob)).toMatchObject({
      error: { code: -32011 },
    });
    // Alice's is still there: subscribing again is a refresh (it reports a delivery status).
    const refreshed = await granted(subscribe({ delivery: { mode: 'webhook', url: callback, secret: freshSecret() } }));
    expect(refreshed.id).toBe(alices.id);
    expect(refreshed.deliveryStatus).toBeDefined();
  });

  it('refuses a subscription to another principal’s task as NotFound, and one to an unknown event type', async () => {
    const bobs = await createTask(server.url, 'text_stats', { text: 'b' }, TOKENS.bob);
    const delivery = { mode: 'webhook', url: url(), secret: freshSecret() };
    expect(await subscribe({ delivery, arguments: { taskId: bobs } })).toMatchObject({
      error: { code: -32011, data: { kind: 'task' } },
    });
    expect(await subscribe({ delivery, name: 'no.such.type' })).toMatchObject({
      error: { code: -32011, data: { kind: 'event' } },
    });
  });

  it('holds at most 20 live subscriptions per principal: the next is ResourceExhausted', async () => {
    const carol = 'token-carol';
    const limited = await startTestServer(
      {},
      {
        events: { lookup: noSuchHost },
        resolveOwner: (request) => (request.headers.get('authorization') === `Bearer ${carol}` ? 'carol' : null),
      },
    );
    try {
      for (let index = 0; index < 20; index++) {
        const answer = await rpc(
          limited.url,
          'events/subscribe',
          { name: NAME, arguments: {}, delivery: { mode: 'webhook', url: url(`-${index}`), secret: freshSecret() } },
          carol,
        );
        expect('result' in answer).toBe(true);
      }
      const over = await rpc(
        limited.url,
        'events/subscribe',
        { name: NAME, arguments: {}, delivery: { mode: 'webhook', url: url('-21'), secret: freshSecret() } },
        carol,
      );
      expect(over).toMatchObject({ error: { code: -32013, data: { limit: 'subscriptions', max: 20 } } });
    } finally {
      await limited.close();
    }
  });

  it('answers Unsupported when webhooks are turned off, and keeps the event log', async () => {
    const off = await startTestServer({}, { events: { webhooks: false } });
    try {
      const answer = await rpc(off.url, 'events/subscribe', {
        name: NAME,
        arguments: {},
        delivery: { mode: 'webhook', url: url(), secret: freshSecret() },
      });
      expect(answer).toMatchObject({ error: { code: -32014, data: { feature: 'deliveryMode', value: 'webhook' } } });
    } finally {
      await off.close();
    }
  });
});
