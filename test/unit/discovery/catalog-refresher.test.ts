// The catalog refresher on in-memory parts: it reads only what the selection needs, stores the catalog, tells a
// change from a refresh that found the same tools, and leaves the stored catalog alone when a read fails.
import { describe, expect, it, vi } from 'vitest';
import { DISCOVERY_TAGS } from '../../../lambda/contract/discovery-selection.js';
import {
  CatalogRefresher,
  type SchemaSource,
  type StateMachineSource,
} from '../../../lambda/discovery/catalog-refresher.js';
import { InMemoryDiscoveredCatalog } from '../../../lambda/store/in-memory-discovered-catalog.js';
import { RecordingLogger } from '../../support/in-memory-backend.js';

const ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:';
const SCHEMA_ARN = 'arn:aws:schemas:us-east-1:123456789012:schema/orders/Refund';

interface FakeMachine {
  type?: 'STANDARD' | 'EXPRESS';
  tags: Record<string, string>;
  definition?: string;
}

/** An account of machines by name, counting the reads the refresher makes. */
function account(machines: Record<string, FakeMachine>) {
  const reads = { tags: [] as string[], definition: [] as string[] };
  let failTags = false;
  const source: StateMachineSource = {
    list: async () =>
      Object.entries(machines).map(([name, machine]) => ({ name, arn: ARN + name, type: machine.type ?? 'STANDARD' })),
    tags: async (arn) => {
      reads.tags.push(arn);
      if (failTags) throw new Error('ThrottlingException');
      return machines[arn.slice(ARN.length)]?.tags ?? {};
    },
    definition: async (arn) => {
      reads.definition.push(arn);
      return machines[arn.slice(ARN.length)]?.definition;
    },
  };
  return { source, reads, failTagsFromNowOn: () => (failTags = true) };
}

const schemas: SchemaSource = {
  describe: async (arn) =>
    arn === SCHEMA_ARN
      ? { type: 'JSONSchemaDraft4', content: JSON.stringify({ type: 'object', required: ['orderId'] }), version: '3' }
      : null,
};

function refresher(source: StateMachineSource, store = new InMemoryDiscoveredCatalog()) {
  const logger = new RecordingLogger();
  const refresh = new CatalogRefresher({
    machines: source,
    schemas,
    store,
    selection: { namePrefix: 'orders-', tag: { key: 'mcp:tool', value: 'true' } },
    reservedNames: new Set(['text_stats']),
    clock: { now: () => 1_000 },
    logger,
  });
  return { refresh, store, logger };
}

const ASL = JSON.stringify({ Comment: 'Refunds an order.', StartAt: 'x', States: {} });

