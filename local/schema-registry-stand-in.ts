// The local stand-in for the EventBridge Schema Registry: a loopback server speaking the three operations of its REST
// API that discovery needs, to the unchanged @aws-sdk/client-schemas. CreateSchema and UpdateSchema (each update a new
// version, as in AWS) let a test or `npm start` put a schema; DescribeSchema answers the latest version, or the one
// asked for. That is all the catalog refresher reads of the registry, so nothing else is modelled: no discovery of
// event schemas, no code bindings, no registry policies.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './local-aws.js';

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

const PATH = /^\/v1\/registries\/name\/([^/]+)\/schemas\/name\/([^/?]+)$/;
const TYPES = ['OpenApi3', 'JSONSchemaDraft4'];

/** `port`: 0 or undefined picks a free port. */
export async function startSchemaRegistryStandIn(options: { port?: number } = {}): Promise<SchemaRegistryStandIn> {
  const schemas = new Map<string, SchemaVersion[]>();
  const schemaArn = (registry: string, name: string) =>
    `arn:aws:schemas:${LOCAL_REGION}:${LOCAL_ACCOUNT}:schema/${registry}/${name}`;

  const describe = (registry: string, name: string, version: SchemaVersion) => ({
    Content: version.content,
    SchemaArn: schemaArn(registry, name),
    SchemaName: name,
    SchemaVersion: version.version,
    Type: version.type,
    LastModified: version.created,
    VersionCreatedDate: version.created,
    Tags: {},
  });

  const handle = async (request: IncomingMessage, url: URL): Promise<[number, Record<string, unknown>]> => {
    const match = PATH.exec(url.pathname);
    if (match === null) return [404, { Code: 'NotFoundException', Message: `No such resource: ${url.pathname}` }];
    const [registry, name] = [decodeURIComponent(match[1]!), decodeURIComponent(match[2]!)];
    const key = `${registry}/${name}`;
    const versions = schemas.get(key) ?? [];
    if (request.method === 'GET') {
      const asked = url.searchParams.get('schemaVersion');
      const version = asked === null ? versions.at(-1) : versions.find((each) => each.version === asked);
      if (version === undefined) return [404, { Code: 'NotFoundException', Message: `Schema ${key} not found` }];
      return [200, describe(registry, name, version)];
    }
    if (request.method !== 'POST' && request.method !== 'PUT')
      return [405, { Code: 'BadRequestException', Message: `${request.method} is not supported here` }];
    const body = JSON.parse((await text(request)) || '{}') as { Content?: unknown; Type?: unknown };
    if (request.method === 'POST' && versions.length > 0)
      return [409, { Code: 'ConflictException', Message: `Schema ${key} already exists` }];
    if (request.method === 'PUT' && versions.length === 0)
      return [404, { Code: 'NotFoundException', Message: `Schema ${key} not found` }];
    const type = body.Type ?? versions.at(-1)?.type;
    if (typeof body.Content !== 'string' || typeof type !== 'string' || !TYPES.includes(type))
      return [
        400,
        { Code: 'BadRequestException', Message: `Content and a Type of ${TYPES.join(' or ')} are required` },
      ];
    const version = {
      content: body.Content,
      type,
      version: String(versions.length + 1),
      created: new Date().toISOString(),
    };
    schemas.set(key, [...versions, version]);
    return [request.method === 'POST' ? 201 : 200, describe(registry, name, version)];
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
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
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
