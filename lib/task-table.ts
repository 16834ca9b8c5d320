// The tables as their stores expect them: the task table's layout comes from lambda/store/table-schema.ts, the OAuth
// proxy's from lambda/oauth/oauth-table.ts, the same constants the local stack creates them from on DynamoDB Local.
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
import { OAUTH_PARTITION_KEY, OAUTH_TTL_ATTRIBUTE } from '../lambda/oauth/oauth-table.js';

export interface TaskTableProps {
  readonly removalPolicy: RemovalPolicy;
  /** A customer managed key; without one the table uses the AWS managed key for DynamoDB. */
  readonly encryptionKey?: kms.IKey;
}

/**
 * What both tables share: a string partition key, on-demand billing, TTL, point-in-time recovery, and encryption at
 * rest with the customer managed key when one is given, else the AWS managed key for DynamoDB.
 */
function tableProps(partitionKey: string, ttlAttribute: string, props: TaskTableProps): dynamodb.TableProps {
  return {
    partitionKey: { name: partitionKey, type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: ttlAttribute,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    ...(props.encryptionKey
      ? { encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED, encryptionKey: props.encryptionKey }
      : { encryption: dynamodb.TableEncryption.AWS_MANAGED }),
    removalPolicy: props.removalPolicy,
  };
}

/**
 * On-demand, TTL on `expiresAt` (DynamoDB sweeps lazily; the store hides expired items on read), point-in-time
 * recovery, encryption at rest with a KMS key, the sparse owner index tasks/list queries and the sparse active-expiry
 * index the expiry sweep queries.
 */
export function createTaskTable(scope: Construct, id: string, props: TaskTableProps): dynamodb.Table {
  const table = new dynamodb.Table(scope, id, tableProps(PARTITION_KEY, TTL_ATTRIBUTE, props));
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

/**
 * The OAuth proxy's table: client registrations, pending sign-ins, codes and refresh tokens (by their hashes),
 * registration counters. One partition key, no index; on-demand, TTL on `expiresAt` (reads also judge expiry
 * themselves), point-in-time recovery, and the same encryption at rest as the task table.
 */
export function createOAuthTable(scope: Construct, id: string, props: TaskTableProps): dynamodb.Table {
  return new dynamodb.Table(scope, id, tableProps(OAUTH_PARTITION_KEY, OAUTH_TTL_ATTRIBUTE, props));
}
