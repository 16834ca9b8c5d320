// The short path of GetItem (lean-get-item.ts) answers as the SDK does: the same items from DynamoDB Local, the same
// errors, the client's retries and the production bounds; what sits before it in the stack still sees every call.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { DynamoDBClient, GetItemCommand, PutItemCommand, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { ServiceBusyError } from '../../lambda/core/errors.js';
import { AWS_MAX_ATTEMPTS } from '../../lambda/handlers/aws-clients.js';
import { translateThrottles } from '../../lambda/handlers/aws-throttling.js';
import { sendGetItemLean } from '../../lambda/handlers/lean-get-item.js';
import { createTaskTable } from '../../local/dynamodb-local-tables.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/local-aws.js';

const TABLE = `lean-get-item-${randomUUID().slice(0, 8)}`;
const ITEM = {
  pk: { S: 'task#1' },
  text: { S: 'héllo "quoted"' },
  count: { N: '42' },
  bytes: { B: new Uint8Array([0, 1, 2, 250]) },
  tags: { SS: ['a', 'b'] },
  nested: { M: { list: { L: [{ N: '1' }, { BOOL: true }, { NULL: true }] }, B: { S: 'a map key named B' } } },
};

const clientAt = (endpoint: string, extra: Record<string, unknown> = {}) =>
  new DynamoDBClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint, ...extra });

/** Counts the calls that reach the SDK's build step: those the short path answered never do. */
function countFullPath(client: DynamoDBClient): { count: number } {
  const seen = { count: 0 };
  client.middlewareStack.add(
    (next) => (args) => {
      seen.count++;
      return next(args);
    },
    { step: 'build', name: 'countFullPath' },
  );
  return seen;
}

const get = (client: DynamoDBClient, pk: string, table = TABLE) =>
  client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: pk } }, ConsistentRead: true }));

describe('on DynamoDB Local', () => {
  let plain: DynamoDBClient;
  let lean: DynamoDBClient;
  let fullPath: { count: number };

  beforeAll(async () => {
    plain = clientAt(inject('dynamoDbEndpoint'));
    await createTaskTable(plain, TABLE);
    await plain.send(new PutItemCommand({ TableName: TABLE, Item: ITEM }));
    lean = clientAt(inject('dynamoDbEndpoint'));
    sendGetItemLean(lean);
    fullPath = countFullPath(lean);
  });
  afterAll(() => {
    plain.destroy();
    lean.destroy();
  });

  it('answers every GetItem after the first by the short path, with the items the SDK gives', async () => {
    const first = await get(lean, 'task#1');
    expect(fullPath.count).toBe(1);
    const second = await get(lean, 'task#1');
    const missing = await get(lean, 'task#none');
    expect(fullPath.count).toBe(1);
    const expected = await get(plain, 'task#1');
    expect(second.Item).toEqual(expected.Item);
    expect(first.Item).toEqual(expected.Item);
    expect(second.Item!['bytes']!.B).toBeInstanceOf(Uint8Array);
    expect(missing.Item).toBeUndefined();
    expect(second.$metadata).toMatchObject({ httpStatusCode: 200, attempts: 1, requestId: expect.any(String) });
  });

  it('leaves the document client’s commands, whose input is not wire-shaped yet, to the SDK', async () => {
    await get(lean, 'task#1');
    const before = fullPath.count;
    const document = DynamoDBDocumentClient.from(lean);
    const { Item } = await document.send(new GetCommand({ TableName: TABLE, Key: { pk: 'task#1' } }));
    expect(fullPath.count).toBe(before + 1);
    expect(Item).toMatchObject({ pk: 'task#1', count: 42 });
  });

  it('throws the service’s refusal as the SDK does: its name, a client fault, one attempt', async () => {
    await get(lean, 'task#1');
    const refusal = await get(lean, 'task#1', 'no-such-table').catch((error: unknown) => error);
    const sdk = await get(plain, 'task#1', 'no-such-table').catch((error: unknown) => error);
    expect(refusal).toMatchObject({
      name: (sdk as Error).name,
      message: (sdk as Error).message,
      $fault: 'client',
      $metadata: { httpStatusCode: 400, attempts: 1 },
    });
    expect(refusal).toBeInstanceOf(ResourceNotFoundException);
    expect((refusal as object).constructor).toBe((sdk as object).constructor);
  });
});

