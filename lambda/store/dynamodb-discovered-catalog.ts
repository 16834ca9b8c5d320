// DiscoveredCatalogStore on the task table: one item (`catalog#discovered`), the tools as JSON text. A refresh that
// changed the tools replaces the item with one conditional PutItem (its condition: another digest, or no item), which
// also records when they changed; one that found the same tools is refused by that condition and moves only
// `refreshedAt`. One GetItem reads it. A catalog of dozens of tools with their schemas is tens of KB, well inside
// DynamoDB's 400 KB item. The report (`catalog#discovered#report`), the decisions on each machine, is an item of its
// own, replaced by one PutItem per refresh and capped to fit (cappedReport). The task event stream sees both items and
// passes over them, as over every item that is not a task.
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { ToolDefinition } from '../contract/tool-definition.js';
import { PARTITION_KEY } from '../contract/task-table-schema.js';
import { catalogDigest } from './catalog-digest.js';
import {
  cappedReport,
  type DiscoveredCatalogStore,
  type DiscoveryReport,
  type MachineDecision,
  type StoredCatalog,
} from './discovered-catalog-store.js';
import { discoveredCatalogKey, discoveryReportKey } from './task-table-keys.js';

export interface DynamoDbDiscoveredCatalogOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
}

export class DynamoDbDiscoveredCatalog implements DiscoveredCatalogStore {
  constructor(private readonly options: DynamoDbDiscoveredCatalogOptions) {}

  /** The item stored under `key`, or `undefined`: one read. */
  private async itemAt(key: string): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.options.client.send(
      new GetCommand({ TableName: this.options.tableName, Key: { [PARTITION_KEY]: key } }),
    );
    return Item;
  }

  async read(): Promise<StoredCatalog | null> {
    const item = await this.itemAt(discoveredCatalogKey());
    if (item === undefined) return null;
    return {
      tools: JSON.parse(item['tools'] as string) as ToolDefinition[],
      digest: item['digest'] as string,
      refreshedAt: item['refreshedAt'] as number,
      changedAt: (item['changedAt'] as number | undefined) ?? 0,
    };
  }

  async write(tools: readonly ToolDefinition[], at: number): Promise<{ changed: boolean }> {
    const { client, tableName } = this.options;
    const key = { [PARTITION_KEY]: discoveredCatalogKey() };
    const digest = catalogDigest(tools);
    try {
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...key, tools: JSON.stringify(tools), digest, refreshedAt: at, changedAt: at },
          ConditionExpression: 'attribute_not_exists(#digest) OR #digest <> :digest',
          ExpressionAttributeNames: { '#digest': 'digest' },
          ExpressionAttributeValues: { ':digest': digest },
        }),
      );
      return { changed: true };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: 'SET refreshedAt = :at',
        ExpressionAttributeValues: { ':at': at },
      }),
    );
    return { changed: false };
  }

  async writeReport(machines: readonly MachineDecision[], at: number): Promise<void> {
    const report = cappedReport(machines, at);
    await this.options.client.send(
      new PutCommand({
        TableName: this.options.tableName,
        Item: {
          [PARTITION_KEY]: discoveryReportKey(),
          machines: JSON.stringify(report.machines),
          omitted: report.omitted,
          refreshedAt: at,
        },
      }),
    );
  }

  async readReport(): Promise<DiscoveryReport | null> {
    const item = await this.itemAt(discoveryReportKey());
    if (item === undefined) return null;
    return {
      machines: JSON.parse(item['machines'] as string) as MachineDecision[],
      omitted: item['omitted'] as number,
      refreshedAt: item['refreshedAt'] as number,
    };
  }
}
