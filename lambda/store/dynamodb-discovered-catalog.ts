// DiscoveredCatalogStore on the task table: one item (`catalog#discovered`), the tools as JSON text. One PutItem per
// refresh answers whether the tools changed from the item it replaced (ReturnValues: ALL_OLD), and one GetItem reads
// it. A catalog of dozens of tools with their schemas is tens of KB, well inside DynamoDB's 400 KB item. The task
// event stream sees the item and passes over it, as over every item that is not a task.
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ToolDefinition } from '../contract/tool-definition.js';
import { PARTITION_KEY } from '../contract/task-table-schema.js';
import { catalogDigest } from './catalog-digest.js';
import type { DiscoveredCatalogStore, StoredCatalog } from './discovered-catalog-store.js';
import { discoveredCatalogKey } from './task-table-keys.js';

export interface DynamoDbDiscoveredCatalogOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
}

export class DynamoDbDiscoveredCatalog implements DiscoveredCatalogStore {
  constructor(private readonly options: DynamoDbDiscoveredCatalogOptions) {}

  async read(): Promise<StoredCatalog | null> {
    const { Item } = await this.options.client.send(
      new GetCommand({ TableName: this.options.tableName, Key: { [PARTITION_KEY]: discoveredCatalogKey() } }),
    );
    if (Item === undefined) return null;
    return {
      tools: JSON.parse(Item['tools'] as string) as ToolDefinition[],
      digest: Item['digest'] as string,
      refreshedAt: Item['refreshedAt'] as number,
    };
  }

  async write(tools: readonly ToolDefinition[], at: number): Promise<{ changed: boolean }> {
    const digest = catalogDigest(tools);
    const { Attributes } = await this.options.client.send(
      new PutCommand({
        TableName: this.options.tableName,
        Item: { [PARTITION_KEY]: discoveredCatalogKey(), tools: JSON.stringify(tools), digest, refreshedAt: at },
        ReturnValues: 'ALL_OLD',
      }),
    );
    return { changed: Attributes?.['digest'] !== digest };
  }
}
