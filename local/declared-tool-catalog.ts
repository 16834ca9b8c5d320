// The declared tool catalog on the local stack, written as the CDK construct's custom resource writes it at deploy
// time: one item in the task table, under a key versioned by the tools. The MCP backend is then told the key
// (TOOL_CATALOG_ITEM) and reads the item at its first request, as the deployed function does.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { declaredCatalogKey } from '../lambda/contract/declared-tool-catalog.js';
import type { ToolDefinition } from '../lambda/contract/tool-definition.js';
import { catalogDigest } from '../lambda/store/catalog-digest.js';
import { DynamoDbDeclaredCatalog } from '../lambda/store/dynamodb-declared-catalog.js';

/** Writes `tools` as the declared catalog on `tableName` and returns its key. */
export async function writeDeclaredCatalog(
  dynamoDb: DynamoDBClient,
  tableName: string,
  tools: readonly ToolDefinition[],
): Promise<string> {
  const key = declaredCatalogKey(catalogDigest(tools));
  await new DynamoDbDeclaredCatalog({ client: DynamoDBDocumentClient.from(dynamoDb), tableName }).write(key, tools);
  return key;
}
