// An instance's tools follow the discovered-tools catalog: one read per interval, shared by concurrent requests, a
// replacement only when the catalog's digest changed, and the tools kept as they were when a read fails.
import { describe, expect, it, vi } from 'vitest';
import type { ToolDefinition } from '../../../lambda/contract/tool-definition.js';
import { DiscoveredToolsFollower } from '../../../lambda/service/discovered-tools-follower.js';
import type { StoredCatalog } from '../../../lambda/store/discovered-catalog-store.js';
import { ToolRegistry } from '../../../lambda/tools/tool-registry.js';
import { RecordingLogger } from '../../support/in-memory-backend.js';

const tool = (name: string): ToolDefinition => ({
  name,
  description: name,
  inputSchema: { type: 'object' },
  stateMachineArn: `arn:aws:states:us-east-1:000000000000:stateMachine:${name}`,
});

function setUp(first: StoredCatalog | null) {
  let now = 0;
  let stored = first;
  const read = vi.fn(async () => stored);
  const tools = new ToolRegistry([]);
  const logger = new RecordingLogger();
  const follower = new DiscoveredToolsFollower({
    catalog: { read },
    tools,
    clock: { now: () => now },
    logger,
    readIntervalMs: 1_000,
  });
  return {
    follower,
    tools,
    read,
    logger,
    advance: (ms: number) => (now += ms),
    store: (catalog: StoredCatalog | null) => (stored = catalog),
  };
}

const catalog = (digest: string, ...names: string[]): StoredCatalog => ({
  tools: names.map(tool),
  digest,
  refreshedAt: 0,
  changedAt: 0,
});

describe('DiscoveredToolsFollower', () => {
  it('serves the catalog’s tools on the first request, then reads no more within the interval', async () => {
    const { follower, tools, read, advance } = setUp(catalog('a', 'refund'));
    expect(await follower.freshen()).toBe(true);
    expect(tools.list().map((each) => each.name)).toEqual(['refund']);
    advance(999);
    expect(await follower.freshen()).toBe(false);
    expect(read).toHaveBeenCalledTimes(1);
  });

  it('shares one read among concurrent requests', async () => {
    const { follower, read } = setUp(catalog('a', 'refund'));
    await Promise.all([follower.freshen(), follower.freshen(), follower.freshen()]);
    expect(read).toHaveBeenCalledTimes(1);
  });

  it('replaces the tools when the digest changed after the interval, and only then', async () => {
    const { follower, tools, advance, store } = setUp(catalog('a', 'refund'));
    await follower.freshen();
    advance(1_000);
    expect(await follower.freshen()).toBe(false);
    store(catalog('b', 'invoice'));
    advance(1_000);
    expect(await follower.freshen()).toBe(true);
    expect(tools.list().map((each) => each.name)).toEqual(['invoice']);
    store(null);
    advance(1_000);
    await follower.freshen();
    expect(tools.list()).toEqual([]);
  });

  it('keeps the tools as they were when a read fails, and reads again on the next request', async () => {
    const { follower, tools, read, logger, advance } = setUp(catalog('a', 'refund'));
    await follower.freshen();
    advance(1_000);
    read.mockRejectedValueOnce(new Error('ProvisionedThroughputExceededException'));
    expect(await follower.freshen()).toBe(false);
    expect(tools.list().map((each) => each.name)).toEqual(['refund']);
    expect(logger.warnings()).toEqual(['Could not read the discovered tools']);
    await follower.freshen();
    expect(read).toHaveBeenCalledTimes(3);
  });
});
