// The emulator's quota mode, as buckets: AWS's published sizes and rates, scaled down, on a clock moved by hand.
import { describe, expect, it } from 'vitest';
import { ApiQuotas, STEP_FUNCTIONS_API_QUOTAS, TokenBucket } from '../../../local/step-functions/api-quotas.js';

function manualClock(): { now: () => number; advance: (ms: number) => void } {
  let time = 0;
  return { now: () => time, advance: (ms) => (time += ms) };
}

describe('TokenBucket', () => {
  it('starts full and gives out its size, then refuses', () => {
    const bucket = new TokenBucket(3, 1, manualClock().now);
    expect([bucket.take(), bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, true, false]);
  });

  it('refills at its rate, a fraction of a token counting towards the next', () => {
    const clock = manualClock();
    const bucket = new TokenBucket(2, 4, clock.now);
    bucket.take();
    bucket.take();
    clock.advance(200); // 0.8 of a token
    expect(bucket.take()).toBe(false);
    clock.advance(50); // 1.0
    expect(bucket.take()).toBe(true);
    expect(bucket.take()).toBe(false);
  });

  it('holds no more than its size however long it rests', () => {
    const clock = manualClock();
    const bucket = new TokenBucket(2, 10, clock.now);
    clock.advance(60_000);
    expect([bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, false]);
  });
});

describe('ApiQuotas', () => {
  it('divides the published bucket and refill by the scale', () => {
    const quotas = new ApiQuotas({ scaleDownBy: 100, now: manualClock().now });
    expect(quotas.bucketOf('StartExecution')).toMatchObject({ size: 13, refillPerSecond: 3 });
    expect(quotas.bucketOf('DescribeExecution')).toMatchObject({ size: 3, refillPerSecond: 0.15 });
  });

  it('keeps at least one token in a bucket scaled below one', () => {
    const quotas = new ApiQuotas({ scaleDownBy: 1_000, now: manualClock().now });
    expect(quotas.bucketOf('CreateStateMachine')?.size).toBe(1);
    expect(quotas.admit('CreateStateMachine')).toBe(true);
  });

  it('throttles only the actions it is given, and counts what it refuses', () => {
    const quotas = new ApiQuotas({ scaleDownBy: 1_300, actions: ['StartExecution'], now: manualClock().now });
    expect([quotas.admit('StartExecution'), quotas.admit('StartExecution')]).toEqual([true, false]);
    for (let call = 0; call < 10; call++) expect(quotas.admit('DescribeExecution')).toBe(true);
    expect(quotas.refused()).toEqual({ StartExecution: 1 });
  });

  it('lists the us-east-1 rates of the start and stop APIs as AWS publishes them', () => {
    expect(STEP_FUNCTIONS_API_QUOTAS.StartExecution).toEqual({ bucket: 1_300, refillPerSecond: 300 });
    expect(STEP_FUNCTIONS_API_QUOTAS.StopExecution).toEqual({ bucket: 1_000, refillPerSecond: 200 });
  });

  it('refuses a scale below one', () => {
    expect(() => new ApiQuotas({ scaleDownBy: 0.5 })).toThrow(/scaleDownBy/);
  });
});
