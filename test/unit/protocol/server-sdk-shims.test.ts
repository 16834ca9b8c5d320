import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { describe, expect, it } from 'vitest';
import { DefaultJsonSchemaValidator } from '../../../lambda/protocol/server-sdk-shims.js';

// The Lambda bundles validate with the shim, the tests with the SDK's own default: both must judge alike.
const SCHEMAS: Array<{ name: string; schema: Record<string, unknown>; inputs: unknown[] }> = [
  {
    name: 'a 2020-12 schema (no $schema): prefixItems, formats, required',
    schema: {
      type: 'object',
      properties: {
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false },
        email: { type: 'string', format: 'email' },
      },
      required: ['email'],
    },
    inputs: [
      { email: 'a@example.com', pair: ['x', 1] },
      { email: 'not-an-email' },
      { email: 'a@example.com', pair: ['x', 1, 2] },
      { pair: ['x', 1] },
    ],
  },
  {
    name: 'a draft-07 schema: array-form items, date-time format',
    schema: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        tuple: { type: 'array', items: [{ type: 'string' }], additionalItems: false },
        at: { type: 'string', format: 'date-time' },
      },
    },
    inputs: [{ tuple: ['x'] }, { tuple: ['x', 'y'] }, { at: '2026-12-02T10:00:00Z' }, { at: 'yesterday' }],
  },
];

describe('the Lambda bundles’ stand-in for @modelcontextprotocol/server/_shims', () => {
  for (const { name, schema, inputs } of SCHEMAS) {
    it(`accepts and refuses what the SDK's default validator does, for ${name}`, () => {
      const ours = new DefaultJsonSchemaValidator().getValidator(schema);
      const sdks = new AjvJsonSchemaValidator().getValidator(schema);
      const verdicts = inputs.map((input) => ({ ours: ours(input).valid, sdk: sdks(input).valid }));
      expect(verdicts.map((verdict) => verdict.ours)).toEqual(verdicts.map((verdict) => verdict.sdk));
      // Both outcomes occur, so the comparison cannot pass by accepting (or refusing) everything.
      expect(new Set(verdicts.map((verdict) => verdict.ours))).toEqual(new Set([true, false]));
    });
  }

  it('names what is wrong when it refuses', () => {
    const result = new DefaultJsonSchemaValidator().getValidator({ type: 'object', required: ['email'] })({});
    expect(result).toMatchObject({ valid: false });
    expect(result.errorMessage).toContain('email');
  });
});
