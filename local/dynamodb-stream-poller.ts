// The local stand-in for Lambda's DynamoDB event source mapping: reads a table's stream on DynamoDB Local (which
// serves the Streams API) and hands each batch of records to the same handler the deployed stream function runs. Like
// the mapping it keeps each shard's records in order, and when the handler reports a record as failed, it reads the
// shard again from that record after a pause: nothing is skipped, and what was handled before the failure may be
// handled again (the handler is idempotent).
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './local-aws.js';
import { jsonStateFile } from './state-file.js';

export type StreamBatchHandler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;

export interface StreamPollerOptions {
  readonly endpoint: string;
  readonly streamArn: string;
  readonly handle: StreamBatchHandler;
  /** How often an idle shard is read again. @default 100 */
  readonly intervalMs?: number;
  /** The pause before a failed record is tried again. @default 500 */
  readonly retryAfterMs?: number;
  readonly onError?: (error: unknown) => void;
  /**
   * A file that keeps, per shard, the last record handled, so that a stack restarted on a kept database (whose stream
   * DynamoDB Local keeps too) goes on after it instead of reading the stream again from its start. @default none
   */
  readonly positionFile?: string;
}

/** What the position file holds: the stream it is for (a table made anew has another), each shard's last record. */
interface KeptPosition {
  readonly streamArn: string;
  readonly handled: Record<string, string>;
}

export interface StreamPoller {
  /** Resolves once every record written so far has been handled (for tests and benchmarks). */
  caughtUp(): Promise<void>;
  stop(): Promise<void>;
}

/** The records as the Lambda event shows them: the same fields, from the Streams API's output. */
function eventOf(records: readonly _Record[], streamArn: string): DynamoDBStreamEvent {
  return {
    Records: records.map((record) => ({
      eventID: record.eventID,
      eventName: record.eventName,
      eventSource: 'aws:dynamodb',
      eventSourceARN: streamArn,
      dynamodb: record.dynamodb as NonNullable<DynamoDBStreamEvent['Records'][number]['dynamodb']>,
    })),
  };
}

export function startStreamPoller(options: StreamPollerOptions): StreamPoller {
  const client = new DynamoDBStreamsClient({
    endpoint: options.endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  const intervalMs = options.intervalMs ?? 100;
  const retryAfterMs = options.retryAfterMs ?? 500;
  const iterators = new Map<string, string | undefined>();
  let stopped = false;
  let idleRound = false;
  const roundWaiters: Array<() => void> = [];
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

  /** Per shard, the last record handled: where reading resumes when an iterator is lost, or the stack restarts. */
  const handled = new Map<string, string>();
  const position =
    options.positionFile === undefined
      ? undefined
      : jsonStateFile<KeptPosition>(options.positionFile, () => ({
          streamArn: options.streamArn,
          handled: Object.fromEntries(handled),
        }));
  const kept = position?.load();
  if (kept?.streamArn === options.streamArn)
    for (const [shard, last] of Object.entries(kept.handled)) handled.set(shard, last);
  const handledUpTo = (shardId: string, sequenceNumber: string): void => {
    handled.set(shardId, sequenceNumber);
    position?.changed();
  };

  const iteratorAt = async (
    shardId: string,
    at?: { readonly type: 'AT_SEQUENCE_NUMBER' | 'AFTER_SEQUENCE_NUMBER'; readonly sequenceNumber: string },
  ): Promise<string | undefined> => {
    const { ShardIterator } = await client.send(
      new GetShardIteratorCommand({
        StreamArn: options.streamArn,
        ShardId: shardId,
        ...(at
          ? { ShardIteratorType: at.type, SequenceNumber: at.sequenceNumber }
          : { ShardIteratorType: 'TRIM_HORIZON' }),
      }),
    );
    return ShardIterator;
  };

  /**
   * A fresh iterator after the last record handled (or from the start). A kept position the stream no longer has
   * (its records trimmed, or a database made anew under the same name) is dropped for the shard's start.
   */
  const resumeIterator = async (shardId: string): Promise<string | undefined> => {
    const last = handled.get(shardId);
    if (last === undefined) return iteratorAt(shardId);
    try {
      return await iteratorAt(shardId, { type: 'AFTER_SEQUENCE_NUMBER', sequenceNumber: last });
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name !== 'ValidationException' && name !== 'TrimmedDataAccessException') throw error;
      handled.delete(shardId);
      return iteratorAt(shardId);
    }
  };

  /**
   * Reads the shard's next records. An iterator that has gone stale is replaced: DynamoDB Local answers a read of an
   * iterator taken while its shard was still empty with TrimmedDataAccessException, and any iterator expires after
   * 15 minutes.
   */
  const read = async (shardId: string, iterator: string) => {
    try {
      return await client.send(new GetRecordsCommand({ ShardIterator: iterator }));
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name !== 'TrimmedDataAccessException' && name !== 'ExpiredIteratorException') throw error;
      const fresh = await resumeIterator(shardId);
      return fresh === undefined
        ? { Records: [], NextShardIterator: undefined }
        : await client.send(new GetRecordsCommand({ ShardIterator: fresh }));
    }
  };

  /** One pass over every shard; true when no shard had records. */
  const pass = async (): Promise<boolean> => {
    const { StreamDescription } = await client.send(new DescribeStreamCommand({ StreamArn: options.streamArn }));
    for (const shard of StreamDescription?.Shards ?? []) {
      const id = shard.ShardId!;
      if (!iterators.has(id)) iterators.set(id, await resumeIterator(id));
    }
    let quiet = true;
    for (const [shardId, iterator] of iterators) {
      if (iterator === undefined) continue;
      const { Records = [], NextShardIterator } = await read(shardId, iterator);
      if (Records.length === 0) {
        iterators.set(shardId, NextShardIterator);
        continue;
      }
      quiet = false;
      const { batchItemFailures } = await options.handle(eventOf(Records, options.streamArn));
      const failed = batchItemFailures[0]?.itemIdentifier;
      if (failed === undefined) {
        handledUpTo(shardId, Records.at(-1)!.dynamodb!.SequenceNumber!);
        iterators.set(shardId, NextShardIterator);
      } else {
        const before = Records.findIndex((record) => record.dynamodb?.SequenceNumber === failed) - 1;
        if (before >= 0) handledUpTo(shardId, Records[before]!.dynamodb!.SequenceNumber!);
        iterators.set(shardId, await iteratorAt(shardId, { type: 'AT_SEQUENCE_NUMBER', sequenceNumber: failed }));
        await sleep(retryAfterMs);
      }
    }
    return quiet;
  };

  const loop = (async () => {
    while (!stopped) {
      try {
        idleRound = await pass();
      } catch (error) {
        idleRound = false;
        options.onError?.(error);
      }
      if (idleRound) for (const done of roundWaiters.splice(0)) done();
      await sleep(intervalMs);
    }
  })();

  return {
    caughtUp: () =>
      new Promise<void>((resolve) => {
        idleRound = false;
        roundWaiters.push(resolve);
      }),
    stop: async () => {
      stopped = true;
      await loop;
      position?.flush();
      for (const done of roundWaiters.splice(0)) done();
      client.destroy();
    },
  };
}
