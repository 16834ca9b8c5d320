// The catalog refresher on real clients: the Step Functions emulator's machines and tags, the Schema Registry
// stand-in, and the catalog item on DynamoDB Local. Machines are created and tagged at run time, as a team would with
// the AWS CLI; a refresh turns the selected ones into tools, follows a new schema version, and drops an untagged one.
import { randomUUID } from 'node:crypto';
import {
  CreateRegistryCommand,
  CreateSchemaCommand,
  SchemasClient,
  UpdateSchemaCommand,
} from '@aws-sdk/client-schemas';
import { CreateStateMachineCommand, TagResourceCommand, UntagResourceCommand } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISCOVERY_TAGS } from '../../lambda/contract/discovery-selection.js';
import type { CatalogRefresher } from '../../lambda/discovery/catalog-refresher.js';
import { createCatalogRefresher } from '../../lambda/handlers/tool-catalog-refresh-core.js';
import { DynamoDbDiscoveredCatalog } from '../../lambda/store/dynamodb-discovered-catalog.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/local-aws.js';
import { startSchemaRegistryStandIn, type SchemaRegistryStandIn } from '../../local/schema-registry-stand-in.js';
import { createTestTable, localAwsClients, silentLogger } from '../support/local-backend.js';

const prefix = `disc-${randomUUID().slice(0, 8)}-`;
const selection = { namePrefix: prefix, tag: { key: 'mcp:tool', value: 'true' } };
const { stepFunctions } = localAwsClients();
let registry: SchemaRegistryStandIn;
let schemas: SchemasClient;
let store: DynamoDbDiscoveredCatalog;
let refresher: CatalogRefresher;

const refundSchema = (required: string[]) =>
  JSON.stringify({ type: 'object', properties: { orderId: { type: 'string' }, reason: { type: 'string' } }, required });

async function createMachine(name: string, tags: Record<string, string>, type: 'STANDARD' | 'EXPRESS' = 'STANDARD') {
  const definition = {
    Comment: `The ${name} workflow.`,
    StartAt: 'Done',
    States: { Done: { Type: 'Pass', End: true } },
  };
  const { stateMachineArn } = await stepFunctions.send(
    new CreateStateMachineCommand({
      name: prefix + name,
      type,
      definition: JSON.stringify(definition),
      roleArn: 'arn:aws:iam::000000000000:role/local',
      tags: Object.entries(tags).map(([key, value]) => ({ key, value })),
    }),
  );
  return stateMachineArn!;
}

beforeAll(async () => {
  registry = await startSchemaRegistryStandIn();
  schemas = new SchemasClient({ endpoint: registry.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  await schemas.send(new CreateRegistryCommand({ RegistryName: 'orders' }));
  const tableName = await createTestTable();
  // The catalog as the MCP function reads it.
  store = new DynamoDbDiscoveredCatalog({ client: DynamoDBDocumentClient.from(localAwsClients().dynamoDb), tableName });
  refresher = createCatalogRefresher(
    { tableName, selection, reservedNames: new Set() },
    { dynamoDb: localAwsClients().dynamoDb, stepFunctions, schemas },
    silentLogger,
  );
});
afterAll(async () => {
  await registry?.stop();
});

describe('the catalog refresher on the emulator and the registry stand-in', () => {
  let refundArn: string;

  it('makes the tagged machines its prefix names tools, with their registry schemas, and no others', async () => {
    await schemas.send(
      new CreateSchemaCommand({
        RegistryName: 'orders',
        SchemaName: `${prefix}Refund`,
        Type: 'JSONSchemaDraft4',
        Content: refundSchema(['orderId']),
      }),
    );
    refundArn = await createMachine('refund', {
      'mcp:tool': 'true',
      [DISCOVERY_TAGS.inputSchemaArn]: registry.schemaArn('orders', `${prefix}Refund`),
    });
    await createMachine('quick', { 'mcp:tool': 'true' }, 'EXPRESS');
    await createMachine('internal', {});
    expect(await refresher.refresh()).toMatchObject({ tools: 2, skipped: [], changed: true });
    const { tools } = (await store.read())!;
    expect(tools).toEqual([
      expect.objectContaining({
        name: `${prefix}quick`,
        taskSupport: 'forbidden',
        expressStateMachineArn: expect.stringContaining(`${prefix}quick`),
      }),
      expect.objectContaining({
        name: `${prefix}refund`,
        description: 'The refund workflow.',
        inputSchema: expect.objectContaining({ required: ['orderId'] }),
        stateMachineArn: refundArn,
        taskSupport: 'optional',
      }),
    ]);
  });

  it('finds nothing new when nothing changed, and follows a new version of a schema', async () => {
    expect((await refresher.refresh()).changed).toBe(false);
    await schemas.send(
      new UpdateSchemaCommand({
        RegistryName: 'orders',
        SchemaName: `${prefix}Refund`,
        Type: 'JSONSchemaDraft4',
        Content: refundSchema(['orderId', 'reason']),
      }),
    );
    expect((await refresher.refresh()).changed).toBe(true);
    const refund = (await store.read())!.tools.find((tool) => tool.stateMachineArn === refundArn);
    expect(refund?.inputSchema).toMatchObject({ required: ['orderId', 'reason'] });
  });

  it('drops a machine whose tag is removed at the next refresh', async () => {
    await stepFunctions.send(new UntagResourceCommand({ resourceArn: refundArn, tagKeys: ['mcp:tool'] }));
    expect(await refresher.refresh()).toMatchObject({ tools: 1, changed: true });
    expect((await store.read())!.tools.map((tool) => tool.name)).toEqual([`${prefix}quick`]);
  });

  it('takes a machine tagged after it was created at the next refresh', async () => {
    await stepFunctions.send(
      new TagResourceCommand({ resourceArn: refundArn, tags: [{ key: 'mcp:tool', value: 'true' }] }),
    );
    expect(await refresher.refresh()).toMatchObject({ tools: 2, changed: true });
  });
});
