// The task core: store, executor, registry and task service from one config, without the MCP HTTP app. Its own
// module so that a function serving no MCP (status sync) bundles neither the MCP SDK nor the protocol layer.
import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SFNClient } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { StepFunctionsExecutor } from '../executor/step-functions-executor.js';
import { InputService } from '../input/input-service.js';
import { TaskService, type Logger } from '../service/task-service.js';
import type { TaskServiceSettings } from '../service/settings.js';
import { DynamoDbInputRequests } from '../store/dynamodb-input-requests.js';
import { NO_TASK_METRICS, type TaskMetrics } from '../service/task-metrics.js';
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
  /** Answers to the input requests of tasks (issue 8). */
  readonly inputs: InputService;
}

/**
 * Bounds on every AWS call. The SDK's defaults wait forever for a socket, and the Lambda sits behind API Gateway,
 * which gives up after 29 s: a hung DynamoDB or Step Functions call must fail fast enough for the function to
 * answer (and a plain call to stop its execution) within that. A connection inside a region takes milliseconds,
 * so 1 s means the endpoint is unreachable; 3 s covers a slow answer of any call made here (all single-item).
 */
export const AWS_CONNECT_TIMEOUT_MS = 1_000;
export const AWS_REQUEST_TIMEOUT_MS = 3_000;
/** The first try and two retries (the SDK default): with the bounds above a dead endpoint fails in about 10 s. */
export const AWS_MAX_ATTEMPTS = 3;

/** The client options every AWS client here shares: bounded connect, request and retries. */
export const AWS_CLIENT_BOUNDS = {
  maxAttempts: AWS_MAX_ATTEMPTS,
  // Without throwOnRequestTimeout the SDK only logs a warning when the request timeout passes and waits on.
  requestHandler: { connectionTimeout: AWS_CONNECT_TIMEOUT_MS, requestTimeout: AWS_REQUEST_TIMEOUT_MS, throwOnRequestTimeout: true },
} as const;

/**
 * AWS clients as the SDK configures them from the environment (region, credentials, AWS_ENDPOINT_URL_* overrides), with
 * bounded calls.
 */
export function defaultClients(): BackendClients {
  return { dynamoDb: new DynamoDBClient({ ...AWS_CLIENT_BOUNDS }), stepFunctions: new SFNClient({ ...AWS_CLIENT_BOUNDS }) };
}

export const defaultLogger = (): Logger => new PowertoolsLogger({ serviceName: 'mcp-tasks' });

/** Store, executor, registry and task service without the MCP HTTP app: what a function that serves no tools needs. */
export function createTaskCore(
  config: TaskCoreConfig,
  clients: BackendClients = defaultClients(),
  logger: Logger = defaultLogger(),
  metrics: TaskMetrics = NO_TASK_METRICS,
): TaskCore {
  const client = DynamoDBDocumentClient.from(clients.dynamoDb, { marshallOptions: { removeUndefinedValues: true } });
  const store = new DynamoDbTaskStore({ client, tableName: config.tableName });
  const executor = new StepFunctionsExecutor({ client: clients.stepFunctions });
  const tools = new ToolRegistry(config.tools ?? []);
  const service = new TaskService({ store, executor, tools, settings: config.settings, logger, metrics });
  const inputs = new InputService({ service, inputs: new DynamoDbInputRequests({ client, tableName: config.tableName }), executor, logger });
  return { service, store, tools, inputs };
}

