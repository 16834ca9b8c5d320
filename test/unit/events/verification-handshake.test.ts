// The verification handshake against a real receiver: the tests' webhook receiver on 127.0.0.1 (trusted through the
// local stack's allowLoopbackHttp, or listed as a trusted origin) whose answer each test sets, and an https server with
// a self-signed certificate for the TLS failure. What comes back is a verdict and a category, never the receiver's
// words. Also the categories of failures (delivery-errors.ts).
import { createServer, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { generate } from 'selfsigned';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CallbackPolicy } from '../../../lambda/events/callback-url.js';
import { categoryOf } from '../../../lambda/events/delivery-errors.js';
import { verifyCallback } from '../../../lambda/events/verification-handshake.js';
import { OutboundFetchError } from '../../../lambda/outbound/safe-fetch.js';
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../../support/webhook-receiver.js';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const LOCAL: CallbackPolicy = { trustedOrigins: [], allowLoopbackHttp: true };
/** Words no verdict may carry: the receiver's own. */
const RECEIVER_WORDS = 'internal-detail-7f3a';

type Behaviour = (received: Pick<ReceivedRequest, 'rawBody'>, res: ServerResponse) => void;

const echo: Behaviour = ({ rawBody }, res) => {
  const { challenge } = JSON.parse(rawBody) as { challenge: string };
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge }));
};

describe('verifyCallback against a real receiver', () => {
  let receiver: WebhookReceiver;
  let base: string;
  let behaviour: Behaviour = echo;
  /** Every request the receiver got so far, oldest first. */
  const received = (): ReceivedRequest[] => [...receiver.requests];

  beforeEach(async () => {
    receiver = await startWebhookReceiver();
    base = receiver.origin;
    receiver.script('/hook', (request, res) => behaviour(request, res));
    behaviour = echo;
  });

  afterEach(async () => {
    await receiver.close();
  });

  const verify = (policy: CallbackPolicy = LOCAL, timeoutMs?: number) =>
    verifyCallback({
      url: `${base}/hook`,
      subscriptionId: 'sub_0123',
      secret: SECRET,
      policy,
      at: Date.now(),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    });

  it('is verified when the receiver echoes the challenge in a 2xx JSON body', async () => {
    expect(await verify()).toEqual({ verified: true });
    expect(received()).toHaveLength(1);
  });

  it('sends a signed verification envelope with a fresh 32-hex challenge and a msg_verification_ id', async () => {
    await verify();
    await verify();
    const [first, second] = received() as [ReceivedRequest, ReceivedRequest];
    const headers = first.headers as Record<string, string>;
    expect(headers['content-type']).toBe('application/json');
    expect(headers['x-mcp-subscription-id']).toBe('sub_0123');
    expect(headers['webhook-id']).toMatch(/^msg_verification_[0-9a-f]{16}$/);
    const envelope = new Webhook(SECRET).verify(first.rawBody, headers) as { type: string; challenge: string };
    expect(envelope).toEqual({ type: 'verification', challenge: expect.stringMatching(/^[0-9a-f]{32}$/) });
    const again = JSON.parse(second.rawBody) as { challenge: string };
    expect(again.challenge).not.toBe(envelope.challenge);
    expect(second.headers['webhook-id']).not.toBe(headers['webhook-id']);
  });

  it('accepts any 2xx with the echo, and extra fields beside it', async () => {
    behaviour = ({ rawBody }, res) => {
      const { challenge } = JSON.parse(rawBody) as { challenge: string };
      res.writeHead(202).end(JSON.stringify({ challenge, note: 'ok' }));
    };
    expect(await verify()).toEqual({ verified: true });
  });

  it.each<[string, Behaviour]>([
    ['a wrong echo', (_received, res) => res.writeHead(200).end(JSON.stringify({ challenge: 'f'.repeat(32) }))],
    [
      'an echo one character short',
      ({ rawBody }, res) => {
        const { challenge } = JSON.parse(rawBody) as { challenge: string };
        res.writeHead(200).end(JSON.stringify({ challenge: challenge.slice(1) }));
      },
    ],
    ['no echo', (_received, res) => res.writeHead(200).end(JSON.stringify({ ok: true, detail: RECEIVER_WORDS }))],
    ['a body that is not JSON', (_received, res) => res.writeHead(200).end(`<html>${RECEIVER_WORDS}</html>`)],
    ['an echo as a number', (_received, res) => res.writeHead(200).end(JSON.stringify({ challenge: 12 }))],
    ['the echo with a 503', ({ rawBody }, res) => res.writeHead(503).end(JSON.stringify(JSON.parse(rawBody)))],
    ['a 404', (_received, res) => res.writeHead(404).end(RECEIVER_WORDS)],
    ['a 302', (_received, res) => res.writeHead(302, { location: 'http://127.0.0.1/elsewhere' }).end()],
    ['an answer past the size cap', (_received, res) => res.writeHead(200).end('x'.repeat(70 * 1024))],
  ])('fails as challenge_failed, reachable, on %s', async (_what, answer) => {
    behaviour = answer;
    const result = await verify();
    expect(result).toEqual({ verified: false, reachable: true, category: 'challenge_failed' });
    expect(JSON.stringify(result)).not.toContain(RECEIVER_WORDS);
  });

  it('fails as timeout, unreachable, when the receiver answers too slowly', async () => {
    behaviour = () => {}; // never answers
    expect(await verify(LOCAL, 200)).toEqual({ verified: false, reachable: false, category: 'timeout' });
  });

  it('fails as connection_refused, unreachable, when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const result = await verifyCallback({
      url: `http://127.0.0.1:${port}/hook`,
      subscriptionId: 'sub_0123',
      secret: SECRET,
      policy: LOCAL,
      at: Date.now(),
    });
    expect(result).toEqual({ verified: false, reachable: false, category: 'connection_refused' });
  });

  it('reaches a receiver listed as a trusted origin, http on loopback, without allowLoopbackHttp', async () => {
    expect(await verify({ trustedOrigins: [base] })).toEqual({ verified: true });
  });

  it('never connects to a loopback URL the policy does not trust', async () => {
    const result = await verify({ trustedOrigins: [] });
    expect(result).toEqual({ verified: false, reachable: false, category: 'connection_refused' });
    const https = await verifyCallback({
      url: `${base.replace('http:', 'https:')}/hook`,
      subscriptionId: 'sub_0123',
      secret: SECRET,
      policy: { trustedOrigins: [] },
      at: Date.now(),
    });
    expect(https).toEqual({ verified: false, reachable: false, category: 'connection_refused' });
    expect(received()).toHaveLength(0);
  });
});

