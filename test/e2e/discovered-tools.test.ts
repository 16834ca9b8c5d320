// The account's own machines as tools, end to end: machines created and tagged on the emulator at run time, the
// catalog refresher run on real clients, and MCP servers on the same table serving what it found to the official
// client. A discovered tool runs as a plain call and as a task, its schema refuses bad arguments, and once its tag is
// removed an instance that reads the catalog afresh refuses it, while its task stays readable.
import { randomUUID } from 'node:crypto';
import { CreateStateMachineCommand, UntagResourceCommand } from '@aws-sdk/client-sfn';
import { SchemasClient } from '@aws-sdk/client-schemas';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISCOVERY_TAGS } from '../../lambda/contract/discovery-selection.js';
import type { CatalogRefresher } from '../../lambda/discovery/catalog-refresher.js';
import { createCatalogRefresher } from '../../lambda/handlers/tool-catalog-refresh-core.js';
import { countAwsCalls } from '../../local/aws-call-counter.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/local-aws.js';
import { startSchemaRegistryStandIn, type SchemaRegistryStandIn } from '../../local/schema-registry-stand-in.js';
import {
  connectClient,
  createTestTable,
  localAwsClients,
  silentLogger,
  startTestServer,
  type TestServer,
} from '../support/local-backend.js';

const prefix = `found-${randomUUID().slice(0, 8)}-`;
const TOOL = `${prefix}echo`;
const INPUT_SCHEMA = { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] };
const { stepFunctions } = localAwsClients();
let registry: SchemaRegistryStandIn;
let tableName: string;
let refresher: CatalogRefresher;
let machineArn: string;
const servers: TestServer[] = [];
const mcpClients: Client[] = [];

/**
 * A new MCP server instance on the table, and a client of it: it reads the catalog on its first request. `listens`:
 * see connectClient (a listening stream reads the catalog too: see tool-list-changed.test.ts).
 */
async function freshInstance(aws = localAwsClients(), listens = true): Promise<Client> {
  const server = await startTestServer({}, { tableName, discoveredTools: true, clients: aws });
  servers.push(server);
  const client = await connectClient(server.url, undefined, { listens });
  mcpClients.push(client);
  return client;
}

beforeAll(async () => {
  registry = await startSchemaRegistryStandIn();
  tableName = await createTestTable();
  refresher = createCatalogRefresher(
    { tableName, selection: { namePrefix: prefix, tag: { key: 'mcp:tool', value: 'true' } }, reservedNames: new Set() },
    {
      dynamoDb: localAwsClients().dynamoDb,
      stepFunctions,
      schemas: new SchemasClient({ endpoint: registry.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }),
    },
    silentLogger,
  );
  ({ stateMachineArn: machineArn = '' } = await stepFunctions.send(
    new CreateStateMachineCommand({
      name: TOOL,
      definition: JSON.stringify({
        Comment: 'Echoes its input.',
        StartAt: 'Echo',
        States: { Echo: { Type: 'Pass', End: true } },
      }),
      roleArn: 'arn:aws:iam::000000000000:role/local',
      tags: [
        { key: 'mcp:tool', value: 'true' },
        { key: DISCOVERY_TAGS.inputSchema, value: JSON.stringify(INPUT_SCHEMA) },
      ],
    }),
  ));
  await refresher.refresh();
});
afterAll(async () => {
  for (const client of mcpClients) await client.close();
  for (const server of servers) await server.close();
  await registry?.stop();
});

describe('a machine made a tool without code', () => {
  let client: Client;
  let taskId: string;

  beforeAll(async () => {
    client = await freshInstance();
  });

  it('is listed with its description and the schema its tag holds', async () => {
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === TOOL)).toMatchObject({
      description: 'Echoes its input.',
      inputSchema: INPUT_SCHEMA,
      execution: { taskSupport: 'optional' },
    });
  });

  it('runs as a plain call and as a task, each to the machine’s output', async () => {
    expect(await client.callTool({ name: TOOL, arguments: { word: 'plain' } })).toMatchObject({
      structuredContent: { word: 'plain' },
    });
    const stream = client.experimental.tasks.callToolStream(
      { name: TOOL, arguments: { word: 'task' } },
      CallToolResultSchema,
      { task: { ttl: 600_000 } },
    );
    const seen: string[] = [];
    for await (const message of stream) {
      seen.push(message.type);
      if (message.type === 'taskCreated') taskId = message.task.taskId;
      if (message.type === 'result') expect(message.result).toMatchObject({ structuredContent: { word: 'task' } });
    }
    expect(seen).toEqual(expect.arrayContaining(['taskCreated', 'result']));
  });

  it('refuses arguments its schema refuses, with the schema’s reason', async () => {
    const result = await client.callTool({ name: TOOL, arguments: { word: 7 } });
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: /word.*must be string/ }] });
  });

  it('is refused to new calls once its tag is removed, while its task stays readable', async () => {
    await stepFunctions.send(new UntagResourceCommand({ resourceArn: machineArn, tagKeys: ['mcp:tool'] }));
    expect(await refresher.refresh()).toMatchObject({ tools: 0, changed: true });
    const later = await freshInstance();
    expect((await later.listTools()).tools.map((tool) => tool.name)).not.toContain(TOOL);
    await expect(later.callTool({ name: TOOL, arguments: { word: 'late' } })).rejects.toThrow(/-32602: Unknown tool/);
    expect(await later.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'completed' });
  });

  it('costs an instance one catalog read in its first request, none in tools/list within the interval, and never a listing of the account', async () => {
    const aws = localAwsClients();
    const counter = countAwsCalls(aws);
    const counted = await freshInstance(aws, false);
    expect(counter.calls).toEqual({ GetItemCommand: 1 });
    counter.reset();
    await counted.listTools();
    await counted.listTools();
    expect(counter.total()).toBe(0);
  });
});
