// What the conformance suite's unreleased `events-webhook-delivery` scenario checks (what the server POSTs to a
// webhook: the verification handshake, Standard Webhooks signing, retries, control envelopes, the SSRF rules), written
// as our own tests against a real server and a real receiver on loopback. The scenario lifts the server's guard for
// its loopback receiver after grading the SSRF rows; here one server keeps the guard (the SSRF rows) and another is
// the local stack's, which lets loopback through but still asks for the handshake.
import { createHmac } from 'node:crypto';
import { randomBytes } from 'node:crypto';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createWebhookVerifier } from '../../lambda/events/webhook-verifier.js';
import type { LookupFunction } from '../../lambda/outbound/safe-fetch.js';
import { call, createTask, rpc, type RpcAnswer } from '../support/events-rpc.js';
import { modernRequest, postModern } from '../support/modern-client.js';
import { GENEROUS_WAIT, startTestServer, TOKENS, type TestServer } from '../support/local-backend.js';
import {
  answering,
  failing,
  isVerification,
  startWebhookReceiver,
  type ReceivedRequest,
  type WebhookReceiver,
} from '../support/webhook-receiver.js';

const HOUR_MS = 3_600_000;
const EVENTS_EXTENSION = 'io.modelcontextprotocol/events';
const SECRET_BYTES = randomBytes(32);
const SECRET = `whsec_${SECRET_BYTES.toString('base64')}`;

/** `internal.example` resolves to a private address, as a name an attacker points at the server's network would. */
const internalNames: LookupFunction = (hostname, _options, callback) => {
  if (hostname === 'internal.example') return callback(null, [{ address: '10.0.0.7', family: 4 }]);
  const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
  error.code = 'ENOTFOUND';
  callback(error, '');
};

interface Granted {
  id: string;
  refreshBefore: string;
}

/** `v1,` + base64 HMAC-SHA256 over `id.timestamp.body`, keyed with the decoded secret (not the `whsec_` text). */
function expectedSignature(request: ReceivedRequest): string {
  const mac = createHmac('sha256', SECRET_BYTES)
    .update(`${request.headers['webhook-id']}.${request.headers['webhook-timestamp']}.${request.rawBody}`)
    .digest('base64');
  return `v1,${mac}`;
}

const eventsOf = (requests: readonly ReceivedRequest[]) => requests.filter((request) => !isVerification(request));

