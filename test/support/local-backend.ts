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
import { startLocalStatusEvents, type LocalStatusEvents } from '../../local/status-events-stand-in.js';
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
    lambdaEndpoint: inject('lambdaEndpoint'),
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
 * The durable function example tools on the shared local runner of durable functions; their workflows record their
 * questions and progress on {@link progressTable}, so a server serving them serves from that table.
 */
export function durableTools(): ToolDefinition[] {
  return inject('durableTools');
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

/**
 * The status events of a test table (EventBridge and the status-sync function in AWS), on clients and a task core of
 * their own, so that what a test counts or throttles on its server's clients is the MCP function's alone.
 */
export async function startTestStatusEvents(
  tableName: string,
  stepFunctionsEndpoint: string = inject('stepFunctionsEndpoint'),
): Promise<LocalStatusEvents> {
  const clients = localClients({
    dynamoDbEndpoint: inject('dynamoDbEndpoint'),
    stepFunctionsEndpoint,
    lambdaEndpoint: inject('lambdaEndpoint'),
  });
  return startLocalStatusEvents({
    dynamoDb: clients.dynamoDb,
    dynamoDbEndpoint: inject('dynamoDbEndpoint'),
    taskTableName: tableName,
    service: createTaskCore({ tableName, settings: DEFAULT_SETTINGS }, clients, silentLogger).service,
  });
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
     * Where the status events look at executions: the emulator the tools run on. `false` runs none (a table that
     * does not exist has no stream to follow). @default the shared emulator
     */
    statusEvents?: { stepFunctionsEndpoint: string } | false;
    /** How long an instance's read of the catalog serves it. @default 30 s, as deployed */
    discoveredToolsReadIntervalMs?: number;
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
      settings: { ...DEFAULT_SETTINGS, pollIntervalMs: 200, ...settings },
      allowedHosts: LOOPBACK_HOSTS,
      ...(events ? { events: events.config } : {}),
      ...(options.discoveredTools ? { discoveredTools: true } : {}),
      ...(options.discoveredToolsReadIntervalMs !== undefined
        ? { discoveredToolsReadIntervalMs: options.discoveredToolsReadIntervalMs }
        : {}),
    },
    clients,
    silentLogger,
    options.metrics,
  );
  const statusEvents =
    options.statusEvents === false
      ? undefined
      : await startTestStatusEvents(tableName, options.statusEvents?.stepFunctionsEndpoint);
  const server = await startDevServer(backend.app, {
    resolveOwner: options.resolveOwner ?? bearerTokenOwners({ [TOKENS.alice]: 'alice', [TOKENS.bob]: 'bob' }),
  });
  const close = async (): Promise<void> => {
    await server.close();
    await statusEvents?.stop();
    await events?.stop();
  };
  return { url: server.url, backend, tableName, ...(events ? { events } : {}), close };
}

/**
 * The official MCP client, connected over Streamable HTTP with a bearer token. It opens the standalone GET stream
 * once initialized, as the SDK does, unless `listens` is false (its GET then meets a 405, as from a server that offers
 * no stream), for a test that counts only what requests cost.
 */
export async function connectClient(
  url: string,
  token: string = TOKENS.alice,
  options: { listens?: boolean } = {},
): Promise<Client> {
  const client = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities: {} });
  const noStream: typeof fetch = async (input, init) =>
    init?.method === 'GET' ? new Response(null, { status: 405 }) : fetch(input, init);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      ...(options.listens === false ? { fetch: noStream } : {}),
    }),
  );
  return client;
}

/** For `vi.waitUntil`: wait for a condition, never for a clock; the cap is generous, for a busy machine. */
export const GENEROUS_WAIT = { timeout: 60_000, interval: 100 } as const;
