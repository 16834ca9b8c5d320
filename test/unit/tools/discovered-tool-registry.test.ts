// The registry's discovered tools: served beside the tools written in code, replaced as a whole, never in place of a
// code tool, each validated against its latest schema.
import { describe, expect, it } from 'vitest';
import { InvalidToolArgumentsError, ToolNotFoundError } from '../../../lambda/core/errors.js';
import type { ToolDefinition } from '../../../lambda/contract/tool-definition.js';
import { ToolRegistry } from '../../../lambda/tools/tool-registry.js';

const tool = (name: string, required: string[] = []): ToolDefinition => ({
  name,
  description: `The ${name} tool.`,
  inputSchema: { type: 'object', properties: { id: { type: 'string' }, note: { type: 'string' } }, required },
  stateMachineArn: `arn:aws:states:us-east-1:000000000000:stateMachine:${name}`,
});

describe('discovered tools in the registry', () => {
  it('are served beside the code tools, and replaced as a whole', () => {
    const registry = new ToolRegistry([tool('code')]);
    registry.replaceDiscovered([tool('refund'), tool('invoice')]);
    expect(registry.list().map((each) => each.name)).toEqual(['code', 'refund', 'invoice']);
    registry.replaceDiscovered([tool('invoice')]);
    expect(registry.list().map((each) => each.name)).toEqual(['code', 'invoice']);
    expect(() => registry.get('refund')).toThrow(ToolNotFoundError);
  });

  it('never take a code tool’s name, nor enter with an invalid definition, and say which were left out', () => {
    const registry = new ToolRegistry([tool('code')]);
    const invalid = { ...tool('bad name!') };
    expect(registry.replaceDiscovered([{ ...tool('code'), description: 'Impostor' }, invalid])).toEqual([
      expect.objectContaining({ name: 'code', description: 'Impostor' }),
      invalid,
    ]);
    expect(registry.get('code').description).toBe('The code tool.');
  });

  it('stay served when the declared tools come after them, but for one a declared tool’s name takes', () => {
    // An instance's first request (an initialize) reads the discovered catalog; its first tools/list the declared one.
    const registry = new ToolRegistry([]);
    registry.replaceDiscovered([tool('refund'), tool('invoice')]);
    registry.serveDeclared([tool('code'), { ...tool('invoice'), description: 'Declared.' }]);
    expect(registry.list().map((each) => each.name)).toEqual(['code', 'invoice', 'refund']);
    expect(registry.get('invoice').description).toBe('Declared.');
    registry.replaceDiscovered([tool('other')]);
    expect(registry.list().map((each) => each.name)).toEqual(['code', 'invoice', 'other']);
  });

  it('are validated against their latest schema after a replacement', async () => {
    const registry = new ToolRegistry([]);
    registry.replaceDiscovered([tool('refund')]);
    await registry.validateArguments('refund', {});
    registry.replaceDiscovered([tool('refund', ['id'])]);
    await expect(registry.validateArguments('refund', {})).rejects.toThrow(InvalidToolArgumentsError);
  });

  it('are validated against their latest schema when the replacement comes while a first check is compiling', async () => {
    // The first check of a process waits for Ajv's 2020-12 dialect to load; a refresh may land in between.
    const registry = new ToolRegistry([]);
    registry.replaceDiscovered([tool('refund')]);
    const first = registry.validateArguments('refund', {});
    registry.replaceDiscovered([tool('refund', ['id'])]);
    await first;
    await expect(registry.validateArguments('refund', {})).rejects.toThrow(InvalidToolArgumentsError);
  });
});
