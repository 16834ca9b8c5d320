// A tool's input schema from the EventBridge Schema Registry. The registry holds JSON Schema Draft 4 and OpenAPI 3.0
// documents; arguments are validated in draft-07 or 2020-12 (contract/tool-definition.ts), so both are converted to
// draft-07. Draft 4's changes (`id`, boolean `exclusiveMinimum`, …) are json-schema-migrate's, from Ajv's author.
// OpenAPI's own schema dialect is small enough to translate here, which the one maintained converter on npm would
// bring a CLI framework, lodash and a type generator into the refresher's bundle to do.
import { draft7 } from 'json-schema-migrate';
import type { JsonSchema } from '../contract/tool-definition.js';

/** The registry's schema types (DescribeSchema's `Type`). */
export type RegistrySchemaType = 'OpenApi3' | 'JSONSchemaDraft4';

/** A registry schema that cannot be a tool's input schema, with why. */
export class RegistrySchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegistrySchemaError';
  }
}

type Node = Record<string, unknown>;

/**
 * The draft-07 JSON Schema of a registry schema's `content`. For OpenAPI, the root is the only schema in
 * `components.schemas`, else the one named by `info.title`, else, for an event schema, what its `AWSEvent`'s `detail`
 * refers to (the event's payload, which is what a machine an event starts receives). Throws
 * {@link RegistrySchemaError} for text that is not JSON, a root that cannot be found or one that is not an object.
 */
export function inputSchemaFromRegistry(content: string, type: RegistrySchemaType): JsonSchema {
  let document: unknown;
  try {
    document = JSON.parse(content);
  } catch {
    throw new RegistrySchemaError('The registry schema is not valid JSON');
  }
  if (!isNode(document)) throw new RegistrySchemaError('The registry schema is not a JSON object');
  const schema = type === 'OpenApi3' ? fromOpenApi(document) : { ...document };
  delete schema['$schema'];
  draft7(schema);
  if (schema['type'] !== 'object')
    throw new RegistrySchemaError('The registry schema does not describe an object (its "type" must be "object")');
  return schema as JsonSchema;
}

function fromOpenApi(document: Node): Node {
  const components = isNode(document['components']) ? document['components'] : {};
  const schemas = isNode(components['schemas']) ? components['schemas'] : {};
  const names = Object.keys(schemas);
  const rootName = rootSchemaName(document, schemas, names);
  if (rootName === undefined)
    throw new RegistrySchemaError(
      `Cannot tell which of the OpenAPI schemas (${names.join(', ') || 'none'}) is the input: name it in info.title`,
    );
  const definitions = Object.fromEntries(names.map((name) => [name, openApiToJsonSchema(schemas[name])]));
  const root = { ...(definitions[rootName] as Node) };
  // Every schema stays reachable under definitions, as $refs from the root and from each other name them.
  return { ...root, definitions: { ...(root['definitions'] as Node | undefined), ...definitions } };
}

function rootSchemaName(document: Node, schemas: Node, names: string[]): string | undefined {
  if (names.length === 1) return names[0];
  const title = isNode(document['info']) ? document['info']['title'] : undefined;
  if (typeof title === 'string' && title in schemas) return title;
  const event = schemas['AWSEvent'];
  const detail = isNode(event) && isNode(event['properties']) ? event['properties']['detail'] : undefined;
  const ref = isNode(detail) ? detail['$ref'] : undefined;
  const referred = typeof ref === 'string' ? ref.replace(/^#\/components\/schemas\//, '') : undefined;
  return referred !== undefined && referred in schemas ? referred : undefined;
}

/** OpenAPI-only keywords: they mean nothing to a JSON Schema validator and would only clutter tools/list. */
const OPENAPI_ONLY = new Set(['discriminator', 'xml', 'externalDocs', 'example', 'deprecated']);

/** Keywords whose values are data (a default, the allowed values), never schemas to translate. */
const VALUE_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'required']);

/**
 * An OpenAPI 3.0 Schema Object as JSON Schema (draft 4's keywords, which migration then updates): `nullable` becomes a
 * `null` type, `example` an `examples` list, component refs point into `definitions`, and extensions (`x-…`) go.
 */
function openApiToJsonSchema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(openApiToJsonSchema);
  if (!isNode(value)) return value;
  const out: Node = {};
  for (const [key, child] of Object.entries(value)) {
    if (key.startsWith('x-') || OPENAPI_ONLY.has(key) || key === 'nullable') continue;
    if (key === '$ref' && typeof child === 'string')
      out[key] = child.replace(/^#\/components\/schemas\//, '#/definitions/');
    // Values, not schemas: kept exactly as written.
    else if (VALUE_KEYWORDS.has(key)) out[key] = child;
    // A map of property names: its keys are names, not keywords, so none is dropped.
    else if (key === 'properties' && isNode(child))
      out[key] = Object.fromEntries(Object.entries(child).map(([name, each]) => [name, openApiToJsonSchema(each)]));
    else out[key] = openApiToJsonSchema(child);
  }
  if ('example' in value) out['examples'] = [value['example']];
  if (value['nullable'] === true && typeof out['type'] === 'string') out['type'] = [out['type'], 'null'];
  return out;
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
