// When a failed webhook delivery is tried again, and how often before it is given up on. The waits grow
// exponentially, each scaled by a random factor so that deliveries failing together (an endpoint that was down) do not
// all come back at the same moment; none is shorter than 1.1 s, so every attempt carries a later webhook-timestamp
// (whole seconds) than the one before.

/** The attempts at one delivery, and the caps on each. */
export interface DeliverySchedule {
  /** Attempts at one delivery, the first included; after the last failure it is given up on. */
  readonly attempts: number;
  /** The wait after the first failed attempt, before jitter. */
  readonly baseMs: number;
  /** Each later wait is this many times the one before, before jitter. */
  readonly factor: number;
  /** Deliveries given up on in a row after which delivery to the subscription is suspended. */
  readonly suspendAfter: number;
  /** The cap on one request: connect, TLS, headers and body. */
  readonly timeoutMs: number;
  /** The cap on the response body read (it is read only to end the exchange; its content is never used). */
  readonly maxResponseBytes: number;
}

/** In AWS: waits of about 2, 8, 32 and 128 s between five attempts. */
export const AWS_DELIVERY_SCHEDULE: DeliverySchedule = {
  attempts: 5,
  baseMs: 2_000,
  factor: 4,
  suspendAfter: 3,
  timeoutMs: 5_000,
  maxResponseBytes: 64 * 1024,
};

/** The local stack and tests: waits of about 1.2, 2.4, 4.8 and 9.6 s, so a failing receiver is given up on soon. */
export const FAST_DELIVERY_SCHEDULE: DeliverySchedule = {
  attempts: 5,
  baseMs: 1_200,
  factor: 2,
  suspendAfter: 3,
  timeoutMs: 5_000,
  maxResponseBytes: 64 * 1024,
};

/** The shortest wait: more than a second, so the next attempt's webhook-timestamp differs. */
export const MIN_RETRY_DELAY_MS = 1_100;
const JITTER_FLOOR = 0.6;

/**
 * The wait after attempt number `attempt` (from 1) failed: `baseMs * factor^(attempt-1)`, scaled by a factor in
 * [0.6, 1.0] drawn from `random` (a value in [0, 1)), and never under {@link MIN_RETRY_DELAY_MS}.
 */
export function retryDelayMs(schedule: DeliverySchedule, attempt: number, random: () => number = Math.random): number {
  const exponential = schedule.baseMs * schedule.factor ** Math.max(0, attempt - 1);
  const jitter = JITTER_FLOOR + (1 - JITTER_FLOOR) * Math.min(1, Math.max(0, random()));
  return Math.max(MIN_RETRY_DELAY_MS, Math.round(exponential * jitter));
}