/** A DynamoDB stand-in that answers each GetItem as the test says, after a first good one (the route is learned). */
describe('faults, from a loopback stand-in', () => {
  let server: Server;
  let endpoint: string;
  let answers: ((response: ServerResponse) => void)[] = [];
  const seen: IncomingMessage[] = [];
  const ok = (response: ServerResponse) => respond(response, 200, { Item: { pk: { S: 'task#1' } } });
  const respond = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'req-1' });
    response.end(JSON.stringify(body));
  };
  const throttled = (response: ServerResponse) =>
    respond(response, 400, {
      __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
      message: 'The level of configured provisioned throughput for the table was exceeded.',
    });

  beforeAll(async () => {
    server = createServer((request, response) => {
      seen.push(request);
      request.resume();
      request.on('end', () => (answers.shift() ?? ok)(response));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => {
    answers = [];
    seen.length = 0;
  });
  afterAll(async () => {
    server.closeAllConnections();
    server.close();
  });

  async function warmClient(extra: Record<string, unknown> = {}): Promise<DynamoDBClient> {
    const client = clientAt(endpoint, extra);
    sendGetItemLean(client);
    await get(client, 'task#1');
    seen.length = 0;
    return client;
  }

  it('signs each request with SigV4 for DynamoDB in the client’s region, with the session token', async () => {
    const credentials = { ...LOCAL_CREDENTIALS, sessionToken: 'session-token' };
    const client = await warmClient({ credentials });
    await get(client, 'task#1');
    const { headers } = seen[0]!;
    expect(headers['authorization']).toMatch(
      /^AWS4-HMAC-SHA256 Credential=local\/\d{8}\/us-east-1\/dynamodb\/aws4_request, SignedHeaders=[^,]*host[^,]*x-amz-date[^,]*, Signature=[0-9a-f]{64}$/,
    );
    expect(headers['authorization']).toContain('x-amz-target');
    expect(headers['x-amz-security-token']).toBe('session-token');
    expect(headers['x-amz-target']).toBe('DynamoDB_20120810.GetItem');
    client.destroy();
  });

  it('retries a throttled read with the client’s strategy, then throws what the translation makes busy', async () => {
    const client = await warmClient({ maxAttempts: AWS_MAX_ATTEMPTS });
    answers = Array.from({ length: AWS_MAX_ATTEMPTS }, () => throttled);
    const raw = await get(client, 'task#1').catch((error: unknown) => error);
    expect(seen).toHaveLength(AWS_MAX_ATTEMPTS);
    expect(raw).toMatchObject({
      name: 'ProvisionedThroughputExceededException',
      $metadata: { httpStatusCode: 400, attempts: AWS_MAX_ATTEMPTS, requestId: 'req-1' },
    });
    translateThrottles(client, 'DynamoDB');
    answers = Array.from({ length: AWS_MAX_ATTEMPTS }, () => throttled);
    const busy = await get(client, 'task#1').catch((error: unknown) => error);
    expect(busy).toBeInstanceOf(ServiceBusyError);
    expect(busy).toMatchObject({ service: 'DynamoDB', operation: 'GetItem' });
    client.destroy();
  });

  it('gets through a server error on a retry, and says how many attempts it took', async () => {
    const client = await warmClient();
    answers = [(response) => respond(response, 500, { __type: 'InternalServerError', message: 'try again' })];
    const answer = await get(client, 'task#1');
    expect(answer.Item).toEqual({ pk: { S: 'task#1' } });
    expect(answer.$metadata.attempts).toBe(2);
    expect(seen).toHaveLength(2);
    client.destroy();
  });

  it('gives up on an endpoint that stops answering after the request bound, each attempt', async () => {
    const client = await warmClient({ maxAttempts: 2 });
    answers = [() => {}, () => {}];
    const error = await get(client, 'task#1').catch((failure: unknown) => failure);
    expect(error).toMatchObject({ name: 'TimeoutError', $metadata: { attempts: 2 } });
    expect(seen).toHaveLength(2);
    client.destroy();
  }, 20_000);
});
