import { describe, expect, it } from 'vitest';
import { InvalidToolArgumentsError, ToolNotFoundError } from '../../../lambda/core/errors.js';
import { ToolRegistry } from '../../../lambda/tools/tool-registry.js';

const tool = {
  name: 'sum',
  description: 'Adds numbers',
  inputSchema: {
    type: 'object',
    properties: { values: { type: 'array', items: { type: 'number' } } },
    required: ['values'],
  },
  stateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:sum',
} as const;

describe('tool registry', () => {
  it('finds a registered tool by name', () => {
    expect(new ToolRegistry([tool]).get('sum').stateMachineArn).toBe(tool.stateMachineArn);
  });

  it('throws ToolNotFoundError for an unknown tool', () => {
    expect(() => new ToolRegistry([tool]).get('nope')).toThrow(ToolNotFoundError);
  });

  it('accepts arguments that match the schema', async () => {
    await expect(new ToolRegistry([tool]).validateArguments('sum', { values: [1, 2] })).resolves.toBeUndefined();
  });

  it('rejects arguments that do not match, naming every problem', async () => {
    try {
      await new ToolRegistry([tool]).validateArguments('sum', { values: ['x', 2, 'y'] });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidToolArgumentsError);
      expect((error as InvalidToolArgumentsError).problems).toEqual([
        'arguments/values/0 must be number',
        'arguments/values/2 must be number',
      ]);
    }
  });

  it('refuses invalid and duplicate tool names, listing all problems at once', () => {
    expect(() => new ToolRegistry([tool, tool, { ...tool, name: 'bad name!' }])).toThrow(
      /registered more than once[\s\S]*must be 1-128 characters/,
    );
  });

  it('validates a schema without $schema in JSON Schema 2020-12, MCP’s default dialect', async () => {
    const tuple = {
      ...tool,
      name: 'pair',
      inputSchema: {
        type: 'object',
        properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } },
      },
    } as const;
    await expect(new ToolRegistry([tuple]).validateArguments('pair', { pair: ['a', 'b'] })).rejects.toThrow(
      InvalidToolArgumentsError,
    );
  });

  it('validates a schema that names draft-07 in draft-07', async () => {
    const legacy = {
      ...tool,
      name: 'legacy',
      inputSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { n: { type: 'integer' } },
      },
    } as const;
    const registry = new ToolRegistry([legacy]);
    await expect(registry.validateArguments('legacy', { n: 1 })).resolves.toBeUndefined();
    await expect(registry.validateArguments('legacy', { n: 1.5 })).rejects.toThrow(InvalidToolArgumentsError);
  });

  it('refuses a tool whose taskSupport is not forbidden, optional or required', () => {
    expect(() => new ToolRegistry([{ ...tool, taskSupport: 'maybe' as never }])).toThrow(
      /taskSupport "maybe" must be one of/,
    );
  });

  it('serves declared tools read after construction in place of its own, validating them with their new schemas', async () => {
    const registry = new ToolRegistry([tool]);
    await registry.validateArguments('sum', { values: [1] });
    const declared = { ...tool, inputSchema: { type: 'object', properties: { values: { type: 'string' } } } } as const;
    registry.serveDeclared([declared, { ...tool, name: 'product' }]);
    expect(registry.list().map((each) => each.name)).toEqual(['sum', 'product']);
    await expect(registry.validateArguments('sum', { values: 'one' })).resolves.toBeUndefined();
  });

  it('refuses invalid declared tools as the constructor does, keeping those it served', () => {
    const registry = new ToolRegistry([tool]);
    expect(() => registry.serveDeclared([tool, tool])).toThrow(/registered more than once/);
    expect(registry.list()).toEqual([tool]);
  });
});
