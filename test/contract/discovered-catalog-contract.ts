// The DiscoveredCatalogStore contract (lambda/store/discovered-catalog-store.ts) as one suite, run on every
// implementation: DynamoDB Local (test/integration/dynamodb-discovered-catalog.test.ts) and in memory
// (test/unit/store/in-memory-discovered-catalog.test.ts).
import { beforeEach, describe, expect, it } from 'vitest';
import type { StepFunctionsToolDefinition } from '../../lambda/contract/tool-definition.js';
import {
  MAX_REASON_LENGTH,
  MAX_REPORT_BYTES,
  MAX_REPORTED_MACHINES,
  type DiscoveredCatalogStore,
  type MachineDecision,
} from '../../lambda/store/discovered-catalog-store.js';
import type { MakeFixture } from './task-fixtures.js';

const tool = (name: string, extra: Partial<StepFunctionsToolDefinition> = {}): StepFunctionsToolDefinition => ({
  name,
  description: `The ${name} machine.`,
  inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  stateMachineArn: `arn:aws:states:us-east-1:123456789012:stateMachine:${name}`,
  taskSupport: 'optional',
  ...extra,
});

const ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:';

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

    it('reads no report before the first, then the decisions as written, each write replacing the last', async () => {
      expect(await store.readReport()).toBeNull();
      const first: MachineDecision[] = [
        {
          arn: `${ARN}bad`,
          name: 'bad',
          reason: 'the registry schema its tag mcp:input-schema-arn names could not be read',
        },
        { arn: `${ARN}refund`, name: 'refund', tool: 'refund' },
      ];
      await store.writeReport(first, 1_000);
      expect(await store.readReport()).toEqual({ machines: first, omitted: 0, refreshedAt: 1_000 });
      await store.writeReport([first[1]!], 2_000);
      expect(await store.readReport()).toEqual({ machines: [first[1]], omitted: 0, refreshedAt: 2_000 });
    });

    it('keeps the report apart from the tools: writing one leaves the other as it was', async () => {
      await store.write([tool('refund')], 1_000);
      const catalog = await store.read();
      await store.writeReport([{ arn: `${ARN}refund`, name: 'refund', tool: 'refund' }], 2_000);
      expect(await store.read()).toEqual(catalog);
      await store.write([tool('invoice')], 3_000);
      expect(await store.readReport()).toMatchObject({ refreshedAt: 2_000, machines: [{ name: 'refund' }] });
    });

    it('caps the report to fit one item, saying how many decisions it left out, and cuts long reasons', async () => {
      // The largest a decision gets: an 80-character machine name in a long region's ARN, a reason far too long.
      const name = 'm'.repeat(76);
      const machines = Array.from({ length: MAX_REPORTED_MACHINES + 25 }, (_, index) => ({
        arn: `arn:aws:states:ap-southeast-4:123456789012:stateMachine:${name}${String(index).padStart(4, '0')}`,
        name: `${name}${String(index).padStart(4, '0')}`,
        reason: 'x'.repeat(5_000),
      }));
      await store.writeReport(machines, 1_000);
      const report = (await store.readReport())!;
      expect(report.omitted).toBe(25);
      expect(report.machines).toHaveLength(MAX_REPORTED_MACHINES);
      expect(report.machines[0]).toMatchObject({ arn: machines[0]!.arn, name: machines[0]!.name });
      expect(report.machines.every((decision) => decision.reason!.length === MAX_REASON_LENGTH)).toBe(true);
      expect(report.machines[0]!.reason!.endsWith('…')).toBe(true);
    });

    it('keeps a report of names and reasons in three-byte characters inside one item, by bytes, not by count', async () => {
      // Machine names and the tag values reasons quote may be any Unicode: 400 such decisions are over 500 KB.
      const name = '機'.repeat(76);
      const machines = Array.from({ length: MAX_REPORTED_MACHINES }, (_, index) => ({
        arn: `arn:aws:states:ap-southeast-4:123456789012:stateMachine:${name}${String(index).padStart(4, '0')}`,
        name: `${name}${String(index).padStart(4, '0')}`,
        reason: '値'.repeat(5_000),
      }));
      await store.writeReport(machines, 1_000);
      const report = (await store.readReport())!;
      expect(Buffer.byteLength(JSON.stringify(report.machines), 'utf8')).toBeLessThanOrEqual(MAX_REPORT_BYTES);
      expect(report.machines.length).toBeGreaterThan(100);
      expect(report.omitted).toBe(MAX_REPORTED_MACHINES - report.machines.length);
      expect(report.machines.every((decision) => Array.from(decision.reason!).length === MAX_REASON_LENGTH)).toBe(true);
    });
  });
}
