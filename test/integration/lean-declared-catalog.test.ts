// The declared catalog read without the AWS SDK (lean-declared-catalog.ts) on DynamoDB Local: the store contract (the
// SDK's store writes, the short path reads, from the environment as the MCP function's), the item as the construct
// writes it, and the refusals and faults a read meets, answered as the SDK's path answers them.
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { declaredCatalogAttributes, declaredCatalogKey } from '../../lambda/contract/declared-tool-catalog.js';
import { PARTITION_KEY } from '../../lambda/contract/task-table-schema.js';
import { ServiceBusyError } from '../../lambda/core/errors.js';
import { LeanDeclaredCatalog } from '../../lambda/handlers/lean-declared-catalog.js';
import type { DeclaredCatalogStore } from '../../lambda/store/declared-catalog-store.js';
import { DynamoDbDeclaredCatalog } from '../../lambda/store/dynamodb-declared-catalog.js';
import { localAwsEnvironment } from '../../local/local-aws.js';
import { declaredCatalogContract } from '../contract/declared-catalog-contract.js';
import { createTestTable, exampleTools, expressTools, localAwsClients } from '../support/local-backend.js';

/** The MCP function's environment on the local stack, with no shared config file for the SDK to read. */
const environment = (dynamoDbEndpoint = inject('dynamoDbEndpoint')) => ({
  ...localAwsEnvironment({ dynamoDbEndpoint, stepFunctionsEndpoint: inject('stepFunctionsEndpoint') }),
  AWS_CONFIG_FILE: '/nonexistent/aws-config',
});

const refusingFallback = { read: () => Promise.reject(new Error('the SDK’s store was asked')) };

async function newCatalog(): Promise<{ tableName: string; store: DeclaredCatalogStore; lean: LeanDeclaredCatalog }> {
  const tableName = await createTestTable();
  const sdk = new DynamoDbDeclaredCatalog({
    client: DynamoDBDocumentClient.from(localAwsClients().dynamoDb),
    tableName,
  });
  const lean = new LeanDeclaredCatalog({ tableName, fallback: refusingFallback, env: environment() });
  expect(lean.lean).toBe(true);
  return { tableName, lean, store: { read: (key) => lean.read(key), write: (key, tools) => sdk.write(key, tools) } };
}

declaredCatalogContract('LeanDeclaredCatalog (read without the SDK)', async () => (await newCatalog()).store);

describe('LeanDeclaredCatalog on DynamoDB Local', () => {
  it('reads the item as the construct writes it: string attributes, the packed tools and the machine entries', async () => {
    const { tableName, lean } = await newCatalog();
    const tools = [...exampleTools(), ...expressTools()];
    const attributes = Object.entries(declaredCatalogAttributes(tools)).map(([name, value]) => [name, { S: value }]);
    await localAwsClients().dynamoDb.send(
      new PutItemCommand({
        TableName: tableName,
        Item: { [PARTITION_KEY]: { S: declaredCatalogKey('deployed') }, ...Object.fromEntries(attributes) },
      }),
    );
    expect(await lean.read(declaredCatalogKey('deployed'))).toEqual(tools);
  });

  it('throws the service’s refusal with its name, a client fault and one attempt, and reports it', async () => {
    const failures: unknown[] = [];
    const lean = new LeanDeclaredCatalog({
      tableName: 'no-such-table',
      fallback: refusingFallback,
      env: environment(),
      onFailure: (error) => failures.push(error),
    });
    const sdk = new DynamoDbDeclaredCatalog({
      client: DynamoDBDocumentClient.from(localAwsClients().dynamoDb),
      tableName: 'no-such-table',
    });
    const expected = (await sdk.read(declaredCatalogKey('v1')).catch((error: unknown) => error)) as Error;
    const refusal = await lean.read(declaredCatalogKey('v1')).catch((error: unknown) => error);
    expect(refusal).toMatchObject({
      name: expected.name,
      message: expected.message,
      $fault: 'client',
      $metadata: { httpStatusCode: 400, attempts: 1 },
    });
    expect(failures).toEqual([refusal]);
  });
});

describe('LeanDeclaredCatalog faults, from a loopback stand-in', () => {
  let server: Server;
  let endpoint: string;
  let answer: (response: ServerResponse) => void = () => {};
  let requests = 0;
  const respond = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'req-1' });
    response.end(JSON.stringify(body));
  };

  beforeAll(async () => {
    server = createServer((request, response) => {
      requests++;
      request.resume();
      request.on('end', () => answer(response));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  const catalogAt = () =>
    new LeanDeclaredCatalog({ tableName: 't', fallback: refusingFallback, env: environment(endpoint) });

  it('answers a throttle that outlasts the retries as ServiceBusyError, after three attempts', async () => {
    requests = 0;
    answer = (response) =>
      respond(response, 400, {
        __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
        message: 'The level of configured provisioned throughput for the table was exceeded.',
      });
    const refusal = await catalogAt()
      .read(declaredCatalogKey('v1'))
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ServiceBusyError);
    expect((refusal as ServiceBusyError).operation).toBe('GetItem');
    expect(requests).toBe(3);
  });

  it('retries a server error and reads the catalog once the service answers', async () => {
    requests = 0;
    const tools = exampleTools().slice(0, 1);
    const item = Object.fromEntries(Object.entries(declaredCatalogAttributes(tools)).map(([k, v]) => [k, { S: v }]));
    answer = (response) =>
      requests === 1
        ? respond(response, 500, { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'x' })
        : respond(response, 200, { Item: item });
    expect(await catalogAt().read(declaredCatalogKey('v1'))).toEqual(tools);
    expect(requests).toBe(2);
  });

  it('reads nothing where the service has no item', async () => {
    answer = (response) => respond(response, 200, {});
    expect(await catalogAt().read(declaredCatalogKey('v1'))).toBeNull();
  });
});
