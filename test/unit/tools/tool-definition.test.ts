import { describe, expect, it } from 'vitest';
import {
  jsonSchemaDialect,
  STATUS_TOOL_NAMES,
  TASK_VIEW_TOOL_NAMES,
  toolDefinitionProblems,
  type TaskSupport,
} from '../../../lambda/contract/tool-definition.js';

const tool = { name: 'sum', inputSchema: { type: 'object' } } as const;

describe('tool definition problems', () => {
  it('accepts a tool with no taskSupport, and each of forbidden, optional and required', () => {
    expect(
      toolDefinitionProblems([
        tool,
        ...(['forbidden', 'optional', 'required'] as const).map((taskSupport, index) => ({
          ...tool,
          name: `t${index}`,
          taskSupport,
        })),
      ]),
    ).toEqual([]);
  });

  it('refuses the names of the status tools and the task view tools, which the endpoint serves itself', () => {
    const names = [...Object.values(STATUS_TOOL_NAMES), ...Object.values(TASK_VIEW_TOOL_NAMES)];
    expect(toolDefinitionProblems(names.map((name) => ({ ...tool, name })))).toEqual(
      names.map(
        (name) => `Tool name '${name}' is reserved: the endpoint serves it to follow tasks (status tools, task view)`,
      ),
    );
  });

  it('refuses any other taskSupport, naming the allowed values', () => {
    // A catalog read from JSON is not checked by the compiler.
    expect(toolDefinitionProblems([{ ...tool, taskSupport: 'always' as TaskSupport }])).toEqual([
      `Tool 'sum': taskSupport "always" must be one of 'forbidden', 'optional', 'required'`,
    ]);
  });

  it('accepts an inputSchema that names 2020-12 or draft-07 as its dialect, or none', () => {
    const schemas = [
      'https://json-schema.org/draft/2020-12/schema',
      'http://json-schema.org/draft-07/schema#',
      undefined,
    ];
    expect(
      toolDefinitionProblems(
        schemas.map((dialect, index) => ({
          name: `t${index}`,
          inputSchema: { type: 'object', ...(dialect ? { $schema: dialect } : {}) },
        })),
      ),
    ).toEqual([]);
  });

  it('refuses an inputSchema in a dialect its arguments could not be validated in', () => {
    expect(
      toolDefinitionProblems([
        { ...tool, inputSchema: { type: 'object', $schema: 'http://json-schema.org/draft-04/schema#' } },
      ]),
    ).toEqual([
      expect.stringMatching(
        /^Tool 'sum': inputSchema\.\$schema "http:\/\/json-schema\.org\/draft-04\/schema#" is not a supported dialect/,
      ),
    ]);
  });

  it('lists every problem of every tool at once', () => {
    const problems = toolDefinitionProblems([
      { name: 'bad name', inputSchema: { type: 'object' }, taskSupport: 'sometimes' as TaskSupport },
      { name: 'ok', inputSchema: { type: 'array' } as never },
    ]);
    expect(problems).toHaveLength(3);
  });
});

describe('JSON Schema dialect', () => {
  it('is 2020-12 when the schema names none, as MCP specifies', () => {
    expect(jsonSchemaDialect({ type: 'object' })).toBe('draft2020_12');
  });

  it('reads $schema with or without its empty fragment', () => {
    expect(jsonSchemaDialect({ type: 'object', $schema: 'http://json-schema.org/draft-07/schema' })).toBe('draft07');
    expect(jsonSchemaDialect({ type: 'object', $schema: 'https://json-schema.org/draft/2020-12/schema#' })).toBe(
      'draft2020_12',
    );
  });
});
