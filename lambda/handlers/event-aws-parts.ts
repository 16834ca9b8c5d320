// The event log's and the subscriptions' DynamoDB stores. Reached only through a dynamic import (task-events-core.ts),
// like aws-task-parts.ts, so the AWS SDK stays out of the MCP function's cold start.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../core/clock.js';
import { DynamoDbTaskEventStore } from '../store/dynamodb-task-event-store.js';
import { DynamoDbWebhookSubscriptions } from '../store/dynamodb-webhook-subscriptions.js';
import { AesGcmSecretSealer } from '../store/secret-sealer.js';

export function createEventAwsParts(dynamoDb: DynamoDBClient, tableName: string, clock: Clock) {
  const client = DynamoDBDocumentClient.from(dynamoDb, { marshallOptions: { removeUndefinedValues: true } });
  return {
    events: new DynamoDbTaskEventStore({ client, tableName, clock }),
    /** The key is fetched by the first read or write that needs a secret; listing summaries never waits for it. */
    subscriptions: (sealingKey: () => Promise<Buffer>) =>
      new DynamoDbWebhookSubscriptions({
        client,
        tableName,
        sealer: async () => new AesGcmSecretSealer(await sealingKey()),
        clock,
      }),
  };
}
