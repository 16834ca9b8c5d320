// The receivers' verify helper: what it accepts (a genuine, fresh, first-seen webhook, headers in any case, either
// signature of a rotated pair) and each way it refuses, by reason. Signed with the `standardwebhooks` package
// directly, so the helper is checked against what any Standard Webhooks sender produces. Time is an injected clock.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signedHeaders } from '../../../lambda/events/webhook-signature.js';
import {
  createWebhookVerifier,
  WebhookVerificationError,
  type WebhookVerificationFailure,
} from '../../../lambda/events/webhook-verifier.js';

const secretOf = (): string => `whsec_${randomBytes(32).toString('base64')}`;
const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);

/** Standard Webhooks headers as any sender makes them. */
function headersFor(secret: string, id: string, body: string, at: number): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, new Date(at), body),
  };
}

function refusal(run: () => unknown): WebhookVerificationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return error as WebhookVerificationError;
  }
  return expect.unreachable('verify should have refused');
}

function setup(options: { toleranceSeconds?: number } = {}) {
  const secret = secretOf();
  let now = T0;
  const verifier = createWebhookVerifier({ secret, now: () => now, ...options });
  return {
    secret,
    verifier,
    at: (ms: number) => (now = ms),
  };
}

const BODY = JSON.stringify({ eventId: 'evt_t_1', data: { seq: 1 } });

