// notifications/tools/list_changed end to end: a machine tagged on the emulator at run time, the catalog refresher run
// on real clients, and official clients listening to an MCP server on the same table: the 1.x client on its
// standalone GET stream (2025-11-25), the 2.x client on subscriptions/listen (2026-07-28). Each is told, then lists the
// new tool. A deployment whose tools are only declared claims no listChanged in either era.
import { randomUUID } from 'node:crypto';
import { CreateStateMachineCommand, TagResourceCommand } from '@aws-sdk/client-sfn';
import { SchemasClient } from '@aws-sdk/client-schemas';
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CatalogRefresher } from '../../lambda/discovery/catalog-refresher.js';
import { createCatalogRefresher } from '../../lambda/handlers/tool-catalog-refresh-core.js';
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
import { connectModernClient } from '../support/modern-client.js';

const prefix = `changed-${randomUUID().slice(0, 8)}-`;
const TAG = { key: 'mcp:tool', value: 'true' };
const { stepFunctions } = localAwsClients();
let registry: SchemaRegistryStandIn;
let tableName: string;
let refresher: CatalogRefresher;
const servers: TestServer[] = [];
const closing: { close(): Promise<void> }[] = [];

/** A state machine the selection's prefix names, not (yet) tagged: not a tool. */
async function untaggedMachine(name: string): Promise<string> {
  const { stateMachineArn = '' } = await stepFunctions.send(
    new CreateStateMachineCommand({
      name,
      definition: JSON.stringify({
        Comment: `The ${name} machine.`,
        StartAt: 'Done',
        States: { Done: { Type: 'Pass', End: true } },
      }),
      roleArn: 'arn:aws:iam::000000000000:role/local',
    }),
  );
  return stateMachineArn;
}

/** Tags the machine as a tool at run time, and runs the refresher, as its CloudTrail trigger would. */
async function makeTool(machineArn: string): Promise<void> {
  await stepFunctions.send(new TagResourceCommand({ resourceArn: machineArn, tags: [TAG] }));
  expect(await refresher.refresh()).toMatchObject({ changed: true });
}

async function server(discoveredTools: boolean): Promise<TestServer> {
  // A one-second catalog read, so that a change is told of within seconds (30 s, as deployed, would do too).
  const started = await startTestServer(
    {},
    { tableName, ...(discoveredTools ? { discoveredTools, discoveredToolsReadIntervalMs: 1_000 } : {}) },
  );
  servers.push(started);
  return started;
}

beforeAll(async () => {
  registry = await startSchemaRegistryStandIn();
  tableName = await createTestTable();
  refresher = createCatalogRefresher(
    { tableName, selection: { namePrefix: prefix, tag: TAG }, reservedNames: new Set() },
    {
      dynamoDb: localAwsClients().dynamoDb,
      stepFunctions,
      schemas: new SchemasClient({ endpoint: registry.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }),
    },
    silentLogger,
  );
  await refresher.refresh();
});
afterAll(async () => {
  for (const each of closing) await each.close();
  for (const each of servers) await each.close();
  await registry?.stop();
});

describe('a deployment with discovered tools', () => {
  let legacy: Client;
  let modern: ModernClient;
  const told = { legacy: 0, modern: 0 };

  beforeAll(async () => {
    const { url } = await server(true);
    legacy = await connectClient(url);
    legacy.setNotificationHandler(ToolListChangedNotificationSchema, () => void told.legacy++);
    closing.push(legacy);
    modern = await connectModernClient(url);
    modern.setNotificationHandler('notifications/tools/list_changed', () => void told.modern++);
    closing.push(modern);
  });

  it('declares tools.listChanged in both eras', () => {
    expect(legacy.getServerCapabilities()?.tools).toEqual({ listChanged: true });
    expect(modern.getServerCapabilities()?.tools).toEqual({ listChanged: true });
  });

  it('tells a 1.x client on its GET stream and a 2.x client on subscriptions/listen of a machine tagged at run time', async () => {
    const subscription = await modern.listen({ toolsListChanged: true });
    closing.push(subscription);
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
    const name = `${prefix}greet`;
    await makeTool(await untaggedMachine(name));
    await vi.waitUntil(() => told.legacy > 0 && told.modern > 0, GENEROUS_WAIT);
    expect((await legacy.listTools()).tools.map((tool) => tool.name)).toContain(name);
    expect((await modern.listTools()).tools.map((tool) => tool.name)).toContain(name);
  });
});

describe('a deployment whose tools are only declared', () => {
  it('declares no listChanged in either era, and acknowledges no tool list subscription', async () => {
    const { url } = await server(false);
    const legacy = await connectClient(url);
    closing.push(legacy);
    expect(legacy.getServerCapabilities()?.tools).toEqual({ listChanged: false });
    const modern = await connectModernClient(url);
    closing.push(modern);
    expect(modern.getServerCapabilities()?.tools).toEqual({ listChanged: false });
    const subscription = await modern.listen({ toolsListChanged: true });
    expect(subscription.honoredFilter).toEqual({});
    expect(await subscription.closed).toBe('graceful');
  });
});
