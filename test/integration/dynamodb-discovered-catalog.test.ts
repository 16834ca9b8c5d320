// The discovered-tools catalog on DynamoDB Local, through the real AWS SDK: the store contract, each test on a table
// of its own (the catalog is one item per table, as it is one per deployed endpoint).
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDbDiscoveredCatalog } from '../../lambda/store/dynamodb-discovered-catalog.js';
import { discoveredCatalogContract } from '../contract/discovered-catalog-contract.js';
import { createTestTable, localAwsClients } from '../support/local-backend.js';

discoveredCatalogContract(
  'DynamoDbDiscoveredCatalog',
  async () =>
    new DynamoDbDiscoveredCatalog({
      client: DynamoDBDocumentClient.from(localAwsClients().dynamoDb),
      tableName: await createTestTable(),
    }),
);
