// DeclaredCatalogStore on the task table: one item per catalog version, laid out as the CDK construct writes it
// (contract/declared-tool-catalog.ts). The read is strongly consistent: a function instance may start moments after
// the deployment wrote the item. The task event stream sees the item and passes over it, as over every item that is
// not a task.
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  DECLARED_CATALOG_ATTRIBUTE,
  declaredCatalogAttributes,
  unpackToolCatalog,
} from '../contract/declared-tool-catalog.js';
import { PARTITION_KEY } from '../contract/task-table-schema.js';
import type { ToolDefinition } from '../contract/tool-definition.js';
import type { DeclaredCatalogStore } from './declared-catalog-store.js';

export interface DynamoDbDeclaredCatalogOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
}

export class DynamoDbDeclaredCatalog implements DeclaredCatalogStore {
  constructor(private readonly options: DynamoDbDeclaredCatalogOptions) {}

  async read(key: string): Promise<ToolDefinition[] | null> {
    const { Item } = await this.options.client.send(
      new GetCommand({ TableName: this.options.tableName, Key: { [PARTITION_KEY]: key }, ConsistentRead: true }),
    );
    if (Item === undefined) return null;
    return unpackToolCatalog(
      Item[DECLARED_CATALOG_ATTRIBUTE.tools] as string,
      Item[DECLARED_CATALOG_ATTRIBUTE.stateMachines] as string,
    );
  }

  async write(key: string, tools: readonly ToolDefinition[]): Promise<void> {
    await this.options.client.send(
      new PutCommand({
        TableName: this.options.tableName,
        Item: { [PARTITION_KEY]: key, ...declaredCatalogAttributes(tools) },
      }),
    );
  }
}