describe('verifyCallback over TLS', () => {
  let server: ReturnType<typeof createHttpsServer>;
  let base: string;
  let ca: string;

  beforeAll(async () => {
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keySize: 2048,
      extensions: [
        { name: 'basicConstraints', cA: true },
        { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
      ],
    });
    ca = pems.cert;
    server = createHttpsServer({ key: pems.private, cert: pems.cert }, (req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => echo({ rawBody: body }, res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const verify = (policy: CallbackPolicy) =>
    verifyCallback({ url: `${base}/hook`, subscriptionId: 'sub_tls', secret: SECRET, policy, at: Date.now() });

  it('is verified over https when the certificate is trusted', async () => {
    expect(await verify({ trustedOrigins: [base], ca })).toEqual({ verified: true });
  });

  it('fails as tls_error, unreachable, when the certificate is not', async () => {
    expect(await verify({ trustedOrigins: [base] })).toEqual({
      verified: false,
      reachable: false,
      category: 'tls_error',
    });
  });
});

describe('categoryOf', () => {
  const network = (code: string) =>
    new OutboundFetchError('network', 'x', { cause: Object.assign(new Error(code), { code }) });

  it.each([
    [new OutboundFetchError('timeout', 'x'), 'timeout'],
    [network('ETIMEDOUT'), 'timeout'],
    [network('DEPTH_ZERO_SELF_SIGNED_CERT'), 'tls_error'],
    [network('CERT_HAS_EXPIRED'), 'tls_error'],
    [network('ERR_TLS_CERT_ALTNAME_INVALID'), 'tls_error'],
    [network('ERR_SSL_WRONG_VERSION_NUMBER'), 'tls_error'],
    [network('EPROTO'), 'tls_error'],
    [network('ECONNREFUSED'), 'connection_refused'],
    [network('ECONNRESET'), 'connection_refused'],
    [network('ENOTFOUND'), 'connection_refused'],
    [network('EHOSTUNREACH'), 'connection_refused'],
    [new OutboundFetchError('network', 'no cause'), 'connection_refused'],
    [new OutboundFetchError('forbidden-address', 'x'), 'connection_refused'],
    [new OutboundFetchError('redirect', 'x'), 'connection_refused'],
    [new OutboundFetchError('too-large', 'x'), 'connection_refused'],
    [new OutboundFetchError('not-https', 'x'), 'connection_refused'],
  ])('files %s as %s', (error, category) => {
    expect(categoryOf(error)).toBe(category);
  });

  it.each([
    [400, 'http_4xx'],
    [401, 'http_4xx'],
    [429, 'http_4xx'],
    [499, 'http_4xx'],
    [500, 'http_5xx'],
    [503, 'http_5xx'],
    [599, 'http_5xx'],
  ])('files status %i as %s', (status, category) => {
    expect(categoryOf({ status })).toBe(category);
  });
});