describe('CatalogRefresher', () => {
  it('stores the tools of the machines the selection takes, with their registry schemas', async () => {
    const { source } = account({
      'orders-refund': { tags: { 'mcp:tool': 'true', [DISCOVERY_TAGS.inputSchemaArn]: SCHEMA_ARN }, definition: ASL },
      'orders-internal': { tags: {}, definition: ASL },
    });
    const { refresh, store } = refresher(source);
    expect(await refresh.refresh()).toEqual({ tools: 1, skipped: [], changed: true });
    expect((await store.read())?.tools).toEqual([
      expect.objectContaining({
        name: 'orders-refund',
        description: 'Refunds an order.',
        inputSchema: expect.objectContaining({ required: ['orderId'] }),
      }),
    ]);
  });

  it('reads no tags nor definition of a machine its name leaves out, nor a definition of one its tag leaves out', async () => {
    const { source, reads } = account({
      'billing-run': { tags: { 'mcp:tool': 'true' }, definition: ASL },
      'orders-untagged': { tags: {}, definition: ASL },
    });
    await refresher(source).refresh.refresh();
    expect(reads.tags).toEqual([`${ARN}orders-untagged`]);
    expect(reads.definition).toEqual([]);
  });

  it('tells a refresh that found the same tools from one that did not', async () => {
    const machines: Record<string, FakeMachine> = {
      'orders-refund': { tags: { 'mcp:tool': 'true' }, definition: ASL },
    };
    const { source } = account(machines);
    const { refresh, store } = refresher(source);
    await refresh.refresh();
    expect((await refresh.refresh()).changed).toBe(false);
    machines['orders-refund']!.tags = {};
    expect(await refresh.refresh()).toMatchObject({ tools: 0, changed: true });
    expect((await store.read())?.tools).toEqual([]);
  });

  it('passes over a machine deleted since it was listed, and logs each machine it could not make a tool', async () => {
    const { source } = account({
      'orders-gone': { tags: { 'mcp:tool': 'true' } },
      'orders-bad': { tags: { 'mcp:tool': 'true', [DISCOVERY_TAGS.inputSchemaArn]: 'arn:missing' }, definition: ASL },
    });
    const { refresh, logger } = refresher(source);
    const report = await refresh.refresh();
    expect(report).toMatchObject({ tools: 0, skipped: [{ arn: `${ARN}orders-bad` }] });
    expect(logger.warnings()).toEqual(['State machine not made a tool']);
  });

  it("logs a skipped machine's reason once, not on every refresh; again when it changes or comes back", async () => {
    const machines: Record<string, FakeMachine> = {
      'orders-bad': { tags: { 'mcp:tool': 'true', [DISCOVERY_TAGS.inputSchemaArn]: 'arn:missing' }, definition: ASL },
    };
    const { source } = account(machines);
    const { refresh, logger } = refresher(source);
    for (let run = 0; run < 5; run++) await refresh.refresh();
    expect(logger.records.filter((record) => record.level === 'warn')).toEqual([
      {
        level: 'warn',
        message: 'State machine not made a tool',
        extra: { arn: `${ARN}orders-bad`, reason: expect.stringContaining(DISCOVERY_TAGS.inputSchemaArn) },
      },
    ]);
    // A different reason is logged once more.
    machines['orders-bad']!.tags = { 'mcp:tool': 'true', [DISCOVERY_TAGS.taskSupport]: 'always' };
    await refresh.refresh();
    await refresh.refresh();
    expect(logger.warnings()).toHaveLength(2);
    // Fixed, then broken again: the same reason as before is news again.
    machines['orders-bad']!.tags = { 'mcp:tool': 'true' };
    expect(await refresh.refresh()).toMatchObject({ tools: 1, skipped: [] });
    machines['orders-bad']!.tags = { 'mcp:tool': 'true', [DISCOVERY_TAGS.taskSupport]: 'always' };
    await refresh.refresh();
    expect(logger.warnings()).toHaveLength(3);
  });

  it('refuses a selection tag value that differs only in case, with one warning naming the tag, value and the accepted one', async () => {
    const { source, reads } = account({
      'orders-capital': { tags: { 'mcp:tool': 'True' }, definition: ASL },
      'orders-opted-out': { tags: { 'mcp:tool': 'false' }, definition: ASL },
    });
    const { refresh, logger } = refresher(source);
    const report = await refresh.refresh();
    await refresh.refresh();
    expect(report).toEqual({
      tools: 0,
      skipped: [
        { arn: `${ARN}orders-capital`, reason: expect.stringContaining("its tag mcp:tool is 'True', not 'true'") },
      ],
      changed: true, // the first catalog stored
    });
    expect(logger.records.filter((record) => record.level === 'warn')).toEqual([
      {
        level: 'warn',
        message: 'State machine not made a tool',
        extra: { arn: `${ARN}orders-capital`, reason: expect.stringContaining("set it to 'true'") },
      },
    ]);
    // Not a tool, so its definition is not read (IAM allows that only of a machine the tag selects).
    expect(reads.definition).toEqual([]);
  });

  it("keeps for the operator each machine's decision: refused ones first with why, then the tools, then the untagged", async () => {
    const { source } = account({
      'orders-refund': { tags: { 'mcp:tool': 'true' }, definition: ASL },
      'orders-bad': { tags: { 'mcp:tool': 'true', [DISCOVERY_TAGS.inputSchemaArn]: 'arn:missing' }, definition: ASL },
      'orders-capital': { tags: { 'mcp:tool': 'True' }, definition: ASL },
      'orders-opted-out': { tags: { 'mcp:tool': 'false' }, definition: ASL },
      'orders-internal': { tags: {}, definition: ASL },
      'billing-run': { tags: { 'mcp:tool': 'true' }, definition: ASL },
    });
    const { refresh, store } = refresher(source);
    await refresh.refresh();
    expect(await store.readReport()).toEqual({
      machines: [
        { arn: `${ARN}orders-bad`, name: 'orders-bad', reason: expect.stringContaining('could not be read') },
        {
          arn: `${ARN}orders-capital`,
          name: 'orders-capital',
          reason: expect.stringContaining("is 'True', not 'true'"),
        },
        { arn: `${ARN}orders-refund`, name: 'orders-refund', tool: 'orders-refund' },
        { arn: `${ARN}orders-internal`, name: 'orders-internal', reason: expect.stringMatching(/no tag mcp:tool/) },
        { arn: `${ARN}orders-opted-out`, name: 'orders-opted-out', reason: "its tag mcp:tool is 'false', not 'true'" },
      ],
      omitted: 0,
      refreshedAt: 1_000,
    });
  });

  it('runs one refresh at a time: those asked for during one share a single refresh after it', async () => {
    const { source } = account({ 'orders-refund': { tags: { 'mcp:tool': 'true' }, definition: ASL } });
    let listings = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const gated: StateMachineSource = {
      ...source,
      list: async () => {
        listings += 1;
        if (listings === 1) await gate;
        return source.list();
      },
    };
    const { refresh } = refresher(gated);
    const first = refresh.refresh();
    const during = [refresh.refresh(), refresh.refresh()];
    await vi.waitFor(() => expect(listings).toBe(1));
    release();
    await Promise.all([first, ...during]);
    expect(listings).toBe(2);
    await refresh.refresh();
    expect(listings).toBe(3);
  });

  it('joins the queued refresh when asked just as the one before it ends, rather than starting a second beside it', async () => {
    const { source } = account({ 'orders-refund': { tags: { 'mcp:tool': 'true' }, definition: ASL } });
    let listing = 0;
    let mostAtOnce = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const counted: StateMachineSource = {
      ...source,
      list: async () => {
        listing += 1;
        mostAtOnce = Math.max(mostAtOnce, listing);
        try {
          if (mostAtOnce === 1 && listing === 1) await gate;
          return await source.list();
        } finally {
          listing -= 1;
        }
      },
    };
    const { refresh } = refresher(counted);
    const first = refresh.refresh();
    const queued = refresh.refresh();
    release();
    await first;
    // The first has ended, the queued one has not started yet: a refresh asked for now must be that one.
    const asked = refresh.refresh();
    await Promise.all([queued, asked]);
    expect(mostAtOnce).toBe(1);
  });

  it('fails whole when a read fails, leaving the stored catalog as it was', async () => {
    const { source, failTagsFromNowOn } = account({
      'orders-refund': { tags: { 'mcp:tool': 'true' }, definition: ASL },
    });
    const { refresh, store } = refresher(source);
    await refresh.refresh();
    const before = await store.read();
    failTagsFromNowOn();
    const report = await store.readReport();
    await expect(refresh.refresh()).rejects.toThrow('ThrottlingException');
    expect(await store.read()).toEqual(before);
    expect(await store.readReport()).toEqual(report);
  });
});
