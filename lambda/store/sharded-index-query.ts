// The first items of a sparse, sharded index (the expiry sweep's, the reconciler's): in every shard, those whose sort
// key is at most `upTo`, lowest first, merged into the lowest `limit` overall, whichever shards they sit in.
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Item } from './item-fields.js';
import { activeExpiryShards } from './task-table-keys.js';

export interface ShardedIndexQuery {
  readonly tableName: string;
  readonly indexName: string;
  readonly partitionKey: string;
  readonly sortKey: string;
  /** The highest sort key wanted (inclusive). */
  readonly upTo: number;
  readonly limit: number;
}

/** The index's items with the lowest sort keys up to `upTo`, at most `limit`, lowest first. */
export async function lowestInShards(client: DynamoDBDocumentClient, query: ShardedIndexQuery): Promise<Item[]> {
  const perShard = await Promise.all(activeExpiryShards().map((shard) => lowestInShard(client, query, shard)));
  const sortKeyOf = (item: Item) => item[query.sortKey] as number;
  return perShard
    .flat()
    .sort((a, b) => sortKeyOf(a) - sortKeyOf(b))
    .slice(0, query.limit);
}

async function lowestInShard(client: DynamoDBDocumentClient, query: ShardedIndexQuery, shard: string): Promise<Item[]> {
  const found: Item[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: query.tableName,
        IndexName: query.indexName,
        KeyConditionExpression: '#shard = :shard AND #sortKey <= :upTo',
        ExpressionAttributeNames: { '#shard': query.partitionKey, '#sortKey': query.sortKey },
        ExpressionAttributeValues: { ':shard': shard, ':upTo': query.upTo },
        Limit: query.limit - found.length,
        ExclusiveStartKey: startKey,
      }),
    );
    found.push(...((page.Items ?? []) as Item[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined && found.length < query.limit);
  return found;
}
