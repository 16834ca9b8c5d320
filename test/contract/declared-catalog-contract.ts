// The DeclaredCatalogStore contract (lambda/store/declared-catalog-store.ts) as one suite, run on every
// implementation: DynamoDB Local (test/integration/dynamodb-declared-catalog.test.ts) and in memory
// (test/unit/store/in-memory-declared-catalog.test.ts).
import { beforeEach, describe, expect, it } from 'vitest';
import { declaredCatalogKey } from '../../lambda/contract/declared-tool-catalog.js';
import type { StepFunctionsToolDefinition, ToolDefinition } from '../../lambda/contract/tool-definition.js';
import type { DeclaredCatalogStore } from '../../lambda/store/declared-catalog-store.js';
import type { MakeFixture } from './task-fixtures.js';

const machine = (name: string) => `arn:aws:states:us-east-1:123456789012:stateMachine:${name}`;
const tool = (name: string, extra: Partial<StepFunctionsToolDefinition> = {}): ToolDefinition => ({
  name,
  description: `The ${name} machine.`,
  inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  stateMachineArn: machine(name),
  ...extra,
});

export function declaredCatalogContract(name: string, make: MakeFixture<DeclaredCatalogStore>): void {
  describe(`${name} (DeclaredCatalogStore contract)`, () => {
    let store: DeclaredCatalogStore;
    beforeEach(async () => {
      store = await make();
    });

    it('reads nothing under a key no catalog was written to', async () => {
      expect(await store.read(declaredCatalogKey('absent'))).toBeNull();
    });

    it('reads back every tool as written, in order, an EXPRESS tool with its wrapper and its own machine', async () => {
      const tools = [
        tool('refund', { title: 'Refund', taskSupport: 'required', inputBeforeTask: true }),
        tool('invoice', {
          stateMachineArn: machine('invoice-wrapper'),
          expressStateMachineArn: machine('invoice'),
          taskSupport: 'forbidden',
          requiredClientCapabilities: { sampling: {} },
        }),
      ];
      await store.write(declaredCatalogKey('v1'), tools);
      expect(await store.read(declaredCatalogKey('v1'))).toEqual(tools);
    });

    it("reads back a durable tool as its function's qualified ARN, beside a state machine's tool", async () => {
      const tools: ToolDefinition[] = [
        tool('refund'),
        {
          name: 'review',
          description: 'The review function.',
          inputSchema: { type: 'object' },
          durableFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:review:live',
        },
      ];
      await store.write(declaredCatalogKey('durable'), tools);
      expect(await store.read(declaredCatalogKey('durable'))).toEqual(tools);
    });

    it('keeps each version under its own key, so a new version leaves the one instances still read', async () => {
      await store.write(declaredCatalogKey('v1'), [tool('refund')]);
      await store.write(declaredCatalogKey('v2'), [tool('refund'), tool('invoice')]);
      expect((await store.read(declaredCatalogKey('v1')))?.map((each) => each.name)).toEqual(['refund']);
      expect((await store.read(declaredCatalogKey('v2')))?.map((each) => each.name)).toEqual(['refund', 'invoice']);
    });

    it('stores an empty catalog as a catalog, not as none', async () => {
      await store.write(declaredCatalogKey('empty'), []);
      expect(await store.read(declaredCatalogKey('empty'))).toEqual([]);
    });
  });
}
