// The DiscoveredCatalogStore contract (lambda/store/discovered-catalog-store.ts) as one suite, run on every
// implementation: DynamoDB Local (test/integration/dynamodb-discovered-catalog.test.ts) and in memory
// (test/unit/store/in-memory-discovered-catalog.test.ts).
import { beforeEach, describe, expect, it } from 'vitest';
import type { StepFunctionsToolDefinition } from '../../lambda/contract/tool-definition.js';
import type { DiscoveredCatalogStore } from '../../lambda/store/discovered-catalog-store.js';
import type { MakeFixture } from './task-fixtures.js';

const tool = (name: string, extra: Partial<StepFunctionsToolDefinition> = {}): StepFunctionsToolDefinition => ({
  name,
  description: `The ${name} machine.`,
  inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  stateMachineArn: `arn:aws:states:us-east-1:123456789012:stateMachine:${name}`,
  taskSupport: 'optional',
  ...extra,
});

export function discoveredCatalogContract(name: string, make: MakeFixture<DiscoveredCatalogStore>): void {
  describe(`${name} (DiscoveredCatalogStore contract)`, () => {
    let store: DiscoveredCatalogStore;
    beforeEach(async () => {
      store = await make();
    });

    it('reads nothing before the first write', async () => {
      expect(await store.read()).toBeNull();
    });

    it('reads back the tools as written, with when they were refreshed', async () => {
      const tools = [tool('refund'), tool('invoice', { expressStateMachineArn: 'arn:x', taskSupport: 'forbidden' })];
      await store.write(tools, 1_000);
      expect(await store.read()).toMatchObject({
        tools,
        refreshedAt: 1_000,
        changedAt: 1_000,
        digest: expect.any(String),
      });
    });

    it('tells a change of the tools from a refresh that found the same ones, by answer and by digest', async () => {
      expect(await store.write([tool('refund')], 1_000)).toEqual({ changed: true });
      const first = (await store.read())!;
      expect(await store.write([tool('refund')], 2_000)).toEqual({ changed: false });
      expect(await store.read()).toMatchObject({ digest: first.digest, refreshedAt: 2_000 });
      expect(await store.write([tool('refund', { description: 'Now described.' })], 3_000)).toEqual({ changed: true });
      expect((await store.read())!.digest).not.toBe(first.digest);
      expect(await store.write([], 4_000)).toEqual({ changed: true });
      expect(await store.read()).toMatchObject({ tools: [] });
    });

    it('records when the tools last changed, which a refresh finding the same tools leaves alone', async () => {
      await store.write([tool('refund')], 1_000);
      await store.write([tool('refund')], 2_000);
      expect(await store.read()).toMatchObject({ refreshedAt: 2_000, changedAt: 1_000 });
      await store.write([tool('invoice')], 3_000);
      await store.write([tool('invoice')], 4_000);
      expect(await store.read()).toMatchObject({ refreshedAt: 4_000, changedAt: 3_000 });
    });
  });
}
