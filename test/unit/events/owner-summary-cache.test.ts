// The webhook status tasks/get shows, kept briefly: one read per owner per window, shared by concurrent polls, and
// read afresh after the window, after a change on this instance, or after a failed read.
import { describe, expect, it, vi } from 'vitest';
import type { Clock } from '../../../lambda/core/clock.js';
import type { WebhookSubscriptionSummary } from '../../../lambda/core/webhook-subscription.js';
import { OwnerSummaryCache } from '../../../lambda/events/owner-summary-cache.js';

function setUp(maxOwners = 10) {
  let now = 0;
  const clock: Clock = { now: () => now, sleep: async () => {} };
  const cache = new OwnerSummaryCache({ clock, ttlMs: 1_000, maxOwners });
  const read = vi.fn(async (): Promise<WebhookSubscriptionSummary[]> => []);
  return { cache, read, advance: (ms: number) => (now += ms) };
}

describe('OwnerSummaryCache', () => {
  it('reads an owner once within the window, and again after it', async () => {
    const { cache, read, advance } = setUp();
    await cache.get('alice', read);
    advance(999);
    await cache.get('alice', read);
    expect(read).toHaveBeenCalledTimes(1);
    advance(1);
    await cache.get('alice', read);
    expect(read).toHaveBeenCalledTimes(2);
  });

  it('shares one read among concurrent polls, and keeps owners apart', async () => {
    const { cache, read } = setUp();
    await Promise.all([cache.get('alice', read), cache.get('alice', read), cache.get('bob', read)]);
    expect(read).toHaveBeenCalledTimes(2);
  });

  it('reads again after the owner’s subscriptions changed here', async () => {
    const { cache, read } = setUp();
    await cache.get('alice', read);
    cache.forget('alice');
    await cache.get('alice', read);
    expect(read).toHaveBeenCalledTimes(2);
  });

  it('keeps no failed read: the next poll reads again', async () => {
    const { cache, read } = setUp();
    read.mockRejectedValueOnce(new Error('throttled'));
    await expect(cache.get('alice', read)).rejects.toThrow('throttled');
    await expect(cache.get('alice', read)).resolves.toEqual([]);
    expect(read).toHaveBeenCalledTimes(2);
  });

  it('keeps at most maxOwners, forgetting the one read longest ago', async () => {
    const { cache, read } = setUp(2);
    await cache.get('alice', read);
    await cache.get('bob', read);
    await cache.get('alice', read);
    await cache.get('carol', read);
    expect(read).toHaveBeenCalledTimes(3);
    await cache.get('alice', read);
    expect(read).toHaveBeenCalledTimes(3);
    await cache.get('bob', read);
    expect(read).toHaveBeenCalledTimes(4);
  });
});
