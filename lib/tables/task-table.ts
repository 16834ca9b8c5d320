// The tables as their stores expect them, made from the descriptors in lambda/contract (TASK_TABLE, EVENT_TABLE,
// OAUTH_TABLE): the same ones the local stack creates its tables from on DynamoDB Local
// (local/dynamodb-local-tables.ts).
import type { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { EVENT_TABLE } from '../../lambda/contract/event-table-schema.js';
import { OAUTH_TABLE } from '../../lambda/contract/oauth-table-schema.js';
import type { KeyAttribute, TableDescriptor } from '../../lambda/contract/table-descriptor.js';
import { OWNER_INDEX, TASK_TABLE } from '../../lambda/contract/task-table-schema.js';

export interface TaskTableProps {
  readonly removalPolicy: RemovalPolicy;
  /** A customer managed key; without one the table uses the AWS managed key for DynamoDB. */
  readonly encryptionKey?: kms.IKey;
}

const STREAM_VIEW_TYPE: Readonly<Record<NonNullable<TableDescriptor['stream']>, dynamodb.StreamViewType>> = {
  NEW_AND_OLD_IMAGES: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
};

const ATTRIBUTE_TYPE: Readonly<Record<KeyAttribute['type'], dynamodb.AttributeType>> = {
  S: dynamodb.AttributeType.STRING,
  N: dynamodb.AttributeType.NUMBER,
};

function attribute(key: KeyAttribute): dynamodb.Attribute {
  return { name: key.name, type: ATTRIBUTE_TYPE[key.type] };
}

/**
 * A table laid out as `descriptor` says (keys, stream, indexes), with what every table here shares: on-demand billing,
 * TTL, point-in-time recovery, and encryption at rest with the customer managed key when one is given, else the AWS
 * managed key for DynamoDB.
 */
function createTable(scope: Construct, id: string, descriptor: TableDescriptor, props: TaskTableProps): dynamodb.Table {
  const table = new dynamodb.Table(scope, id, {
    partitionKey: attribute(descriptor.partitionKey),
    ...(descriptor.sortKey ? { sortKey: attribute(descriptor.sortKey) } : {}),
    ...(descriptor.stream ? { stream: STREAM_VIEW_TYPE[descriptor.stream] } : {}),
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: descriptor.ttlAttribute,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    ...(props.encryptionKey
      ? { encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED, encryptionKey: props.encryptionKey }
      : { encryption: dynamodb.TableEncryption.AWS_MANAGED }),
    removalPolicy: props.removalPolicy,
  });
  for (const index of descriptor.indexes) {
    table.addGlobalSecondaryIndex({
      indexName: index.indexName,
      partitionKey: attribute(index.partitionKey),
      ...(index.sortKey ? { sortKey: attribute(index.sortKey) } : {}),
      projectionType: dynamodb.ProjectionType.INCLUDE,
      nonKeyAttributes: [...index.nonKeyAttributes],
    });
  }
  return table;
}

/**
 * On-demand, TTL on `expiresAt` (DynamoDB sweeps lazily; the store hides expired items on read), point-in-time
 * recovery, encryption at rest with a KMS key, the sparse owner index tasks/list queries, the sparse active-expiry
 * index the expiry sweep queries, and a stream of every change with the item before and after (the task event log's
 * source).
 */
export function createTaskTable(scope: Construct, id: string, props: TaskTableProps): dynamodb.Table {
  return createTable(scope, id, TASK_TABLE, props);
}

/**
 * The task events table: each task's event log (partition and sort key, see EVENT_TABLE) and the webhook
 * subscriptions, both TTL-swept; on-demand, point-in-time recovery, and the same encryption at rest as the task table.
 */
export function createEventTable(scope: Construct, id: string, props: TaskTableProps): dynamodb.Table {
  return createTable(scope, id, EVENT_TABLE, props);
}

/**
 * The OAuth proxy's table: client registrations, pending sign-ins, codes and refresh tokens (by their hashes),
 * registration counters. One partition key, no index; on-demand, TTL on `expiresAt` (reads also judge expiry
 * themselves), point-in-time recovery, and the same encryption at rest as the task table.
 */
export function createOAuthTable(scope: Construct, id: string, props: TaskTableProps): dynamodb.Table {
  return createTable(scope, id, OAUTH_TABLE, props);
}

const TABLE_ITEM_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'];

/** The task table's grants to the endpoint's two task functions: per function, only the actions its code performs. */
export function grantTaskTableAccess(
  table: dynamodb.Table,
  functions: { readonly mcp: iam.IGrantable; readonly statusSync: iam.IGrantable },
): void {
  iam.Grant.addToPrincipal({ grantee: functions.mcp, actions: TABLE_ITEM_ACTIONS, resourceArns: [table.tableArn] });
  iam.Grant.addToPrincipal({
    grantee: functions.mcp,
    actions: ['dynamodb:Query'],
    resourceArns: [`${table.tableArn}/index/${OWNER_INDEX}`],
  });
  iam.Grant.addToPrincipal({
    grantee: functions.statusSync,
    actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
    resourceArns: [table.tableArn],
  });
  table.encryptionKey?.grantEncryptDecrypt(functions.mcp);
  table.encryptionKey?.grantEncryptDecrypt(functions.statusSync);
}
