// Creates the task table on DynamoDB Local with the same layout the CDK construct deploys.
import { CreateTableCommand, UpdateTimeToLiveCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  ACTIVE_EXPIRY_INDEX,
  ACTIVE_EXPIRY_PARTITION_KEY,
  ACTIVE_EXPIRY_PROJECTED_ATTRIBUTES,
  ACTIVE_EXPIRY_SORT_KEY,
  OWNER_INDEX,
  OWNER_INDEX_PARTITION_KEY,
  OWNER_INDEX_PROJECTED_ATTRIBUTES,
  OWNER_INDEX_SORT_KEY,
  PARTITION_KEY,
  TTL_ATTRIBUTE,
} from '../lambda/store/table-schema.js';

export async function createTaskTable(client: DynamoDBClient, tableName: string): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: PARTITION_KEY, AttributeType: 'S' },
        { AttributeName: OWNER_INDEX_PARTITION_KEY, AttributeType: 'S' },
        { AttributeName: OWNER_INDEX_SORT_KEY, AttributeType: 'N' },
        { AttributeName: ACTIVE_EXPIRY_PARTITION_KEY, AttributeType: 'S' },
        { AttributeName: ACTIVE_EXPIRY_SORT_KEY, AttributeType: 'N' },
      ],
      KeySchema: [{ AttributeName: PARTITION_KEY, KeyType: 'HASH' }],
      GlobalSecondaryIndexes: [
        {
          IndexName: OWNER_INDEX,
          KeySchema: [
            { AttributeName: OWNER_INDEX_PARTITION_KEY, KeyType: 'HASH' },
            { AttributeName: OWNER_INDEX_SORT_KEY, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...OWNER_INDEX_PROJECTED_ATTRIBUTES] },
        },
        {
          IndexName: ACTIVE_EXPIRY_INDEX,
          KeySchema: [
            { AttributeName: ACTIVE_EXPIRY_PARTITION_KEY, KeyType: 'HASH' },
            { AttributeName: ACTIVE_EXPIRY_SORT_KEY, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...ACTIVE_EXPIRY_PROJECTED_ATTRIBUTES] },
        },
      ],
    }),
  );
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    }),
  );
}
