// How a webhook receiver checks what it is sent, for anyone receiving this server's webhooks (the CLI's
// `mcp-tasks webhook listen` uses it): the signature over id, timestamp and body must match the subscription's
// secret, the timestamp must be within a tolerance of the receiver's clock (late or early), and a `webhook-id`
// accepted once is refused if it comes again within the window (a replay, or a retry of a delivery that was in fact
// received: either way, nothing to act on twice).
//
//   const verifier = createWebhookVerifier({ secret: 'whsec_…' });
//   try {
//     const envelope = verifier.verify(rawBody, request.headers); // the parsed JSON body
//     // ...act on it, answer 2xx
//   } catch (error) {
//     if (error instanceof WebhookVerificationError && error.reason === 'replayed') answer 2xx and do nothing;
//     else answer 401
//   }
//
// A verification envelope (`{"type":"verification","challenge":…}`) is answered with a 2xx JSON body
// `{"challenge": <the same value>}`.
//
// The HMAC is the `standardwebhooks` package's (Webhook.sign). Its own `verify` reads Date.now and a fixed five
// minutes, so the timestamp and replay checks are made here, with the clock and tolerance this verifier is given.
import { timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export type WebhookVerificationFailure = 'missing-headers' | 'bad-signature' | 'stale-timestamp' | 'replayed';

/** Why a webhook was refused; `message` says it for a log, and never holds the secret. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';

  constructor(
    readonly reason: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface WebhookVerifierOptions {
  /** The subscription's secret, `whsec_…`. */
  readonly secret: string;
  /** How far the timestamp may be from `now`, either way. @default 300 */
  readonly toleranceSeconds?: number;
  /** Epoch ms. @default Date.now */
  readonly now?: () => number;
}

export interface WebhookVerifier {
  /**
   * The parsed JSON body of a genuine, fresh, first-seen webhook (`undefined` for an empty body). Throws
   * {@link WebhookVerificationError} otherwise, and a SyntaxError if the signed body is not JSON. Header names are
   * matched in any case; `rawBody` must be the bytes as received, decoded as UTF-8, not re-serialized JSON.
   */
  verify(rawBody: string, headers: Readonly<Record<string, string | undefined>>): unknown;
}

export const DEFAULT_TOLERANCE_SECONDS = 300;
/** The most webhook IDs remembered: past it the oldest are forgotten first (a flood must not grow memory forever). */
export const MAX_REMEMBERED_IDS = 10_000;

export function createWebhookVerifier(options: WebhookVerifierOptions): WebhookVerifier {
  // Throws at once for a secret that is not base64: better at start-up than at the first webhook.
  const webhook = new Webhook(options.secret);
  const toleranceMs = (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS) * 1000;
  const now = options.now ?? Date.now;
  // webhook-id → epoch ms after which a repeat would fail the timestamp check anyway, so it need not be remembered.
  const seen = new Map<string, number>();

  function forgetExpired(at: number): void {
    for (const [id, until] of seen) {
      if (until <= at) seen.delete(id);
    }
    for (const id of seen.keys()) {
      if (seen.size < MAX_REMEMBERED_IDS) break;
      seen.delete(id);
    }
  }

  return {
    verify(rawBody, headers) {
      const lower = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
      const id = lower.get('webhook-id');
      const timestamp = lower.get('webhook-timestamp');
      const signatures = lower.get('webhook-signature');
      if (!id || !timestamp || !signatures) {
        throw new WebhookVerificationError(
          'missing-headers',
          'A webhook needs the webhook-id, webhook-timestamp and webhook-signature headers',
        );
      }
      if (!/^\d{1,15}$/.test(timestamp)) {
        throw new WebhookVerificationError('missing-headers', 'webhook-timestamp is not a number of seconds');
      }
      const at = now();
      const signedAtMs = Number(timestamp) * 1000;
      if (Math.abs(at - signedAtMs) > toleranceMs) {
        const which = signedAtMs < at ? 'too old' : 'in the future';
        throw new WebhookVerificationError(
          'stale-timestamp',
          `webhook-timestamp ${timestamp} is ${which}: more than ${toleranceMs / 1000} s from this receiver's clock`,
        );
      }
      const expected = Buffer.from(webhook.sign(id, new Date(signedAtMs), rawBody));
      const matches = signatures.split(' ').some((each) => {
        const candidate = Buffer.from(each);
        return candidate.length === expected.length && timingSafeEqual(candidate, expected);
      });
      if (!matches) {
        throw new WebhookVerificationError('bad-signature', 'No webhook-signature matches the secret');
      }
      forgetExpired(at);
      if (seen.has(id)) {
        throw new WebhookVerificationError('replayed', `webhook-id ${id} was already accepted`);
      }
      const body: unknown = rawBody === '' ? undefined : JSON.parse(rawBody);
      seen.set(id, Math.max(at, signedAtMs) + toleranceMs);
      return body;
    },
  };
}
