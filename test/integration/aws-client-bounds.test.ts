// The production AWS clients give up on an endpoint that accepts connections and never answers, after bounded retries.
import { createServer, type Server, type Socket } from 'node:net';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { DescribeExecutionCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AWS_MAX_ATTEMPTS, defaultClients } from '../../lambda/handlers/aws-clients.js';

let server: Server;
let connections = 0;
const held: Socket[] = [];

beforeAll(async () => {
  // Accepts every connection and holds it open without a byte of answer: a hung endpoint.
  server = createServer((socket) => {
    connections++;
    held.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', `http://127.0.0.1:${port}`);
  vi.stubEnv('AWS_ENDPOINT_URL_SFN', `http://127.0.0.1:${port}`);
  vi.stubEnv('AWS_REGION', 'us-east-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
});

afterAll(async () => {
  vi.unstubAllEnvs();
  for (const socket of held) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

describe('defaultClients', () => {
  it('gives up on a DynamoDB endpoint that never answers, after a bounded number of attempts', async () => {
    const { dynamoDb } = defaultClients();
    const before = connections;
    const call = dynamoDb.send(new GetItemCommand({ TableName: 'tasks', Key: { pk: { S: 'x' } } }));
    await expect(call).rejects.toMatchObject({ name: 'TimeoutError', $metadata: { attempts: AWS_MAX_ATTEMPTS } });
    expect(connections - before).toBe(AWS_MAX_ATTEMPTS);
    dynamoDb.destroy();
  });

  it('gives up on a Step Functions endpoint that never answers, after a bounded number of attempts', async () => {
    const { stepFunctions } = defaultClients();
    const call = stepFunctions.send(
      new DescribeExecutionCommand({ executionArn: 'arn:aws:states:us-east-1:000000000000:execution:m:e' }),
    );
    await expect(call).rejects.toMatchObject({ name: 'TimeoutError', $metadata: { attempts: AWS_MAX_ATTEMPTS } });
    stepFunctions.destroy();
  });
});
