// The verification handshake: before anything but this is sent to a callback URL, the URL must show that it wants
// webhooks from this server. It is POSTed a signed `{"type":"verification","challenge":"<nonce>"}` and must answer
// 2xx with a JSON body whose `challenge` is the same nonce. A server that merely answers (any web server answers
// something) does not pass: so a subscription cannot aim this server's deliveries at someone else's endpoint.
// What the endpoint says is never passed back, only a category (no response oracle).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { DeliveryErrorCategory } from '../core/webhook-subscription.js';
import { OutboundFetchError, safeFetch } from '../outbound/safe-fetch.js';
import { checkCallbackUrl, type CallbackPolicy } from './callback-url.js';
import { categoryOf } from './delivery-errors.js';
import { controlWebhookId, signedHeaders } from './webhook-signature.js';

export interface VerifyCallbackInput {
  readonly url: string;
  readonly subscriptionId: string;
  /** The subscription's current secret (`whsec_…`): the challenge is signed like every delivery. */
  readonly secret: string;
  readonly policy: CallbackPolicy;
  /** @default 5000 */
  readonly timeoutMs?: number;
  /** Epoch ms of the signing. */
  readonly at: number;
}

export type VerifyCallbackResult =
  | { readonly verified: true }
  | {
      readonly verified: false;
      /** The endpoint answered (wrongly): `challenge_failed`. False when it could not be reached at all. */
      readonly reachable: boolean;
      readonly category: DeliveryErrorCategory;
    };

/** The cap on the answer read: an echo is a few dozen bytes. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** Sends the challenge and checks the echo. Never throws for the endpoint's failures. */
export async function verifyCallback(input: VerifyCallbackInput): Promise<VerifyCallbackResult> {
  const checked = checkCallbackUrl(input.url, input.policy);
  if (!checked.ok) return { verified: false, reachable: false, category: DeliveryErrorCategory.ConnectionRefused };
  const challenge = randomBytes(16).toString('hex');
  const body = JSON.stringify({ type: 'verification', challenge });
  const headers = signedHeaders({
    secrets: [input.secret],
    webhookId: controlWebhookId('verification'),
    body,
    at: input.at,
    subscriptionId: input.subscriptionId,
  });
  let answer: { status: number; body: string };
  try {
    answer = await safeFetch(
      checked.url,
      { method: 'POST', headers, body },
      {
        timeoutMs: input.timeoutMs ?? 5_000,
        maxBytes: MAX_ANSWER_BYTES,
        trusted: checked.trusted,
        ...(input.policy.lookup === undefined ? {} : { lookup: input.policy.lookup }),
        ...(input.policy.ca === undefined ? {} : { ca: input.policy.ca }),
      },
    );
  } catch (error) {
    if (!(error instanceof OutboundFetchError)) throw error;
    // A redirect or an oversized answer is an answer all the same: the endpoint is there, and did not echo.
    if (error.reason === 'redirect' || error.reason === 'too-large') return challengeFailed();
    return { verified: false, reachable: false, category: categoryOf(error) };
  }
  if (answer.status < 200 || answer.status >= 300) return challengeFailed();
  return echoes(answer.body, challenge) ? { verified: true } : challengeFailed();
}

function challengeFailed(): VerifyCallbackResult {
  return { verified: false, reachable: true, category: DeliveryErrorCategory.ChallengeFailed };
}

function echoes(text: string, challenge: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  if (parsed === null || typeof parsed !== 'object') return false;
  const echoed = (parsed as { challenge?: unknown }).challenge;
  if (typeof echoed !== 'string') return false;
  const expected = Buffer.from(challenge);
  const actual = Buffer.from(echoed);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
