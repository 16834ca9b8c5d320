// The task core's AWS-backed parts: the DynamoDB stores and the executor over the workflow engines. Reached only
// through a dynamic import (task-core.ts), so that the Lambda bundles put them and the AWS SDK in a chunk that loads on
// the first call that needs AWS, not at cold start.
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { workflowEngines } from './workflow-engines.js';
import { DynamoDbDeclaredCatalog } from '../store/dynamodb-declared-catalog.js';
import { DynamoDbDiscoveredCatalog } from '../store/dynamodb-discovered-catalog.js';
import { DynamoDbInputRequests } from '../store/dynamodb-input-requests.js';
import { DynamoDbOwnerQuotas } from '../store/dynamodb-owner-quotas.js';
import { DynamoDbTaskStore } from '../store/dynamodb-task-store.js';
import type { BackendClients } from './aws-clients.js';
import { busyWhenThrottled } from './aws-throttling.js';
import { sendGetItemLean } from './lean-get-item.js';

export function createAwsTaskParts(clients: BackendClients, tableName: string) {
  busyWhenThrottled(clients);
  // A poll's one read, without the SDK's per-call machinery (see lean-get-item.ts).
  sendGetItemLean(clients.dynamoDb);
  const client = DynamoDBDocumentClient.from(clients.dynamoDb, { marshallOptions: { removeUndefinedValues: true } });
  const store = new DynamoDbTaskStore({ client, tableName });
  return {
    store,
    quotas: new DynamoDbOwnerQuotas({ client, tableName, tasks: store }),
    executor: workflowEngines(clients),
    inputRequests: new DynamoDbInputRequests({ client, tableName }),
    catalog: new DynamoDbDiscoveredCatalog({ client, tableName }),
    declaredCatalog: new DynamoDbDeclaredCatalog({ client, tableName }),
  };
}
