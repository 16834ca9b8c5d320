// The headers every webhook POST carries, checked with the `standardwebhooks` package's own verify (what a receiver
// runs), the control envelopes' webhook IDs, and which secrets count as Standard Webhooks secrets.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { controlWebhookId, isStandardWebhooksSecret, signedHeaders } from '../../../lambda/events/webhook-signature.js';

const secretOf = (bytes: number): string => `whsec_${randomBytes(bytes).toString('base64')}`;

describe('signedHeaders', () => {
  const secret = secretOf(32);
  const body = JSON.stringify({ eventId: 'evt_t1_1', data: { note: 'héllo' } });

  it('carries the content type, the Standard Webhooks headers and the subscription ID', () => {
    const at = Date.now();
    const headers = signedHeaders({ secrets: [secret], webhookId: 'evt_t1_1', body, at, subscriptionId: 'sub_1' });
    expect(Object.keys(headers).sort()).toEqual([
      'content-type',
      'webhook-id',
      'webhook-signature',
      'webhook-timestamp',
      'x-mcp-subscription-id',
    ]);
    expect(headers['content-type']).toBe('application/json');
    expect(headers['webhook-id']).toBe('evt_t1_1');
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(at / 1000)));
    expect(headers['x-mcp-subscription-id']).toBe('sub_1');
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  });

  it('signs so that an independent Standard Webhooks verify accepts the body, and refuses it altered', () => {
    const headers = signedHeaders({
      secrets: [secret],
      webhookId: 'evt_t1_1',
      body,
      at: Date.now(),
      subscriptionId: 's',
    });
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body.replace('héllo', 'hello'), headers)).toThrow();
    expect(() => new Webhook(secretOf(32)).verify(body, headers)).toThrow();
  });

  it('signs with every secret given, the current one first, each verifying on its own', () => {
    const previous = secretOf(24);
    // One instant for both signings: two reads of the clock can fall in different seconds, and so sign differently.
    const at = Date.now();
    const headers = signedHeaders({
      secrets: [secret, previous],
      webhookId: 'evt_t1_2',
      body,
      at,
      subscriptionId: 's',
    });
    const signatures = headers['webhook-signature']!.split(' ');
    expect(signatures).toHaveLength(2);
    const current = signedHeaders({
      secrets: [secret],
      webhookId: 'evt_t1_2',
      body,
      at,
      subscriptionId: 's',
    });
    expect(signatures[0]).toBe(current['webhook-signature']);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('refuses to sign with no secret', () => {
    expect(() => signedHeaders({ secrets: [], webhookId: 'x', body, at: 0, subscriptionId: 's' })).toThrow(/secret/);
  });
});

describe('controlWebhookId', () => {
  it.each(['verification', 'gap', 'terminated'] as const)('names a %s envelope msg_<type>_<16 hex>', (type) => {
    expect(controlWebhookId(type)).toMatch(new RegExp(`^msg_${type}_[0-9a-f]{16}$`));
  });

  it('is random', () => {
    const ids = new Set(Array.from({ length: 50 }, () => controlWebhookId('gap')));
    expect(ids.size).toBe(50);
  });
});

describe('isStandardWebhooksSecret', () => {
  it.each([24, 32, 48, 64])('accepts whsec_ and the base64 of %i bytes', (bytes) => {
    expect(isStandardWebhooksSecret(secretOf(bytes))).toBe(true);
  });

  it.each([
    ['too short', secretOf(23)],
    ['too long', secretOf(65)],
    ['without the prefix', randomBytes(32).toString('base64')],
    ['with another prefix', `whsek_${randomBytes(32).toString('base64')}`],
    ['unpadded', `whsec_${randomBytes(32).toString('base64').replace(/=+$/, '')}`],
    ['base64url', `whsec_${Buffer.from('\xfb\xff'.repeat(16), 'latin1').toString('base64url')}`],
    ['with a space', `whsec_ ${randomBytes(33).toString('base64')}`],
    ['empty', 'whsec_'],
    ['only the prefix and padding', 'whsec_===='],
  ])('refuses a secret %s', (_what, value) => {
    expect(isStandardWebhooksSecret(value)).toBe(false);
  });

  it.each([undefined, null, 42, { secret: secretOf(32) }])('refuses %j, which is not a string', (value) => {
    expect(isStandardWebhooksSecret(value)).toBe(false);
  });
});
