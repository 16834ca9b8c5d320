// Creates the tables on DynamoDB Local from the descriptors the CDK construct deploys them from (lambda/contract's
// TASK_TABLE, OAUTH_TABLE and EVENT_TABLE), so the local stack's layout is the deployed one.
import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  type AttributeDefinition,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { EVENT_TABLE } from '../lambda/contract/event-table-schema.js';
import { OAUTH_TABLE } from '../lambda/contract/oauth-table-schema.js';
import type { KeyAttribute, TableDescriptor } from '../lambda/contract/table-descriptor.js';
import { TASK_TABLE } from '../lambda/contract/task-table-schema.js';

/**
 * Creates `tableName` laid out as `descriptor` says: on-demand, its keys and indexes, its stream, TTL on its TTL
 * attribute. Returns the ARN of the table's stream, when it has one (the local stack polls the task table's). A table
 * of that name already there (state kept from an earlier run, LOCAL_STATE_DIR) is taken as it is.
 */
export async function createTable(
  client: DynamoDBClient,
  tableName: string,
  descriptor: TableDescriptor,
): Promise<string | undefined> {
  const keys: KeyAttribute[] = [descriptor.partitionKey, ...(descriptor.sortKey ? [descriptor.sortKey] : [])];
  for (const index of descriptor.indexes) keys.push(index.partitionKey, ...(index.sortKey ? [index.sortKey] : []));
  const definitions = new Map<string, AttributeDefinition>(
    keys.map((key) => [key.name, { AttributeName: key.name, AttributeType: key.type }]),
  );
  const created = await client
    .send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [...definitions.values()],
        KeySchema: [
          { AttributeName: descriptor.partitionKey.name, KeyType: 'HASH' },
          ...(descriptor.sortKey ? [{ AttributeName: descriptor.sortKey.name, KeyType: 'RANGE' as const }] : []),
        ],
        ...(descriptor.stream
          ? { StreamSpecification: { StreamEnabled: true, StreamViewType: descriptor.stream } }
          : {}),
        ...(descriptor.indexes.length > 0
          ? {
              GlobalSecondaryIndexes: descriptor.indexes.map((index) => ({
                IndexName: index.indexName,
                KeySchema: [
                  { AttributeName: index.partitionKey.name, KeyType: 'HASH' as const },
                  ...(index.sortKey ? [{ AttributeName: index.sortKey.name, KeyType: 'RANGE' as const }] : []),
                ],
                Projection: { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...index.nonKeyAttributes] },
              })),
            }
          : {}),
      }),
    )
    .catch((error: unknown) => {
      if (error instanceof ResourceInUseException) return undefined;
      throw error;
    });
  if (created === undefined) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    return Table?.LatestStreamArn;
  }
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: descriptor.ttlAttribute, Enabled: true },
    }),
  );
  return created.TableDescription?.LatestStreamArn;
}

/**
 * The task table, laid out as the CDK construct deploys it. Whoever polls its stream takes the ARN from
 * `createTable(client, tableName, TASK_TABLE)`.
 */
export async function createTaskTable(client: DynamoDBClient, tableName: string): Promise<void> {
  await createTable(client, tableName, TASK_TABLE);
}

/** The OAuth proxy's table, laid out as the CDK construct deploys it. */
export async function createOAuthTable(client: DynamoDBClient, tableName: string): Promise<void> {
  await createTable(client, tableName, OAUTH_TABLE);
}

/** The events table (task event logs and webhook subscriptions), laid out as the CDK construct deploys it. */
export async function createEventTable(client: DynamoDBClient, tableName: string): Promise<void> {
  await createTable(client, tableName, EVENT_TABLE);
}
