// The local stand-in for the EventBridge Schema Registry: a loopback server speaking the part of its REST API that
// discovery and a person setting it up need, to the unchanged @aws-sdk/client-schemas. Registries: CreateRegistry,
// DescribeRegistry, ListRegistries; AWS's own `aws.events` and `discovered-schemas` exist from the start, as they do
// in every account. Schemas, in a registry that exists (else NotFoundException, as AWS answers): CreateSchema and
// UpdateSchema (each update a new version, as in AWS) and DescribeSchema (the latest version, or the one asked for).
// Nothing else is modelled: no discovery of event schemas, no code bindings, no registry policies.
// With `stateFile`, registries and schemas are saved to it on each change and loaded from it at start.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './local-aws.js';
import { jsonStateFile } from './state-file.js';

export interface SchemaRegistryStandIn {
  /** Where SchemasClient reaches it (its `endpoint`). */
  readonly endpoint: string;
  /** The ARN DescribeSchema and a machine's schema tag name the schema by. */
  schemaArn(registryName: string, schemaName: string): string;
  stop(): Promise<void>;
}

interface SchemaVersion {
  readonly content: string;
  readonly type: string;
  readonly version: string;
  readonly created: string;
}

interface RegistryRecord {
  readonly name: string;
  readonly description?: string;
  readonly tags: Record<string, string>;
}

/** What the state file holds: the registries created (not AWS's own) and every schema's versions. */
interface SavedState {
  readonly registries: RegistryRecord[];
  readonly schemas: Array<{ readonly registry: string; readonly name: string; readonly versions: SchemaVersion[] }>;
}

/** The registries every account has. */
export const BUILT_IN_REGISTRIES = ['aws.events', 'discovered-schemas'] as const;

const REGISTRIES_PATH = '/v1/registries';
const REGISTRY_PATH = /^\/v1\/registries\/name\/([^/]+)$/;
const SCHEMA_PATH = /^\/v1\/registries\/name\/([^/]+)\/schemas\/name\/([^/?]+)$/;
const TYPES = ['OpenApi3', 'JSONSchemaDraft4'];

type Answer = [number, Record<string, unknown>];

const failure = (status: number, code: string, message: string): Answer => [status, { Code: code, Message: message }];
const registryMissing = (name: string): Answer =>
  failure(404, 'NotFoundException', `Registry with name ${name} does not exist.`);

export interface SchemaRegistryStandInOptions {
  /** 0 or undefined picks a free port. */
  readonly port?: number;
  /** A JSON file the registries and schemas are kept in across restarts. @default none: in memory only */
  readonly stateFile?: string;
}

