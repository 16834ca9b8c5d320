// The task table as the store expects it: the layout comes from lambda/store/table-schema.ts, as on DynamoDB Local.
import type { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
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

export interface TaskTableProps {
  readonly removalPolicy: RemovalPolicy;
  /** A customer managed key; without one the table uses the AWS managed key for DynamoDB. */
  readonly encryptionKey?: kms.IKey;
}

/**
 * On-demand, TTL on `expiresAt` (DynamoDB sweeps lazily; the store hides expired items on read), point-in-time
 * recovery, encryption at rest with a KMS key, the sparse owner index tasks/list queries and the sparse active-expiry
 * index the expiry sweep queries.
 */
export function createTaskTable(scope: Construct, id: string, props: TaskTableProps): dynamodb.Table {
  const table = new dynamodb.Table(scope, id, {
    partitionKey: { name: PARTITION_KEY, type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: TTL_ATTRIBUTE,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    ...(props.encryptionKey
      ? { encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED, encryptionKey: props.encryptionKey }
      : { encryption: dynamodb.TableEncryption.AWS_MANAGED }),
    removalPolicy: props.removalPolicy,
  });
  table.addGlobalSecondaryIndex({
    indexName: OWNER_INDEX,
    partitionKey: { name: OWNER_INDEX_PARTITION_KEY, type: dynamodb.AttributeType.STRING },
    sortKey: { name: OWNER_INDEX_SORT_KEY, type: dynamodb.AttributeType.NUMBER },
    projectionType: dynamodb.ProjectionType.INCLUDE,
    nonKeyAttributes: [...OWNER_INDEX_PROJECTED_ATTRIBUTES],
  });
  table.addGlobalSecondaryIndex({
    indexName: ACTIVE_EXPIRY_INDEX,
    partitionKey: { name: ACTIVE_EXPIRY_PARTITION_KEY, type: dynamodb.AttributeType.STRING },
    sortKey: { name: ACTIVE_EXPIRY_SORT_KEY, type: dynamodb.AttributeType.NUMBER },
    projectionType: dynamodb.ProjectionType.INCLUDE,
    nonKeyAttributes: [...ACTIVE_EXPIRY_PROJECTED_ATTRIBUTES],
  });
  return table;
}
