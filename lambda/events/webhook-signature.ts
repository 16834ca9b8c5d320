// The headers every webhook POST carries (Standard Webhooks): who it is from (`x-mcp-subscription-id`), which message
// it is (`webhook-id`, the same on every attempt, so a receiver can drop a repeat), when it was signed, and the
// signature over id, time and body. The signing itself is the `standardwebhooks` package's, the same code receivers
// verify with. While a refreshed secret's predecessor is in its grace window, the body is signed with both.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

const SECRET_PREFIX = 'whsec_';
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;

export interface SignedHeadersInput {
  /** The current secret first, then any still in its grace window; each `whsec_…`. */
  readonly secrets: readonly string[];
  readonly webhookId: string;
  /** The body exactly as it is sent. */
  readonly body: string;
  /** Epoch ms of the signing; the header carries whole seconds. */
  readonly at: number;
  readonly subscriptionId: string;
}

/** The headers of one POST: content type, Standard Webhooks' three, and the subscription's ID. */
export function signedHeaders(input: SignedHeadersInput): Record<string, string> {
  if (input.secrets.length === 0) throw new Error('A webhook is signed with at least one secret');
  const signedAt = new Date(input.at);
  const signatures = input.secrets.map((secret) => new Webhook(secret).sign(input.webhookId, signedAt, input.body));
  return {
    'content-type': 'application/json',
    'webhook-id': input.webhookId,
    'webhook-timestamp': String(Math.floor(input.at / 1000)),
    'webhook-signature': signatures.join(' '),
    'x-mcp-subscription-id': input.subscriptionId,
  };
}

/** The `webhook-id` of a control envelope (not an event): `msg_<type>_` and 16 random hex digits. */
export function controlWebhookId(type: 'verification' | 'gap' | 'terminated'): string {
  return `msg_${type}_${randomBytes(8).toString('hex')}`;
}

/** Whether `value` is a Standard Webhooks secret as subscribers must choose it: `whsec_` + base64 of 24 to 64 bytes. */
export function isStandardWebhooksSecret(value: unknown): boolean {
  if (typeof value !== 'string' || !value.startsWith(SECRET_PREFIX)) return false;
  const encoded = value.slice(SECRET_PREFIX.length);
  // Padded standard base64, as the package decodes it; Buffer alone would skip characters it does not know.
  if (encoded.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return false;
  const bytes = Buffer.from(encoded, 'base64').length;
  return bytes >= MIN_SECRET_BYTES && bytes <= MAX_SECRET_BYTES;
}
