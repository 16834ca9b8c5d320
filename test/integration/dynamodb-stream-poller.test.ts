// The local stand-in for the stream event source mapping, on DynamoDB Local's own stream: with a position file it goes
// on after the last record it handled when started again (a restart on a kept database), so what was handled before
// is not handled twice; without one, or with one kept for another stream, it reads from the stream's start.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { PARTITION_KEY } from '../../lambda/contract/task-table-schema.js';
import { startStreamPoller } from '../../local/dynamodb-stream-poller.js';
import { createTaskTable } from '../../local/dynamodb-local-tables.js';
import { streamArnOf } from '../../local/status-events-stand-in.js';
import { localAwsClients } from '../support/local-backend.js';

const { dynamoDb } = localAwsClients();
const endpoint = inject('dynamoDbEndpoint');

async function tableWithStream(): Promise<{ tableName: string; streamArn: string }> {
  const tableName = `stream-poller-${randomUUID()}`;
  await createTaskTable(dynamoDb, tableName);
  return { tableName, streamArn: await streamArnOf(dynamoDb, tableName) };
}

async function put(tableName: string, ...keys: string[]): Promise<void> {
  for (const key of keys)
    await dynamoDb.send(new PutItemCommand({ TableName: tableName, Item: { [PARTITION_KEY]: { S: key } } }));
}

/** Runs a poller until it has read everything written so far; the keys of the records it handled, in order. */
async function handledKeys(streamArn: string, positionFile?: string): Promise<string[]> {
  const keys: string[] = [];
  const poller = startStreamPoller({
    endpoint,
    streamArn,
    intervalMs: 20,
    ...(positionFile !== undefined ? { positionFile } : {}),
    handle: async (event) => {
      for (const record of event.Records) keys.push(record.dynamodb!.Keys![PARTITION_KEY]!.S!);
      return { batchItemFailures: [] };
    },
  });
  await poller.caughtUp();
  await poller.stop();
  return keys;
}

describe('the stream poller across a restart', () => {
  it('goes on after the last record it handled when its position is kept', async () => {
    const { tableName, streamArn } = await tableWithStream();
    const positionFile = join(mkdtempSync(join(tmpdir(), 'stream-position-')), 'position.json');
    await put(tableName, 'a', 'b');
    expect(await handledKeys(streamArn, positionFile)).toEqual(['a', 'b']);
    await put(tableName, 'c');
    expect(await handledKeys(streamArn, positionFile)).toEqual(['c']);
    expect(await handledKeys(streamArn, positionFile)).toEqual([]);
  });

  it('reads from the start without a kept position, or with one kept for another stream', async () => {
    const first = await tableWithStream();
    const second = await tableWithStream();
    const positionFile = join(mkdtempSync(join(tmpdir(), 'stream-position-')), 'position.json');
    await put(first.tableName, 'a');
    await put(second.tableName, 'x', 'y');
    expect(await handledKeys(first.streamArn, positionFile)).toEqual(['a']);
    expect(await handledKeys(first.streamArn)).toEqual(['a']);
    expect(await handledKeys(second.streamArn, positionFile)).toEqual(['x', 'y']);
  });
});
