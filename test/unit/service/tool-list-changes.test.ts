// A listening stream learns of a change of the discovered tools from the catalog store alone: announced once every
// instance serves it (a read interval after the refresh that changed it), once per change, never for a refresh that
// found the same tools or a change undone in time; a stream opened soon after a change still announces it.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SYSTEM_CLOCK } from '../../../lambda/core/clock.js';
import type { ToolDefinition } from '../../../lambda/contract/tool-definition.js';
import { ToolListChangeDetector, ToolListChanges } from '../../../lambda/service/tool-list-changes.js';
import { InMemoryDiscoveredCatalog } from '../../../lambda/store/in-memory-discovered-catalog.js';
import { T0 } from '../../support/in-memory-backend.js';

const SETTLE_MS = 30_000;

const tool = (name: string): ToolDefinition => ({
  name,
  description: name,
  inputSchema: { type: 'object' },
  stateMachineArn: `arn:aws:states:us-east-1:000000000000:stateMachine:${name}`,
});

let catalog: InMemoryDiscoveredCatalog;
const options = () => ({ catalog, clock: SYSTEM_CLOCK, settleMs: SETTLE_MS });
/** The refresher writes `names` as the catalog, now. */
const refresh = (...names: string[]) => catalog.write(names.map(tool), Date.now());

beforeEach(async () => {
  vi.useFakeTimers({ now: T0 });
  catalog = new InMemoryDiscoveredCatalog();
  await refresh('refund');
  vi.advanceTimersByTime(SETTLE_MS);
});
afterEach(() => {
  vi.useRealTimers();
});

describe('ToolListChangeDetector', () => {
  it('announces nothing while the catalog stays the same, refreshes included', async () => {
    const detector = await ToolListChangeDetector.start(options());
    await refresh('refund');
    vi.advanceTimersByTime(SETTLE_MS);
    expect(await detector.check()).toBe(false);
  });

  it('announces a change once every instance serves it, and only once', async () => {
    const detector = await ToolListChangeDetector.start(options());
    await refresh('refund', 'invoice');
    vi.advanceTimersByTime(SETTLE_MS - 1);
    expect(await detector.check()).toBe(false);
    vi.advanceTimersByTime(1);
    expect(await detector.check()).toBe(true);
    vi.advanceTimersByTime(SETTLE_MS);
    expect(await detector.check()).toBe(false);
  });

  it('announces nothing for a change undone before it was due', async () => {
    const detector = await ToolListChangeDetector.start(options());
    await refresh('invoice');
    vi.advanceTimersByTime(1_000);
    await refresh('refund');
    vi.advanceTimersByTime(SETTLE_MS);
    expect(await detector.check()).toBe(false);
  });

  it('waits for the latest of two quick changes to settle', async () => {
    const detector = await ToolListChangeDetector.start(options());
    await refresh('invoice');
    vi.advanceTimersByTime(SETTLE_MS - 1_000);
    await refresh('invoice', 'export');
    vi.advanceTimersByTime(1_000);
    expect(await detector.check()).toBe(false);
    vi.advanceTimersByTime(SETTLE_MS);
    expect(await detector.check()).toBe(true);
  });

  it('announces a change made shortly before the stream opened: the client may have listed the old tools', async () => {
    await refresh('invoice');
    vi.advanceTimersByTime(1_000);
    const detector = await ToolListChangeDetector.start(options());
    expect(await detector.check()).toBe(false);
    vi.advanceTimersByTime(SETTLE_MS);
    expect(await detector.check()).toBe(true);
  });

  it('announces the first catalog written after the stream opened on none', async () => {
    catalog = new InMemoryDiscoveredCatalog();
    const detector = await ToolListChangeDetector.start(options());
    await refresh('refund');
    vi.advanceTimersByTime(SETTLE_MS);
    expect(await detector.check()).toBe(true);
  });

  it('starts from what a resuming client says it was told of, however long ago the catalog changed', async () => {
    const told = (await catalog.read())!.digest;
    await refresh('invoice');
    vi.advanceTimersByTime(10 * SETTLE_MS);
    const resumed = await ToolListChangeDetector.start(options(), told);
    expect(await resumed.check()).toBe(true);
    expect(resumed.lastTold).toBe((await catalog.read())!.digest);
    const fresh = await ToolListChangeDetector.start(options());
    expect(await fresh.check()).toBe(false);
  });
});

describe('ToolListChanges.watch', () => {
  const watching = (until: number, signal = new AbortController().signal) => {
    const changes: number[] = [];
    const done = new ToolListChanges(options()).watch(
      { until, pollIntervalMs: 2_000, signal },
      { onChange: () => changes.push(Date.now() - T0) },
    );
    return { changes, done };
  };

  it('calls back at the first read after a change is due, and ends at its deadline', async () => {
    const { changes, done } = watching(Date.now() + 120_000);
    await vi.advanceTimersByTimeAsync(5_000);
    await refresh('refund', 'invoice');
    await vi.advanceTimersByTimeAsync(120_000);
    await done;
    expect(changes).toEqual([SETTLE_MS + 5_000 + SETTLE_MS + 1_000]);
  });

  it('reads the catalog once per poll interval', async () => {
    const read = vi.spyOn(catalog, 'read');
    const { done } = watching(Date.now() + 10_000);
    await vi.advanceTimersByTimeAsync(10_000);
    await done;
    expect(read).toHaveBeenCalledTimes(1 + 5);
  });

  it('ends when its client goes away', async () => {
    const abort = new AbortController();
    const { done } = watching(Date.now() + 600_000, abort.signal);
    await vi.advanceTimersByTimeAsync(3_000);
    abort.abort();
    await expect(done).resolves.toBeUndefined();
  });

  it('rejects when a read of the catalog fails', async () => {
    const { done } = watching(Date.now() + 600_000);
    const failed = expect(done).rejects.toThrow('throttled');
    vi.spyOn(catalog, 'read').mockRejectedValue(new Error('throttled'));
    await vi.advanceTimersByTimeAsync(2_000);
    await failed;
  });
});
