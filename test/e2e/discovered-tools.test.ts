// The account's own machines as tools, end to end: machines created and tagged on the emulator at run time, the
// catalog refresher run on real clients, and MCP servers on the same table serving what it found to the official
// client. A discovered tool is listed with the schema the Schema Registry holds for it, runs as a plain call and as a
// task, its schema refuses bad arguments, and once its tag is removed an instance that reads the catalog afresh refuses
// it, while a task started before finishes and stays readable.
import { randomUUID } from 'node:crypto';
import { CreateStateMachineCommand, UntagResourceCommand } from '@aws-sdk/client-sfn';
import { CreateRegistryCommand, CreateSchemaCommand, SchemasClient } from '@aws-sdk/client-schemas';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DISCOVERY_TAGS } from '../../lambda/contract/discovery-selection.js';
import type { CatalogRefresher } from '../../lambda/discovery/catalog-refresher.js';
import { createCatalogRefresher } from '../../lambda/handlers/tool-catalog-refresh-core.js';
import { countAwsCalls } from '../../local/aws-call-counter.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/local-aws.js';
import { startSchemaRegistryStandIn, type SchemaRegistryStandIn } from '../../local/schema-registry-stand-in.js';
import {
  connectClient,
  createTestTable,
  GENEROUS_WAIT,
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
  const schemas = new SchemasClient({
    endpoint: registry.endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  refresher = createCatalogRefresher(
    { tableName, selection: { namePrefix: prefix, tag: { key: 'mcp:tool', value: 'true' } }, reservedNames: new Set() },
    { dynamoDb: localAwsClients().dynamoDb, stepFunctions, schemas },
    silentLogger,
  );
  await schemas.send(new CreateRegistryCommand({ RegistryName: 'tools' }));
  // The tool's input schema, kept in the registry (Draft 4, as EventBridge writes them) and named by the machine's tag.
  await schemas.send(
    new CreateSchemaCommand({
      RegistryName: 'tools',
      SchemaName: TOOL,
      Type: 'JSONSchemaDraft4',
      Content: JSON.stringify({ $schema: 'http://json-schema.org/draft-04/schema#', ...INPUT_SCHEMA }),
    }),
  );
  ({ stateMachineArn: machineArn = '' } = await stepFunctions.send(
    new CreateStateMachineCommand({
      name: TOOL,
      definition: JSON.stringify({
        Comment: 'Echoes its input.',
        StartAt: 'Pause',
        States: { Pause: { Type: 'Wait', Seconds: 3, Next: 'Echo' }, Echo: { Type: 'Pass', End: true } },
      }),
      roleArn: 'arn:aws:iam::000000000000:role/local',
      tags: [
        { key: 'mcp:tool', value: 'true' },
        { key: DISCOVERY_TAGS.inputSchemaArn, value: registry.schemaArn('tools', TOOL) },
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

  it('is listed with its description and the input schema the registry holds for it', async () => {
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === TOOL)).toMatchObject({
      description: 'Echoes its input.',
      inputSchema: INPUT_SCHEMA,
      execution: { taskSupport: 'optional' },
    });
  });

  it('is listed beside the declared tools when an instance reads its declared catalog after the discovered one', async () => {
    // As deployed: a session's initialize reads the discovered catalog, its first tools/list the declared one.
    const server = await startTestServer({}, { tableName, discoveredTools: true, declaredCatalog: true });
    servers.push(server);
    const deployed = await connectClient(server.url, undefined, { listens: false });
    mcpClients.push(deployed);
    const names = (await deployed.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain(TOOL);
    expect(names).toContain('text_stats');
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

  it('is refused to new calls once its tag is removed, while a task started before finishes and stays readable', async () => {
    const { task: running } = await client.request(
      { method: 'tools/call', params: { name: TOOL, arguments: { word: 'running' }, task: { ttl: 600_000 } } },
      CreateTaskResultSchema,
    );
    await stepFunctions.send(new UntagResourceCommand({ resourceArn: machineArn, tagKeys: ['mcp:tool'] }));
    expect(await refresher.refresh()).toMatchObject({ tools: 0, changed: true });
    const later = await freshInstance();
    expect((await later.listTools()).tools.map((tool) => tool.name)).not.toContain(TOOL);
    await expect(later.callTool({ name: TOOL, arguments: { word: 'late' } })).rejects.toThrow(/-32602: Unknown tool/);
    expect(await later.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'completed' });
    // Its machine paused for 3 s: still running while its tool left the catalog.
    expect(['submitted', 'working']).toContain((await later.experimental.tasks.getTask(running.taskId)).status);
    await vi.waitUntil(
      async () => (await later.experimental.tasks.getTask(running.taskId)).status === 'completed',
      GENEROUS_WAIT,
    );
    expect(await later.experimental.tasks.getTaskResult(running.taskId, CallToolResultSchema)).toMatchObject({
      structuredContent: { word: 'running' },
    });
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
