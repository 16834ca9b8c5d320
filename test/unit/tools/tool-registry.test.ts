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

  it('accepts arguments that match the schema', () => {
    expect(() => new ToolRegistry([tool]).validateArguments('sum', { values: [1, 2] })).not.toThrow();
  });

  it('rejects arguments that do not match, naming every problem', () => {
    try {
      new ToolRegistry([tool]).validateArguments('sum', { values: ['x', 2, 'y'] });
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

  it('validates a schema without $schema in JSON Schema 2020-12, MCP’s default dialect', () => {
    const tuple = {
      ...tool,
      name: 'pair',
      inputSchema: {
        type: 'object',
        properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } },
      },
    } as const;
    expect(() => new ToolRegistry([tuple]).validateArguments('pair', { pair: ['a', 'b'] })).toThrow(
      InvalidToolArgumentsError,
    );
  });

  it('validates a schema that names draft-07 in draft-07', () => {
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
    expect(() => registry.validateArguments('legacy', { n: 1 })).not.toThrow();
    expect(() => registry.validateArguments('legacy', { n: 1.5 })).toThrow(InvalidToolArgumentsError);
  });

  it('refuses a tool whose taskSupport is not forbidden, optional or required', () => {
    expect(() => new ToolRegistry([{ ...tool, taskSupport: 'maybe' as never }])).toThrow(
      /taskSupport "maybe" must be one of/,
    );
  });

  it('serves declared tools read after construction in place of its own, validating them with their new schemas', () => {
    const registry = new ToolRegistry([tool]);
    registry.validateArguments('sum', { values: [1] });
    const declared = { ...tool, inputSchema: { type: 'object', properties: { values: { type: 'string' } } } } as const;
    registry.serveDeclared([declared, { ...tool, name: 'product' }]);
    expect(registry.list().map((each) => each.name)).toEqual(['sum', 'product']);
    expect(() => registry.validateArguments('sum', { values: 'one' })).not.toThrow();
  });

  it('refuses invalid declared tools as the constructor does, keeping those it served', () => {
    const registry = new ToolRegistry([tool]);
    expect(() => registry.serveDeclared([tool, tool])).toThrow(/registered more than once/);
    expect(registry.list()).toEqual([tool]);
  });
});
