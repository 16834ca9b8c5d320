// The composition root of the expiry sweep: store, executor and sweep from one config. The Lambda handler and the
// local stack both build it here. Serves no MCP, so it bundles neither the MCP SDK nor the tool registry.
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { StepFunctionsExecutor } from '../executor/step-functions-executor.js';
import { ExpirySweep, type ExpirySweepSettings } from '../service/expiry-sweep.js';
import type { TaskMetrics } from '../service/task-metrics.js';
import type { Logger } from '../service/task-service.js';
import { DynamoDbExpirySweepStore } from '../store/dynamodb-expiry-sweep-store.js';
import { DynamoDbTaskStore } from '../store/dynamodb-task-store.js';
import { defaultClients } from './aws-clients.js';
import { defaultLogger, type BackendClients } from './task-core.js';

export interface ExpirySweepConfig {
  readonly tableName: string;
  readonly settings?: Partial<ExpirySweepSettings>;
}

export function createExpirySweep(
  config: ExpirySweepConfig,
  clients: BackendClients = defaultClients(),
  logger: Logger = defaultLogger(),
  metrics?: TaskMetrics,
  now?: () => number,
): ExpirySweep {
  const client = DynamoDBDocumentClient.from(clients.dynamoDb, { marshallOptions: { removeUndefinedValues: true } });
  return new ExpirySweep({
    store: new DynamoDbExpirySweepStore({ client, tableName: config.tableName }),
    slots: new DynamoDbTaskStore({ client, tableName: config.tableName }),
    executor: new StepFunctionsExecutor({ client: clients.stepFunctions }),
    logger,
    ...(metrics ? { metrics } : {}),
    ...(config.settings ? { settings: config.settings } : {}),
    ...(now ? { now } : {}),
  });
}
