// A DynamoDB table's layout as plain data: its keys, its TTL attribute and its global secondary indexes. The CDK
// construct (lib/tables/task-table.ts) and the local stack (local/dynamodb-local-tables.ts) both create their tables
// from one, so each layout is written once (task-table-schema.ts, oauth-table-schema.ts).

/** A key attribute: its name and DynamoDB scalar type (`S` string, `N` number). */
export interface KeyAttribute {
  readonly name: string;
  readonly type: 'S' | 'N';
}

/** A global secondary index that projects its keys, the table's keys and `nonKeyAttributes` (projection INCLUDE). */
export interface IndexDescriptor {
  readonly indexName: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey?: KeyAttribute;
  readonly nonKeyAttributes: readonly string[];
}

export interface TableDescriptor {
  readonly partitionKey: KeyAttribute;
  readonly sortKey?: KeyAttribute;
  /**
   * A DynamoDB stream of every change, with the item before and after it: the task table's feeds the task event log.
   */
  readonly stream?: 'NEW_AND_OLD_IMAGES';
  /** Epoch seconds; DynamoDB's TTL attribute. */
  readonly ttlAttribute: string;
  readonly indexes: readonly IndexDescriptor[];
}
