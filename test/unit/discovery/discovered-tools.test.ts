// What a team's own machines become as tools: names made valid for MCP and never two alike, descriptions and input
// schemas in order of precedence, and how each kind of machine may run.
import { describe, expect, it } from 'vitest';
import { DISCOVERY_TAGS } from '../../../lambda/contract/discovery-selection.js';
import {
  discoveredCatalog,
  OPEN_INPUT_SCHEMA,
  toolNameOf,
  toolOf,
  type DiscoveredMachine,
} from '../../../lambda/discovery/discovered-tools.js';

const ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:';
const machine = (name: string, extra: Partial<DiscoveredMachine> = {}): DiscoveredMachine => ({
  name,
  arn: `${ARN}${name}`,
  type: 'STANDARD',
  tags: { 'mcp:tool': 'true' },
  ...extra,
});
const selection = { tag: { key: 'mcp:tool', value: 'true' } };
const registrySchema = {
  type: 'JSONSchemaDraft4' as const,
  content: JSON.stringify({ type: 'object', properties: { id: { type: 'string' } }, required: ['id'] }),
};

describe('tool names', () => {
  it('keep what MCP allows and make every other character _', () => {
    expect(toolNameOf('orders-refund_v2.1')).toBe('orders-refund_v2.1');
    expect(toolNameOf('Rückerstattung (EU)')).toBe('R_ckerstattung__EU_');
  });

  it('are never two alike: the first machine by ARN keeps the name, the other is skipped and says why', () => {
    const catalog = discoveredCatalog([machine('a b'), machine('a_b'), machine('a:b')], selection);
    expect(catalog.tools.map((tool) => tool.stateMachineArn)).toEqual([`${ARN}a b`]);
    expect(catalog.skipped).toEqual([
      { arn: `${ARN}a:b`, reason: "its tool name 'a_b' is taken by another machine" },
      { arn: `${ARN}a_b`, reason: "its tool name 'a_b' is taken by another machine" },
    ]);
  });

  it('give way to the tools written in code', () => {
    const catalog = discoveredCatalog([machine('text_stats')], selection, new Set(['text_stats']));
    expect(catalog.tools).toEqual([]);
    expect(catalog.skipped[0]?.reason).toMatch(/is a tool written in code/);
  });

  it('skip a machine named as a status tool, saying the name is reserved', () => {
    const catalog = discoveredCatalog([machine('task_status')], selection);
    expect(catalog.tools).toEqual([]);
    expect(catalog.skipped[0]?.reason).toMatch(/'task_status' is reserved/);
  });

  it('count a machine listed twice once', () => {
    expect(discoveredCatalog([machine('a'), machine('a')], selection).tools).toHaveLength(1);
  });
});

describe('descriptions', () => {
  const definition = JSON.stringify({ Comment: 'Refunds an order.', StartAt: 'x', States: {} });

  it('come from the description tag first', () => {
    const tagged = machine('m', {
      tags: { 'mcp:tool': 'true', [DISCOVERY_TAGS.description]: 'From the tag.' },
      definition,
    });
    expect(toolOf(tagged, selection)).toMatchObject({ description: 'From the tag.' });
  });

  it('then from the definition’s top-level Comment', () => {
    expect(toolOf(machine('m', { definition }), selection)).toMatchObject({ description: 'Refunds an order.' });
  });

  it('else name the machine in a plain sentence', () => {
    expect(toolOf(machine('m', { definition: '{not json' }), selection)).toMatchObject({
      description: 'Runs the AWS Step Functions state machine m.',
    });
  });
});

describe('input schemas', () => {
  const withTags = (tags: Record<string, string>, extra: Partial<DiscoveredMachine> = {}) =>
    machine('m', { tags: { 'mcp:tool': 'true', ...tags }, ...extra });

  it('come from the registry when the schema-ARN tag names one', () => {
    const tool = toolOf(
      withTags({ [DISCOVERY_TAGS.inputSchemaArn]: 'arn:aws:schemas:…' }, { registrySchema }),
      selection,
    );
    expect(tool).toMatchObject({ inputSchema: { type: 'object', required: ['id'] } });
  });

  it('follow the selection’s own schema-ARN tag key', () => {
    const tool = toolOf(withTags({ schema: 'arn' }, { registrySchema }), {
      ...selection,
      inputSchemaArnTagKey: 'schema',
    });
    expect(tool).toMatchObject({ inputSchema: { required: ['id'] } });
  });

  it('then from an inline JSON Schema tag, else an open object', () => {
    const inline = JSON.stringify({ type: 'object', properties: { n: { type: 'integer' } } });
    expect(toolOf(withTags({ [DISCOVERY_TAGS.inputSchema]: inline }), selection)).toMatchObject({
      inputSchema: { properties: { n: { type: 'integer' } } },
    });
    expect(toolOf(withTags({}), selection)).toMatchObject({ inputSchema: OPEN_INPUT_SCHEMA });
  });

  it('skip the machine when its tag names a schema that could not be read or cannot be an input schema', () => {
    const unread = withTags({ [DISCOVERY_TAGS.inputSchemaArn]: 'arn' });
    expect(toolOf(unread, selection)).toEqual({ reason: expect.stringMatching(/could not be read/) });
    const notObject = withTags(
      { [DISCOVERY_TAGS.inputSchemaArn]: 'arn' },
      { registrySchema: { ...registrySchema, content: '{"type":"array"}' } },
    );
    expect(toolOf(notObject, selection)).toEqual({ reason: expect.stringMatching(/does not describe an object/) });
    expect(toolOf(withTags({ [DISCOVERY_TAGS.inputSchema]: '{"type":"string"}' }), selection)).toEqual({
      reason: `its tag ${DISCOVERY_TAGS.inputSchema} is not a JSON Schema of an object`,
    });
  });
});

describe('how a machine runs', () => {
  it('STANDARD: as a task when the client asks (optional), or as its task-support tag says', () => {
    expect(toolOf(machine('m'), selection)).toMatchObject({ taskSupport: 'optional', stateMachineArn: `${ARN}m` });
    const required = machine('m', { tags: { 'mcp:tool': 'true', [DISCOVERY_TAGS.taskSupport]: 'required' } });
    expect(toolOf(required, selection)).toMatchObject({ taskSupport: 'required' });
    const wrong = machine('m', { tags: { 'mcp:tool': 'true', [DISCOVERY_TAGS.taskSupport]: 'sometimes' } });
    expect(toolOf(wrong, selection)).toEqual({ reason: expect.stringMatching(/forbidden, optional, required/) });
  });

  it('EXPRESS: as a plain call through StartSyncExecution, never as a task', () => {
    const express = machine('m', {
      type: 'EXPRESS',
      tags: { 'mcp:tool': 'true', [DISCOVERY_TAGS.taskSupport]: 'required' },
    });
    expect(toolOf(express, selection)).toMatchObject({ taskSupport: 'forbidden', expressStateMachineArn: `${ARN}m` });
  });

  it('only for the machines the selection takes', () => {
    expect(discoveredCatalog([machine('m', { tags: {} })], selection)).toEqual({ tools: [], skipped: [] });
  });
});