describe('events-webhook-delivery: what the server POSTs to a webhook', () => {
  let guarded: TestServer;
  let local: TestServer;
  let receiver: WebhookReceiver;
  let path = 0;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    [guarded, local] = await Promise.all([
      startTestServer({}, { events: { lookup: internalNames } }),
      startTestServer({}, { events: { allowLoopbackHttp: true } }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([guarded.close(), local.close(), receiver.close()]);
  });

  const nextPath = (name: string): string => `/${name}-${path++}`;
  const subscribe = (
    server: TestServer,
    url: string,
    extra: Record<string, unknown> = {},
    token?: string,
  ): Promise<RpcAnswer<Granted>> =>
    rpc<Granted>(
      server.url,
      'events/subscribe',
      {
        name: 'tasks.updated',
        arguments: {},
        delivery: { mode: 'webhook', url, secret: SECRET },
        cursor: null,
        ttlMs: HOUR_MS,
        ...extra,
      },
      token,
    );
  const granted = async (answer: Promise<RpcAnswer<Granted>>): Promise<Granted> => {
    const settled = await answer;
    if ('error' in settled) throw new Error(`${settled.error.code} ${settled.error.message}`);
    return settled.result;
  };
  /** The task's events as the receiver got them at `where` once its last one (completed) arrived. */
  async function deliveredUntilDone(where: string, taskId: string): Promise<ReceivedRequest[]> {
    await vi.waitUntil(
      () =>
        eventsOf(receiver.on(where)).some(
          (request) =>
            (request.json?.['data'] as { taskId?: string; task?: { status?: string } } | undefined)?.task?.status ===
              'completed' && (request.json?.['data'] as { taskId?: string }).taskId === taskId,
        ),
      GENEROUS_WAIT,
    );
    return eventsOf(receiver.on(where));
  }

  describe('the SSRF rules (a server as deployed)', () => {
    it('sep-9999-ssrf-reject-non-routable: a loopback callback is refused at subscription time, with no connection', async () => {
      let connections = 0;
      const canary: TcpServer = createTcpServer((socket) => {
        connections++;
        socket.destroy();
      });
      await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
      try {
        const port = (canary.address() as AddressInfo).port;
        const answer = await subscribe(guarded, `https://127.0.0.1:${port}/ssrf-probe`);
        expect(answer).toMatchObject({ error: { code: -32602, message: expect.stringMatching(/loopback/) } });
        expect(connections).toBe(0);
      } finally {
        canary.close();
      }
    });

    it.each([
      ['the cloud metadata address', 'https://169.254.169.254/latest/meta-data', /link-local/],
      ['a private address', 'https://10.1.2.3/hook', /private/],
      ['a name that resolves to a private address', 'https://internal.example/hook', /10\.0\.0\.7/],
      ['an IPv6 unique-local address', 'https://[fd00::1]/hook', /unique-local/],
    ])('refuses %s with -32602, naming why', async (_case, url, reason) => {
      expect(await subscribe(guarded, url)).toMatchObject({
        error: { code: -32602, message: expect.stringMatching(reason) },
      });
    });

    it('sep-9999-ssrf-validate-callback-url: an http receiver on loopback is refused and never hears from the server', async () => {
      const where = nextPath('guarded');
      expect(await subscribe(guarded, `${receiver.url}${where}`)).toMatchObject({ error: { code: -32602 } });
      expect(receiver.on(where)).toEqual([]);
    });
  });

  describe('verification, signing and delivery (the local stack: loopback allowed, handshake still asked)', () => {
    it('sep-9999-verification-required-before-delivery, -challenge-echo: the handshake comes first, signed like a delivery', async () => {
      const where = nextPath('wk/hook');
      const { id } = await granted(subscribe(local, `${receiver.url}${where}`));
      // Answered inside events/subscribe: the challenge is there before the subscribe returned.
      const [verification] = receiver.on(where);
      expect(verification?.json).toEqual({ type: 'verification', challenge: expect.stringMatching(/^[0-9a-f]{32}$/) });
      expect(verification!.method).toBe('POST');
      expect(verification!.headers['content-type']).toContain('application/json');
      expect(verification!.headers['x-mcp-subscription-id']).toBe(id);
      expect(verification!.headers['webhook-id']).toMatch(/^msg_verification_.+/);
      expect(verification!.headers['webhook-signature']).toBe(expectedSignature(verification!));

      const taskId = await createTask(local.url, 'text_stats', { text: 'one two' });
      const events = await deliveredUntilDone(where, taskId);
      expect(events[0]!.atMs).toBeGreaterThanOrEqual(verification!.atMs);
    });

    it('sep-9999-delivery-post-json, -standard-webhooks-headers, -subscription-id-header, -signature-formula: every event is signed over its raw body', async () => {
      const where = nextPath('signed');
      const { id } = await granted(subscribe(local, `${receiver.url}${where}`));
      const taskId = await createTask(local.url, 'text_stats', { text: 'a b c' });
      const events = await deliveredUntilDone(where, taskId);
      const verifier = createWebhookVerifier({ secret: SECRET });
      for (const request of events) {
        expect(request.method).toBe('POST');
        expect(request.headers['content-type']).toContain('application/json');
        expect(request.headers['x-mcp-subscription-id']).toBe(id);
        expect(request.headers['webhook-signature']).toBe(expectedSignature(request));
        // The webhook ID of an event is its eventId: a receiver dedupes on either.
        expect(request.headers['webhook-id']).toBe(request.json?.['eventId']);
        expect(Buffer.byteLength(request.rawBody)).toBeLessThanOrEqual(256 * 1024);
        // The documented verify helper accepts each one.
        expect(verifier.verify(request.rawBody, request.headers as Record<string, string>)).toEqual(request.json);
      }
      const seqs = events.map((request) => (request.json?.['data'] as { seq: number }).seq);
      expect(seqs).toEqual(seqs.map((_, index) => index + 1));
    });

    it('the verify helper refuses a forged, a late and a replayed delivery', async () => {
      const where = nextPath('refusals');
      await granted(subscribe(local, `${receiver.url}${where}`));
      const taskId = await createTask(local.url, 'text_stats', { text: 'x' });
      const [first] = await deliveredUntilDone(where, taskId);
      const headers = first!.headers as Record<string, string>;
      const verifier = createWebhookVerifier({ secret: SECRET });
      verifier.verify(first!.rawBody, headers);
      expect(() => verifier.verify(first!.rawBody, headers)).toThrow(expect.objectContaining({ reason: 'replayed' }));
      expect(() => createWebhookVerifier({ secret: SECRET }).verify(`${first!.rawBody} `, headers)).toThrow(
        expect.objectContaining({ reason: 'bad-signature' }),
      );
      const late = createWebhookVerifier({
        secret: SECRET,
        now: () => (Number(headers['webhook-timestamp']) + 301) * 1000,
      });
      expect(() => late.verify(first!.rawBody, headers)).toThrow(
        expect.objectContaining({ reason: 'stale-timestamp' }),
      );
    });

    it('sep-9999-verification-failure-error, -no-raw-endpoint-responses: a wrong echo fails the subscribe with -32015 challenge_failed', async () => {
      const where = nextPath('wrong-challenge');
      receiver.script(where, (_request, res) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"challenge":"not-the-nonce"}');
      });
      const answer = await subscribe(local, `${receiver.url}${where}`);
      expect(answer).toMatchObject({ error: { code: -32015, data: { reason: 'challenge_failed' } } });
      expect(JSON.stringify(answer)).not.toContain('not-the-nonce');
      const refused = nextPath('refuses-challenge');
      receiver.script(refused, (_request, res) => void res.writeHead(403).end('go away'));
      expect(await subscribe(local, `${receiver.url}${refused}`)).toMatchObject({
        error: { code: -32015, data: { reason: 'challenge_failed' } },
      });
    });

    it('sep-9999-ssrf-no-redirects: a redirect is a failed attempt, never followed', async () => {
      const where = nextPath('redirect');
      const target = nextPath('redirect-target');
      receiver.script(where, answering(302, { location: `${receiver.url}${target}` }));
      await granted(subscribe(local, `${receiver.url}${where}`));
      await createTask(local.url, 'text_stats', { text: 'x' });
      await vi.waitUntil(() => eventsOf(receiver.on(where)).length >= 2, GENEROUS_WAIT);
      expect(receiver.on(target)).toEqual([]);
    });

    it('sep-9999-delivery-retry-regenerates-signature, -retries-bounded: a retry keeps its webhook-id, with a new timestamp and signature', async () => {
      const where = nextPath('flaky');
      receiver.script(where, failing(2));
      await granted(subscribe(local, `${receiver.url}${where}`));
      const taskId = await createTask(local.url, 'text_stats', { text: 'x' });
      await deliveredUntilDone(where, taskId);
      const first = eventsOf(receiver.on(where)).filter(
        (request) => request.headers['webhook-id'] === `evt_${taskId}_1`,
      );
      expect(first).toHaveLength(3);
      const stamps = first.map((request) => request.headers['webhook-timestamp']);
      expect(new Set(stamps).size).toBe(3);
      for (const request of first) expect(request.headers['webhook-signature']).toBe(expectedSignature(request));
      for (let index = 1; index < first.length; index++)
        expect(first[index]!.atMs - first[index - 1]!.atMs).toBeGreaterThanOrEqual(1_000);
    });

    it.each([410, 413])('sep-9999-delivery-%s-non-retryable: answered once, never again', async (status) => {
      const where = nextPath(`final-${status}`);
      receiver.script(where, answering(status));
      await granted(subscribe(local, `${receiver.url}${where}`));
      const taskId = await createTask(local.url, 'text_stats', { text: 'x' });
      await vi.waitUntil(
        () => eventsOf(receiver.on(where)).some((request) => request.headers['webhook-id'] === `evt_${taskId}_2`),
        GENEROUS_WAIT,
      );
      await local.events!.settled();
      const ids = eventsOf(receiver.on(where)).map((request) => request.headers['webhook-id']);
      expect(ids.length).toBe(new Set(ids).size);
    });

    it('a receiver that is down for its first three tries still gets every event once, in order', async () => {
      const where = nextPath('down');
      receiver.script(where, failing(3));
      await granted(subscribe(local, `${receiver.url}${where}`));
      const taskId = await createTask(local.url, 'analyze_documents', { documents: ['one', 'two'], reviewSeconds: 1 });
      await deliveredUntilDone(where, taskId);
      await local.events!.settled();
      const accepted = eventsOf(receiver.on(where)).slice(3);
      const seqs = accepted.map((request) => (request.json?.['data'] as { seq: number }).seq);
      expect(seqs).toEqual(seqs.map((_, index) => index + 1));
      const events = await rpc<{ events: unknown[] }>(local.url, 'events/poll', {
        name: 'task.events',
        arguments: { taskId },
        cursor: '0',
      });
      expect('result' in events && events.result.events.length).toBe(seqs.length);
    });

    it('replays a finished task’s log to a new task.events subscription with cursor "0"', async () => {
      const taskId = await createTask(local.url, 'text_stats', { text: 'replay me' });
      await vi.waitUntil(async () => {
        const answer = await rpc<{ events: Array<{ data: { task: { status: string } } }> }>(local.url, 'events/poll', {
          name: 'task.events',
          arguments: { taskId },
          cursor: '0',
        });
        return 'result' in answer && answer.result.events.some((event) => event.data.task.status === 'completed');
      }, GENEROUS_WAIT);
      const where = nextPath('replay');
      const { id } = await granted(
        subscribe(local, `${receiver.url}${where}`, { name: 'task.events', arguments: { taskId }, cursor: '0' }),
      );
      await vi.waitUntil(() => eventsOf(receiver.on(where)).length >= 2, GENEROUS_WAIT);
      const replayed = eventsOf(receiver.on(where));
      expect(replayed.map((request) => request.json?.['cursor'])).toEqual(
        replayed.map((_, index) => String(index + 1)),
      );
      expect(replayed.every((request) => request.headers['x-mcp-subscription-id'] === id)).toBe(true);
    });

    it('attaches a webhook to a task as tools/call creates it (2025-11-25): it gets every event from the first', async () => {
      const where = nextPath('at-creation');
      const created = await call<{ task: { taskId: string }; _meta: Record<string, { subscription?: Granted }> }>(
        local.url,
        'tools/call',
        {
          name: 'text_stats',
          arguments: { text: 'attached' },
          task: { ttl: 600_000 },
          _meta: {
            [EVENTS_EXTENSION]: { delivery: { mode: 'webhook', url: `${receiver.url}${where}`, secret: SECRET } },
          },
        },
      );
      const { taskId } = created.task;
      const subscription = created._meta[EVENTS_EXTENSION]!.subscription!;
      expect(subscription.id).toMatch(/^sub_/);
      const events = await deliveredUntilDone(where, taskId);
      const seqs = events.map((request) => (request.json?.['data'] as { seq: number }).seq);
      expect(seqs).toEqual(seqs.map((_, index) => index + 1));
      expect(events.every((request) => request.headers['x-mcp-subscription-id'] === subscription.id)).toBe(true);
    });

    it('attaches a webhook as a Tasks-extension call creates its task (2026-07-28)', async () => {
      const where = nextPath('at-creation-modern');
      const response = await postModern(
        local.url,
        modernRequest('tools/call', {
          name: 'text_stats',
          arguments: { text: 'modern' },
          _meta: {
            [EVENTS_EXTENSION]: { delivery: { mode: 'webhook', url: `${receiver.url}${where}`, secret: SECRET } },
          },
        }),
      );
      // The Tasks extension's CreateTaskResult is the task itself (resultType "task").
      const body = (await response.json()) as {
        result: { resultType: string; taskId: string; _meta: Record<string, { subscription?: Granted }> };
      };
      expect(body.result.resultType).toBe('task');
      expect(body.result._meta[EVENTS_EXTENSION]!.subscription!.id).toMatch(/^sub_/);
      await deliveredUntilDone(where, body.result.taskId);
    });

    it('refuses a tools/call whose webhook is refused, and starts nothing', async () => {
      const listed = async () => (await call<{ tasks: unknown[] }>(local.url, 'tasks/list', {})).tasks.length;
      const before = await listed();
      const answer = await rpc(local.url, 'tools/call', {
        name: 'text_stats',
        arguments: { text: 'never' },
        task: { ttl: 600_000 },
        _meta: {
          [EVENTS_EXTENSION]: { delivery: { mode: 'webhook', url: `${receiver.url}/x`, secret: 'whsec_short' } },
        },
      });
      expect(answer).toMatchObject({ error: { code: -32602, message: expect.stringMatching(/secret/) } });
      expect(await listed()).toBe(before);
    });

    it('sep-9999-envelope-terminated, -envelope-webhook-id-format: a subscription to a task that is deleted ends with a signed terminated envelope', async () => {
      // Still working when deleted: a subscription that had its task's terminal event would be gone already.
      const taskId = await createTask(local.url, 'analyze_documents', {
        documents: ['short-lived'],
        reviewSeconds: 60,
      });
      const where = nextPath('terminated');
      await granted(subscribe(local, `${receiver.url}${where}`, { name: 'task.events', arguments: { taskId } }));
      await local.backend.service.deleteTask('alice', taskId);
      await vi.waitUntil(
        () => receiver.on(where).some((request) => request.json?.['type'] === 'terminated'),
        GENEROUS_WAIT,
      );
      const envelope = receiver.on(where).find((request) => request.json?.['type'] === 'terminated')!;
      expect(envelope.json).toEqual({
        type: 'terminated',
        error: { code: -32011, message: expect.stringContaining(taskId), data: { kind: 'task', taskId } },
      });
      expect(envelope.headers['webhook-id']).toMatch(/^msg_terminated_.+/);
      expect(envelope.headers['webhook-signature']).toBe(expectedSignature(envelope));
    });
  });

  describe('a receiver that keeps failing', () => {
    let flaky: TestServer;

    beforeAll(async () => {
      // Two attempts per event and suspension after two events given up on, so the test takes seconds.
      flaky = await startTestServer(
        {},
        {
          events: {
            allowLoopbackHttp: true,
            schedule: {
              attempts: 2,
              baseMs: 1_100,
              factor: 1,
              suspendAfter: 2,
              timeoutMs: 5_000,
              maxResponseBytes: 65_536,
            },
          },
        },
      );
    });

    afterAll(async () => {
      await flaky.close();
    });

    it('is suspended after repeated failures, the owner sees it in tasks/get’s _meta, and a refresh resumes it', async () => {
      const where = nextPath('always-down');
      receiver.script(where, answering(500));
      const url = `${receiver.url}${where}`;
      const { id } = await granted(subscribe(flaky, url));
      const taskId = await createTask(flaky.url, 'text_stats', { text: 'x' });
      type Meta = { webhooks: Array<{ id: string; active: boolean; lastError?: string; failedSince?: string }> };
      let meta: Meta | undefined;
      await vi.waitUntil(async () => {
        const task = await rpc<{ _meta?: Record<string, Meta> }>(flaky.url, 'tasks/get', { taskId });
        meta = 'result' in task ? task.result._meta?.['io.modelcontextprotocol/events'] : undefined;
        return meta?.webhooks[0]?.active === false;
      }, GENEROUS_WAIT);
      expect(meta!.webhooks).toEqual([
        { id, name: 'tasks.updated', active: false, lastError: 'http_5xx', failedSince: expect.any(String) },
      ]);
      // Nobody else sees it: bob's tasks/get of alice's task is not found.
      expect(await rpc(flaky.url, 'tasks/get', { taskId }, TOKENS.bob)).toMatchObject({ error: { code: -32602 } });
      const refreshed = await rpc<{ deliveryStatus: { active: boolean; lastError: string } }>(
        flaky.url,
        'events/subscribe',
        { name: 'tasks.updated', arguments: {}, delivery: { mode: 'webhook', url, secret: SECRET }, ttlMs: HOUR_MS },
      );
      expect(refreshed).toMatchObject({ result: { deliveryStatus: { active: false, lastError: 'http_5xx' } } });
      const after = await rpc<{ _meta?: Record<string, Meta> }>(flaky.url, 'tasks/get', { taskId });
      expect('result' in after && after.result._meta?.['io.modelcontextprotocol/events']?.webhooks[0]?.active).toBe(
        true,
      );
    });
  });
});
