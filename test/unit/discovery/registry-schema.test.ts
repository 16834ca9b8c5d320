// Registry schemas as tool input schemas: Draft 4 and OpenAPI 3.0 documents become draft-07 JSON Schema that the tool
// registry validates arguments with, and what cannot be an input schema is refused with why.
import { describe, expect, it } from 'vitest';
import { inputSchemaFromRegistry, RegistrySchemaError } from '../../../lambda/discovery/registry-schema.js';
import { ToolRegistry } from '../../../lambda/tools/tool-registry.js';

/** Whether arguments pass the schema, validated as the tool registry validates every tool's arguments. */
async function accepts(
  schema: ReturnType<typeof inputSchemaFromRegistry>,
  args: Record<string, unknown>,
): Promise<boolean> {
  const registry = new ToolRegistry([{ name: 't', description: 'd', inputSchema: schema, stateMachineArn: 'arn' }]);
  try {
    await registry.validateArguments('t', args);
    return true;
  } catch {
    return false;
  }
}

describe('a JSON Schema Draft 4 registry schema', () => {
  const draft4 = JSON.stringify({
    $schema: 'http://json-schema.org/draft-04/schema#',
    id: 'https://example.com/refund',
    type: 'object',
    properties: { orderId: { type: 'string' }, amount: { type: 'number', minimum: 0, exclusiveMinimum: true } },
    required: ['orderId', 'amount'],
  });

  it('becomes draft-07: $id for id, numeric exclusiveMinimum', () => {
    const schema = inputSchemaFromRegistry(draft4, 'JSONSchemaDraft4');
    expect(schema).toMatchObject({
      $schema: 'http://json-schema.org/draft-07/schema',
      $id: 'https://example.com/refund',
      properties: { amount: { type: 'number', exclusiveMinimum: 0 } },
    });
    expect(schema).not.toHaveProperty('id');
  });

  it('validates arguments as the schema means them', async () => {
    const schema = inputSchemaFromRegistry(draft4, 'JSONSchemaDraft4');
    expect(await accepts(schema, { orderId: 'o-1', amount: 5 })).toBe(true);
    expect(await accepts(schema, { orderId: 'o-1', amount: 0 })).toBe(false);
    expect(await accepts(schema, { amount: 5 })).toBe(false);
  });
});

describe('an OpenAPI 3.0 registry schema', () => {
  const openApi = (schemas: Record<string, unknown>, title = 'Refund') =>
    JSON.stringify({ openapi: '3.0.0', info: { title, version: '1.0.0' }, paths: {}, components: { schemas } });
  const refund = {
    type: 'object',
    'x-amazon-events-source': 'orders',
    required: ['orderId'],
    properties: {
      orderId: { type: 'string', example: 'o-1' },
      note: { type: 'string', nullable: true },
      customer: { $ref: '#/components/schemas/Customer' },
      'x-not-an-extension': { type: 'integer' },
    },
  };
  const customer = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };

  it('takes the schema info.title names as the root, its refs pointing into definitions', async () => {
    const schema = inputSchemaFromRegistry(openApi({ Refund: refund, Customer: customer }), 'OpenApi3');
    expect(schema).toMatchObject({
      type: 'object',
      properties: {
        orderId: { type: 'string', examples: ['o-1'] },
        note: { type: ['string', 'null'] },
        customer: { $ref: '#/definitions/Customer' },
        'x-not-an-extension': { type: 'integer' },
      },
      definitions: { Customer: customer },
    });
    expect(schema).not.toHaveProperty('x-amazon-events-source');
    expect(await accepts(schema, { orderId: 'o-1', note: null, customer: { id: 'c' } })).toBe(true);
    expect(await accepts(schema, { orderId: 'o-1', customer: {} })).toBe(false);
  });

  it('takes the only schema as the root, whatever the title', () => {
    expect(inputSchemaFromRegistry(openApi({ Refund: refund }, 'Other'), 'OpenApi3')).toMatchObject({
      required: ['orderId'],
    });
  });

  it('takes, of an event schema, the payload its AWSEvent detail refers to', () => {
    const event = { type: 'object', properties: { detail: { $ref: '#/components/schemas/Refund' } } };
    const schema = inputSchemaFromRegistry(openApi({ AWSEvent: event, Refund: refund }, 'OrderEvent'), 'OpenApi3');
    expect(schema).toMatchObject({ required: ['orderId'] });
  });

  it('refuses a document whose root cannot be told, naming what to do', () => {
    expect(() => inputSchemaFromRegistry(openApi({ A: customer, B: customer }, 'C'), 'OpenApi3')).toThrow(
      /Cannot tell which of the OpenAPI schemas \(A, B\) is the input: name it in info.title/,
    );
  });
});

describe('what cannot be an input schema', () => {
  it('is refused: text that is not JSON, JSON that is not an object, a schema of something else', () => {
    expect(() => inputSchemaFromRegistry('{', 'JSONSchemaDraft4')).toThrow(RegistrySchemaError);
    expect(() => inputSchemaFromRegistry('[]', 'JSONSchemaDraft4')).toThrow(/not a JSON object/);
    expect(() => inputSchemaFromRegistry('{"type":"string"}', 'JSONSchemaDraft4')).toThrow(
      /does not describe an object/,
    );
  });
});
