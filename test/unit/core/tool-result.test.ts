import { describe, expect, it } from 'vitest';
import { toolResultFromOutput } from '../../../lambda/core/tool-result.js';

describe('tool result from state machine output', () => {
  it('takes an output that is already a CallToolResult as it is', () => {
    const output = { content: [{ type: 'text', text: 'hi' }], structuredContent: { a: 1 } };
    expect(toolResultFromOutput(output)).toEqual(output);
  });

  it('does not treat a content field that is not a list of blocks as MCP content', () => {
    expect(toolResultFromOutput({ content: 'plain' })).toEqual({
      content: [{ type: 'text', text: '{"content":"plain"}' }],
      structuredContent: { content: 'plain' },
    });
  });

  it('marks an object output with isError true as a tool error', () => {
    expect(toolResultFromOutput({ isError: true, reason: 'x' }).isError).toBe(true);
  });

  it('renders null as text', () => {
    expect(toolResultFromOutput(null)).toEqual({ content: [{ type: 'text', text: 'null' }] });
  });
});
