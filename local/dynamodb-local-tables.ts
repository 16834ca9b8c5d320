// Creates the tables on DynamoDB Local from the descriptors the CDK construct deploys them from (lambda/contract's
// TASK_TABLE and OAUTH_TABLE), so the local stack's layout is the deployed one.
import {
  CreateTableCommand,
  UpdateTimeToLiveCommand,
  type AttributeDefinition,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { OAUTH_TABLE } from '../lambda/contract/oauth-table-schema.js';
import type { KeyAttribute, TableDescriptor } from '../lambda/contract/table-descriptor.js';
import { TASK_TABLE } from '../lambda/contract/task-table-schema.js';

/** Creates `tableName` laid out as `descriptor` says: on-demand, its indexes, TTL on its TTL attribute. */
export async function createTable(
  client: DynamoDBClient,
  tableName: string,
  descriptor: TableDescriptor,
): Promise<void> {
  const keys: KeyAttribute[] = [descriptor.partitionKey];
  for (const index of descriptor.indexes) keys.push(index.partitionKey, ...(index.sortKey ? [index.sortKey] : []));
  const definitions = new Map<string, AttributeDefinition>(
    keys.map((key) => [key.name, { AttributeName: key.name, AttributeType: key.type }]),
  );
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [...definitions.values()],
      KeySchema: [{ AttributeName: descriptor.partitionKey.name, KeyType: 'HASH' }],
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
  );
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: descriptor.ttlAttribute, Enabled: true },
    }),
  );
}

/** The task table, laid out as the CDK construct deploys it. */
export async function createTaskTable(client: DynamoDBClient, tableName: string): Promise<void> {
  await createTable(client, tableName, TASK_TABLE);
}

/** The OAuth proxy's table, laid out as the CDK construct deploys it. */
export async function createOAuthTable(client: DynamoDBClient, tableName: string): Promise<void> {
  await createTable(client, tableName, OAUTH_TABLE);
}