export async function startSchemaRegistryStandIn(
  options: SchemaRegistryStandInOptions = {},
): Promise<SchemaRegistryStandIn> {
  const registries = new Map<string, RegistryRecord>(BUILT_IN_REGISTRIES.map((name) => [name, { name, tags: {} }]));
  const schemas = new Map<string, SchemaVersion[]>();
  const state =
    options.stateFile === undefined
      ? undefined
      : jsonStateFile<SavedState>(options.stateFile, () => ({
          registries: [...registries.values()].filter((each) => !isBuiltIn(each.name)),
          schemas: [...schemas].map(([key, versions]) => {
            const [registry, name] = splitKey(key);
            return { registry, name, versions };
          }),
        }));
  const saved = state?.load();
  for (const registry of saved?.registries ?? []) registries.set(registry.name, registry);
  for (const schema of saved?.schemas ?? []) schemas.set(`${schema.registry}/${schema.name}`, schema.versions);

  const registryArn = (name: string) => `arn:aws:schemas:${LOCAL_REGION}:${LOCAL_ACCOUNT}:registry/${name}`;
  const schemaArn = (registry: string, name: string) =>
    `arn:aws:schemas:${LOCAL_REGION}:${LOCAL_ACCOUNT}:schema/${registry}/${name}`;
  // Members go by their names on the wire: `tags`, where the SDK shows `Tags`.
  const describeRegistry = (registry: RegistryRecord) => ({
    RegistryArn: registryArn(registry.name),
    RegistryName: registry.name,
    tags: registry.tags,
    ...(registry.description !== undefined ? { Description: registry.description } : {}),
  });
  const describeSchema = (registry: string, name: string, version: SchemaVersion) => ({
    Content: version.content,
    SchemaArn: schemaArn(registry, name),
    SchemaName: name,
    SchemaVersion: version.version,
    Type: version.type,
    LastModified: version.created,
    VersionCreatedDate: version.created,
    tags: {},
  });

  const registryCall = async (request: IncomingMessage, name: string): Promise<Answer> => {
    const registry = registries.get(name);
    if (request.method === 'GET') return registry ? [200, describeRegistry(registry)] : registryMissing(name);
    if (request.method !== 'POST') return unsupported(request);
    if (registry !== undefined) return failure(409, 'ConflictException', `Registry with name ${name} already exists.`);
    const body = JSON.parse((await text(request)) || '{}') as { Description?: unknown; tags?: unknown };
    const created: RegistryRecord = {
      name,
      tags: isStringRecord(body.tags) ? body.tags : {},
      ...(typeof body.Description === 'string' ? { description: body.Description } : {}),
    };
    registries.set(name, created);
    state?.changed();
    return [201, describeRegistry(created)];
  };

  const schemaCall = async (request: IncomingMessage, url: URL, registry: string, name: string): Promise<Answer> => {
    if (!registries.has(registry)) return registryMissing(registry);
    const key = `${registry}/${name}`;
    const versions = schemas.get(key) ?? [];
    if (request.method === 'GET') {
      const asked = url.searchParams.get('schemaVersion');
      const version = asked === null ? versions.at(-1) : versions.find((each) => each.version === asked);
      if (version === undefined) return failure(404, 'NotFoundException', `Schema ${key} not found`);
      return [200, describeSchema(registry, name, version)];
    }
    if (request.method !== 'POST' && request.method !== 'PUT') return unsupported(request);
    const body = JSON.parse((await text(request)) || '{}') as { Content?: unknown; Type?: unknown };
    if (request.method === 'POST' && versions.length > 0)
      return failure(409, 'ConflictException', `Schema ${key} already exists`);
    if (request.method === 'PUT' && versions.length === 0)
      return failure(404, 'NotFoundException', `Schema ${key} not found`);
    const type = body.Type ?? versions.at(-1)?.type;
    if (typeof body.Content !== 'string' || typeof type !== 'string' || !TYPES.includes(type))
      return failure(400, 'BadRequestException', `Content and a Type of ${TYPES.join(' or ')} are required`);
    const version = {
      content: body.Content,
      type,
      version: String(versions.length + 1),
      created: new Date().toISOString(),
    };
    schemas.set(key, [...versions, version]);
    state?.changed();
    return [request.method === 'POST' ? 201 : 200, describeSchema(registry, name, version)];
  };

  const handle = async (request: IncomingMessage, url: URL): Promise<Answer> => {
    if (url.pathname === REGISTRIES_PATH) {
      if (request.method !== 'GET') return unsupported(request);
      const prefix = url.searchParams.get('registryNamePrefix') ?? '';
      // AWS's scope: AWS for its own registries, LOCAL for the account's.
      const scope = url.searchParams.get('scope');
      const listed = [...registries.values()].filter(
        (each) =>
          each.name.startsWith(prefix) && (scope === null || (scope === 'AWS') === (each.name === 'aws.events')),
      );
      return [
        200,
        {
          Registries: listed.map(({ name, tags }) => ({
            RegistryArn: registryArn(name),
            RegistryName: name,
            tags,
          })),
        },
      ];
    }
    const registryMatch = REGISTRY_PATH.exec(url.pathname);
    if (registryMatch !== null) return registryCall(request, decodeURIComponent(registryMatch[1]!));
    const schemaMatch = SCHEMA_PATH.exec(url.pathname);
    if (schemaMatch !== null)
      return schemaCall(request, url, decodeURIComponent(schemaMatch[1]!), decodeURIComponent(schemaMatch[2]!));
    return failure(404, 'NotFoundException', `No such resource: ${url.pathname}`);
  };

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    handle(request, new URL(request.url ?? '/', 'http://localhost')).then(
      ([status, body]) => answer(response, status, body),
      (error: unknown) => answer(response, 500, { Code: 'InternalServerErrorException', Message: String(error) }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    schemaArn,
    stop: () =>
      new Promise<void>((resolve) => {
        state?.flush();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const isBuiltIn = (name: string): boolean => (BUILT_IN_REGISTRIES as readonly string[]).includes(name);

function splitKey(key: string): [string, string] {
  const slash = key.indexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((each) => typeof each === 'string')
  );
}

function unsupported(request: IncomingMessage): Answer {
  request.resume();
  return failure(405, 'BadRequestException', `${request.method} is not supported here`);
}

function answer(response: ServerResponse, status: number, body: Record<string, unknown>): void {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  // The SDK reads an error's type from this header (restJson1).
  if (status >= 400 && typeof body['Code'] === 'string') headers['x-amzn-errortype'] = body['Code'];
  response.writeHead(status, headers).end(JSON.stringify(body));
}

async function text(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
