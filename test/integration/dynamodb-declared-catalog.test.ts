// The declared tool catalog on DynamoDB Local, through the real AWS SDK: the store contract, and the item as the CDK
// construct's custom resource writes it (low-level attribute values, no document client) read back by the store.
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { declaredCatalogAttributes, declaredCatalogKey } from '../../lambda/contract/declared-tool-catalog.js';
import { PARTITION_KEY } from '../../lambda/contract/task-table-schema.js';
import { DynamoDbDeclaredCatalog } from '../../lambda/store/dynamodb-declared-catalog.js';
import { declaredCatalogContract } from '../contract/declared-catalog-contract.js';
import { createTestTable, exampleTools, expressTools, localAwsClients } from '../support/local-backend.js';

const newStore = async () => {
  const tableName = await createTestTable();
  return {
    tableName,
    store: new DynamoDbDeclaredCatalog({ client: DynamoDBDocumentClient.from(localAwsClients().dynamoDb), tableName }),
  };
};

declaredCatalogContract('DynamoDbDeclaredCatalog', async () => (await newStore()).store);

describe('DynamoDbDeclaredCatalog', () => {
  it('reads the item as the construct writes it: string attributes, the packed tools and the machine entries', async () => {
    const { tableName, store } = await newStore();
    const tools = [...exampleTools(), ...expressTools()];
    const attributes = Object.entries(declaredCatalogAttributes(tools)).map(([name, value]) => [name, { S: value }]);
    await localAwsClients().dynamoDb.send(
      new PutItemCommand({
        TableName: tableName,
        Item: { [PARTITION_KEY]: { S: declaredCatalogKey('deployed') }, ...Object.fromEntries(attributes) },
      }),
    );
    expect(await store.read(declaredCatalogKey('deployed'))).toEqual(tools);
  });
});