describe('createWebhookVerifier', () => {
  it('returns the parsed body of a genuine, fresh webhook', () => {
    const { secret, verifier } = setup();
    expect(verifier.verify(BODY, headersFor(secret, 'evt_t_1', BODY, T0))).toEqual(JSON.parse(BODY));
  });

  it('matches header names in any case, as Node and other servers hand them over', () => {
    const { secret, verifier } = setup();
    const headers = Object.fromEntries(
      Object.entries(headersFor(secret, 'evt_t_1', BODY, T0)).map(([name, value]) => [name.toUpperCase(), value]),
    );
    expect(verifier.verify(BODY, headers)).toEqual(JSON.parse(BODY));
  });

  it('refuses a signature made with another secret, and an altered body, as bad-signature', () => {
    const { secret, verifier } = setup();
    const forged = refusal(() => verifier.verify(BODY, headersFor(secretOf(), 'evt_t_1', BODY, T0)));
    expect(forged.reason).toBe<WebhookVerificationFailure>('bad-signature');
    const altered = refusal(() => verifier.verify(BODY.replace('1}', '2}'), headersFor(secret, 'evt_t_1', BODY, T0)));
    expect(altered.reason).toBe('bad-signature');
  });

  it('refuses a signature for another webhook-id or timestamp', () => {
    const { secret, verifier } = setup();
    const headers = headersFor(secret, 'evt_t_1', BODY, T0);
    const otherId = refusal(() => verifier.verify(BODY, { ...headers, 'webhook-id': 'evt_t_2' }));
    expect(otherId.reason).toBe('bad-signature');
    const otherTime = refusal(() =>
      verifier.verify(BODY, { ...headers, 'webhook-timestamp': String(Math.floor(T0 / 1000) + 1) }),
    );
    expect(otherTime.reason).toBe('bad-signature');
  });

  it('refuses a webhook signed more than the tolerance ago, and accepts one just within it', () => {
    const { secret, verifier } = setup();
    const late = refusal(() => verifier.verify(BODY, headersFor(secret, 'evt_late', BODY, T0 - 301_000)));
    expect(late.reason).toBe('stale-timestamp');
    expect(late.message).toContain('too old');
    expect(verifier.verify(BODY, headersFor(secret, 'evt_ok', BODY, T0 - 300_000))).toEqual(JSON.parse(BODY));
  });

  it('refuses a webhook signed in the future beyond the tolerance', () => {
    const { secret, verifier } = setup();
    const future = refusal(() => verifier.verify(BODY, headersFor(secret, 'evt_future', BODY, T0 + 301_000)));
    expect(future.reason).toBe('stale-timestamp');
    expect(future.message).toContain('in the future');
    expect(verifier.verify(BODY, headersFor(secret, 'evt_soon', BODY, T0 + 300_000))).toEqual(JSON.parse(BODY));
  });

  it('takes its tolerance from the options', () => {
    const { secret, verifier } = setup({ toleranceSeconds: 10 });
    expect(refusal(() => verifier.verify(BODY, headersFor(secret, 'evt_a', BODY, T0 - 11_000))).reason).toBe(
      'stale-timestamp',
    );
    expect(verifier.verify(BODY, headersFor(secret, 'evt_b', BODY, T0 - 10_000))).toEqual(JSON.parse(BODY));
  });

  it('refuses a webhook-id it already accepted: the same message again, or a later attempt of it', () => {
    const { secret, verifier, at } = setup();
    const headers = headersFor(secret, 'evt_t_1', BODY, T0);
    verifier.verify(BODY, headers);
    expect(refusal(() => verifier.verify(BODY, headers)).reason).toBe('replayed');
    at(T0 + 2_000);
    const retry = headersFor(secret, 'evt_t_1', BODY, T0 + 2_000);
    const replayed = refusal(() => verifier.verify(BODY, retry));
    expect(replayed.reason).toBe('replayed');
    expect(replayed.message).toContain('evt_t_1');
  });

  it('forgets an accepted id once the window has passed: a copy of the message is then too old anyway', () => {
    const { secret, verifier, at } = setup();
    verifier.verify(BODY, headersFor(secret, 'evt_t_1', BODY, T0));
    at(T0 + 301_000);
    expect(refusal(() => verifier.verify(BODY, headersFor(secret, 'evt_t_1', BODY, T0))).reason).toBe(
      'stale-timestamp',
    );
    // A fresh send of the same id, long after, is a new message.
    expect(verifier.verify(BODY, headersFor(secret, 'evt_t_1', BODY, T0 + 301_000))).toEqual(JSON.parse(BODY));
  });

  it('does not remember an id from a webhook it refused, so a forgery cannot block the genuine one', () => {
    const { secret, verifier } = setup();
    refusal(() => verifier.verify(BODY, headersFor(secretOf(), 'evt_t_1', BODY, T0)));
    expect(verifier.verify(BODY, headersFor(secret, 'evt_t_1', BODY, T0))).toEqual(JSON.parse(BODY));
  });

  it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])('refuses a webhook without %s', (name) => {
    const { secret, verifier } = setup();
    const headers: Record<string, string | undefined> = { ...headersFor(secret, 'evt_t_1', BODY, T0) };
    headers[name] = undefined;
    expect(refusal(() => verifier.verify(BODY, headers)).reason).toBe('missing-headers');
    delete headers[name];
    expect(refusal(() => verifier.verify(BODY, headers)).reason).toBe('missing-headers');
  });

  it('refuses a timestamp that is not a number of seconds', () => {
    const { secret, verifier } = setup();
    const headers = { ...headersFor(secret, 'evt_t_1', BODY, T0), 'webhook-timestamp': '2026-01-15T12:00:00Z' };
    expect(refusal(() => verifier.verify(BODY, headers)).reason).toBe('missing-headers');
  });

  it('verifies a rotated, dually signed webhook under either secret', () => {
    const current = secretOf();
    const previous = secretOf();
    const headers = signedHeaders({
      secrets: [current, previous],
      webhookId: 'evt_t_9',
      body: BODY,
      at: T0,
      subscriptionId: 'sub_x',
    });
    for (const secret of [current, previous]) {
      const verifier = createWebhookVerifier({ secret, now: () => T0 });
      expect(verifier.verify(BODY, headers)).toEqual(JSON.parse(BODY));
    }
    const stranger = createWebhookVerifier({ secret: secretOf(), now: () => T0 });
    expect(refusal(() => stranger.verify(BODY, headers)).reason).toBe('bad-signature');
  });

  it('never puts the secret in a refusal', () => {
    const { secret, verifier } = setup();
    const error = refusal(() => verifier.verify(BODY, headersFor(secretOf(), 'evt_t_1', BODY, T0)));
    expect(`${error.message} ${error.stack ?? ''}`).not.toContain(secret.slice(6));
  });

  it('reads the time from Date.now when given no clock', () => {
    const secret = secretOf();
    const verifier = createWebhookVerifier({ secret });
    expect(verifier.verify(BODY, headersFor(secret, 'evt_now', BODY, Date.now()))).toEqual(JSON.parse(BODY));
  });
});
