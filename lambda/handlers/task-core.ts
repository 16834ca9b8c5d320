// The task core: store, executor, registry and task service from one config, without the MCP HTTP app. Its own
// module so that a function serving no MCP (status sync) bundles neither the MCP SDK nor the protocol layer.
import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SFNClient } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { StepFunctionsExecutor } from '../executor/step-functions-executor.js';
import { TaskService, type Logger } from '../service/task-service.js';
import type { TaskServiceSettings } from '../service/settings.js';
import { DynamoDbTaskStore } from '../store/dynamodb-task-store.js';
import type { ToolDefinition } from '../tools/tool-definition.js';
import { ToolRegistry } from '../tools/tool-registry.js';

export interface TaskCoreConfig {
  readonly tableName: string;
  readonly settings: TaskServiceSettings;
  /** The tools calls may start; none for a function that only records status. */
  readonly tools?: readonly ToolDefinition[];
}

export interface BackendClients {
  readonly dynamoDb: DynamoDBClient;
  readonly stepFunctions: SFNClient;
}

export interface TaskCore {
  readonly service: TaskService;
  readonly store: DynamoDbTaskStore;
  readonly tools: ToolRegistry;
}

/** AWS clients as the SDK configures them from the environment (region, credentials, AWS_ENDPOINT_URL_* overrides). */
export function defaultClients(): BackendClients {
  return { dynamoDb: new DynamoDBClient({}), stepFunctions: new SFNClient({}) };
}

export const defaultLogger = (): Logger => new PowertoolsLogger({ serviceName: 'mcp-tasks' });

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

