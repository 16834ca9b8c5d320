// Faults of the short GetItem path (lean-get-item.ts) that the SDK's own path survives, from a loopback stand-in: a
// client clock the SDK has corrected for, and an answer whose body stops coming.
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sendGetItemLean } from '../../../lambda/handlers/lean-get-item.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../../local/local-aws.js';

/** How far behind the client's clock the stand-in's is: more than SigV4's 5 minutes. */
const SERVER_BEHIND_MS = 60 * 60 * 1000;
const ITEM = { Item: { pk: { S: 'task#1' } } };

let server: Server;
let endpoint: string;
let answer: (response: ServerResponse, amzDate: string) => void;
let paths: string[] = [];

/** x-amz-date (20240102T030405Z) as epoch ms. */
const amzDateMs = (value: string) =>
  Date.parse(value.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));

const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'r', ...headers });
  response.end(JSON.stringify(body));
};

beforeAll(async () => {
  server = createServer((request, response) => {
    paths.push(request.url ?? '');
    request.resume();
    request.on('end', () => answer(response, String(request.headers['x-amz-date'])));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => {
  paths = [];
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const get = (client: DynamoDBClient) =>
  client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'task#1' } }, ConsistentRead: true }));

describe('the short GetItem path', () => {
  it('signs with the clock offset the SDK has learned, as the SDK path does', async () => {
    // A DynamoDB whose clock is an hour behind the client's: it refuses a signature dated more than 5 minutes off.
    answer = (response, amzDate) => {
      const serverNow = Date.now() - SERVER_BEHIND_MS;
      const date = { date: new Date(serverNow).toUTCString() };
      if (Math.abs(amzDateMs(amzDate) - serverNow) > 5 * 60 * 1000)
        return json(
          response,
          400,
          {
            __type: 'com.amazon.coral.service#InvalidSignatureException',
            message: 'Signature expired: is now earlier than ...',
          },
          date,
        );
      json(response, 200, ITEM, date);
    };
    const client = new DynamoDBClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint });
    sendGetItemLean(client);
    // The SDK path (the first GetItem) corrects its clock and gets through.
    expect((await get(client)).Item).toEqual(ITEM.Item);
    // The short path must too.
    expect((await get(client)).Item).toEqual(ITEM.Item);
    client.destroy();
  });

  it('bounds the read of an answer whose body stops coming, as it bounds the wait for its headers', async () => {
    answer = (response) => {
      json(response, 200, ITEM);
    };
    const client = new DynamoDBClient({
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
      endpoint,
      maxAttempts: 1,
    });
    sendGetItemLean(client);
    await get(client);
    answer = (response) => {
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'content-length': '100' });
      response.write('{"Item":');
    };
    // The bound's own TimeoutError, not the test's timeout: the stalled body was given up on.
    const error = await get(client).catch((failure: unknown) => failure);
    expect(error).toMatchObject({ name: 'TimeoutError' });
    client.destroy();
  }, 15_000);
});
