// The waits between webhook attempts: exponential, jittered within [0.6, 1.0] of the nominal wait, never under 1.1 s.
import { describe, expect, it } from 'vitest';
import {
  AWS_DELIVERY_SCHEDULE,
  FAST_DELIVERY_SCHEDULE,
  MIN_RETRY_DELAY_MS,
  retryDelayMs,
} from '../../../lambda/events/delivery-backoff.js';

describe('delivery schedules', () => {
  it('AWS: five attempts, 2 s base, factor 4, suspend after 3, 5 s timeout, 64 KiB', () => {
    expect(AWS_DELIVERY_SCHEDULE).toEqual({
      attempts: 5,
      baseMs: 2000,
      factor: 4,
      suspendAfter: 3,
      timeoutMs: 5000,
      maxResponseBytes: 65536,
    });
  });

  it('local and tests: five attempts, 1.2 s base, factor 2', () => {
    expect(FAST_DELIVERY_SCHEDULE).toEqual({
      attempts: 5,
      baseMs: 1200,
      factor: 2,
      suspendAfter: 3,
      timeoutMs: 5000,
      maxResponseBytes: 65536,
    });
  });
});

describe('retryDelayMs', () => {
  it('grows by the factor with each attempt, at the top of the jitter', () => {
    const top = () => 0.999_999_999;
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(AWS_DELIVERY_SCHEDULE, attempt, top))).toEqual([
      2000, 8000, 32000, 128000,
    ]);
  });

  it('scales the wait by 0.6 at the bottom of the jitter and 0.8 in the middle', () => {
    expect(retryDelayMs(AWS_DELIVERY_SCHEDULE, 2, () => 0)).toBe(4800);
    expect(retryDelayMs(AWS_DELIVERY_SCHEDULE, 2, () => 0.5)).toBe(6400);
  });

  it('stays within [0.6, 1.0] of the nominal wait for any random draw', () => {
    for (let draw = 0; draw < 1; draw += 0.05) {
      const delay = retryDelayMs(AWS_DELIVERY_SCHEDULE, 3, () => draw);
      expect(delay).toBeGreaterThanOrEqual(0.6 * 32000);
      expect(delay).toBeLessThanOrEqual(32000);
    }
  });

  it(`never waits under ${MIN_RETRY_DELAY_MS} ms, so the next webhook-timestamp differs`, () => {
    expect(retryDelayMs(FAST_DELIVERY_SCHEDULE, 1, () => 0)).toBe(MIN_RETRY_DELAY_MS);
    expect(retryDelayMs({ ...FAST_DELIVERY_SCHEDULE, baseMs: 10 }, 1, () => 0.9)).toBe(MIN_RETRY_DELAY_MS);
    expect(retryDelayMs(FAST_DELIVERY_SCHEDULE, 1, () => 0.999_999)).toBe(1200);
  });

  it('draws from Math.random by default', () => {
    const delay = retryDelayMs(FAST_DELIVERY_SCHEDULE, 2);
    expect(delay).toBeGreaterThanOrEqual(1440);
    expect(delay).toBeLessThanOrEqual(2400);
  });
});
