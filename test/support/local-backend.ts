// Test fixtures: a fresh task table and an MCP server on loopback over the shared local stand-ins.
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { inject } from 'vitest';
import { createBackend, type Backend } from '../../lambda/handlers/backend.js';
import { createTaskCore } from '../../lambda/handlers/task-core.js';
import { DEFAULT_SETTINGS, type TaskServiceSettings } from '../../lambda/service/settings.js';
import type { TaskMetrics } from '../../lambda/core/task-metrics.js';
import type { PromptDefinition } from '../../lambda/prompts/prompt-definition.js';
import type { ToolDefinition } from '../../lambda/contract/tool-definition.js';
import { bearerTokenOwners, LOOPBACK_HOSTS, startDevServer, type OwnerResolver } from '../../local/dev-server.js';
import { writeDeclaredCatalog } from '../../local/declared-tool-catalog.js';
import { localClients } from '../../local/infrastructure.js';
import { createEventTable, createTaskTable } from '../../local/dynamodb-local-tables.js';
import {
  startLocalTaskEvents,
  type LocalTaskEvents,
  type LocalTaskEventsOptions,
} from '../../local/task-events-stack.js';

export const silentLogger = { info: () => {}, warn: () => {}, error: () => {} };

export function localAwsClients() {
  return localClients({
    dynamoDbEndpoint: inject('dynamoDbEndpoint'),
    stepFunctionsEndpoint: inject('stepFunctionsEndpoint'),
  });
}

/** The example tools, registered on the shared emulator: what test servers serve unless told otherwise. */
export function exampleTools(): ToolDefinition[] {
  return inject('tools');
}

/** The EXPRESS example tools on the shared emulator, each with its EXPRESS machine and its STANDARD wrapper. */
export function expressTools(): ToolDefinition[] {
  return inject('expressTools');
}

/**
 * The conformance suite's fixture tools on the shared emulator; `startTestServer({}, { tools: conformanceTools() })`
 * serves them.
 */
export function conformanceTools(): ToolDefinition[] {
  return inject('conformanceTools');
}

/**
 * The table the emulator's progress step writes to (one per emulator, as one per deployed endpoint): a test server
 * whose tasks must show workflow progress serves from it (`startTestServer({}, { tableName: progressTable() })`).
 */
export function progressTable(): string {
  return inject('progressTableName');
}

export async function createTestTable(): Promise<string> {
  const tableName = `tasks-${randomUUID()}`;
  const { dynamoDb } = localAwsClients();
  await createTaskTable(dynamoDb, tableName);
  dynamoDb.destroy();
  return tableName;
}

/** A fresh events table (task event logs and webhook subscriptions), laid out as the CDK construct deploys it. */
export async function createTestEventTable(): Promise<string> {
  const tableName = `events-${randomUUID()}`;
  const { dynamoDb } = localAwsClients();
  await createEventTable(dynamoDb, tableName);
  dynamoDb.destroy();
  return tableName;
}

/** Tokens the test servers accept, each naming its owner. */
export const TOKENS = { alice: 'token-alice', bob: 'token-bob' } as const;

export interface TestServer {
  readonly url: string;
  readonly backend: Backend;
  readonly tableName: string;
  /** Task events and webhooks, when the server was started with `events`. */
  readonly events?: LocalTaskEvents;
  close(): Promise<void>;
}

/** Task events for a test server: the local stack's stream poller, projector and delivery queue on its own tables. */
export type TestEventsOptions = Omit<
  LocalTaskEventsOptions,
  'dynamoDb' | 'dynamoDbEndpoint' | 'taskTableName' | 'eventTableName' | 'logger'
>;

export async function startTestServer(
  settings: Partial<TaskServiceSettings> = {},
  options: {
    tableName?: string;
    tools?: ToolDefinition[];
    prompts?: readonly PromptDefinition[];
    resolveOwner?: OwnerResolver;
    clients?: ReturnType<typeof localAwsClients>;
    metrics?: TaskMetrics;
    /** Serve the Events extension: a fresh event table and the pipeline that fills it. */
    events?: TestEventsOptions;
    /** Also serve the tools discovered among the emulator's machines (the catalog item in the table). */
    discoveredTools?: boolean;
    /**
     * Serve `tools` as deployed: written as the declared catalog item in the table, which the server reads at its first
     * request, rather than handed to it.
     */
    declaredCatalog?: boolean;
  } = {},
): Promise<TestServer> {
  const tableName = options.tableName ?? (await createTestTable());
  const clients = options.clients ?? localAwsClients();
  // The event pipeline and the status watcher stand in for functions of their own in AWS (the stream function, status
  // sync): their own clients, so what a test counts or throttles on `clients` is the MCP function's alone.
  const pipelineClients = localAwsClients();
  const events = options.events
    ? await startLocalTaskEvents({
        ...options.events,
        dynamoDb: pipelineClients.dynamoDb,
        dynamoDbEndpoint: inject('dynamoDbEndpoint'),
        taskTableName: tableName,
        eventTableName: await createTestEventTable(),
        logger: silentLogger,
      })
    : undefined;
  const tools = options.tools ?? exampleTools();
  const backend = createBackend(
    {
      tableName,
      ...(options.declaredCatalog
        ? { declaredCatalogKey: await writeDeclaredCatalog(pipelineClients.dynamoDb, tableName, tools) }
        : { tools }),
      ...(options.prompts ? { prompts: options.prompts } : {}),
      settings: { ...DEFAULT_SETTINGS, pollIntervalMs: 200, refreshIntervalMs: 200, ...settings },
      allowedHosts: LOOPBACK_HOSTS,
      ...(events ? { events: events.config } : {}),
      ...(options.discoveredTools ? { discoveredTools: true } : {}),
    },
    clients,
    silentLogger,
    options.metrics,
  );
  // Status sync reads each execution's news as it comes, whatever refresh interval the MCP function polls with.
  const statusSync = { tableName, settings: { ...DEFAULT_SETTINGS, pollIntervalMs: 200, refreshIntervalMs: 200 } };
  events?.followExecutions(createTaskCore(statusSync, pipelineClients, silentLogger).service);
  const server = await startDevServer(backend.app, {
    resolveOwner: options.resolveOwner ?? bearerTokenOwners({ [TOKENS.alice]: 'alice', [TOKENS.bob]: 'bob' }),
  });
  const close = async (): Promise<void> => {
    await server.close();
    await events?.stop();
  };
  return { url: server.url, backend, tableName, ...(events ? { events } : {}), close };
}

/** The official MCP client, connected over Streamable HTTP with a bearer token. */
export async function connectClient(url: string, token: string = TOKENS.alice): Promise<Client> {
  const client = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities: {} });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client;
}

/** For `vi.waitUntil`: wait for a condition, never for a clock; the cap is generous, for a busy machine. */
export const GENEROUS_WAIT = { timeout: 60_000, interval: 100 } as const;
