// The composition root: builds store, executor, registry, task service and HTTP app from one config.
// The Lambda handler and the local dev server both build the backend here, so they run the same code.
import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SFNClient } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { StepFunctionsExecutor } from '../executor/step-functions-executor.js';
import { createMcpHttpApp, type McpHttpApp } from '../protocol/http-app.js';
import { TaskService, type Logger } from '../service/task-service.js';
import type { TaskServiceSettings } from '../service/settings.js';
import { DynamoDbTaskStore } from '../store/dynamodb-task-store.js';
import type { ToolDefinition } from '../tools/tool-definition.js';
import { ToolRegistry } from '../tools/tool-registry.js';

export interface BackendConfig {
  readonly tableName: string;
  readonly tools: readonly ToolDefinition[];
  readonly settings: TaskServiceSettings;
  readonly allowedHosts?: readonly string[];
}

export interface BackendClients {
  readonly dynamoDb: DynamoDBClient;
  readonly stepFunctions: SFNClient;
}

export interface Backend {
  readonly app: McpHttpApp;
  readonly service: TaskService;
  readonly store: DynamoDbTaskStore;
  readonly tools: ToolRegistry;
}

/** AWS clients as the SDK configures them from the environment (region, credentials, AWS_ENDPOINT_URL_* overrides). */
export function defaultClients(): BackendClients {
  return { dynamoDb: new DynamoDBClient({}), stepFunctions: new SFNClient({}) };
}

export type TaskCore = Omit<Backend, 'app'>;
export type TaskCoreConfig = Pick<BackendConfig, 'tableName' | 'settings'> & { readonly tools?: readonly ToolDefinition[] };

const defaultLogger = (): Logger => new PowertoolsLogger({ serviceName: 'mcp-tasks' });

/** Store, executor, registry and task service without the MCP HTTP app: what a function that serves no tools needs. */
export function createTaskCore(config: TaskCoreConfig, clients: BackendClients = defaultClients(), logger: Logger = defaultLogger()): TaskCore {
  const store = new DynamoDbTaskStore({
    client: DynamoDBDocumentClient.from(clients.dynamoDb, { marshallOptions: { removeUndefinedValues: true } }),
    tableName: config.tableName,
  });
  const executor = new StepFunctionsExecutor({ client: clients.stepFunctions });
  const tools = new ToolRegistry(config.tools ?? []);
  const service = new TaskService({ store, executor, tools, settings: config.settings, logger });
  return { service, store, tools };
}

export function createBackend(config: BackendConfig, clients: BackendClients = defaultClients(), logger: Logger = defaultLogger()): Backend {
  const core = createTaskCore(config, clients, logger);
  const app = createMcpHttpApp({ service: core.service, tools: core.tools, settings: config.settings, logger, ...(config.allowedHosts ? { allowedHosts: config.allowedHosts } : {}) });
  return { ...core, app };
}
