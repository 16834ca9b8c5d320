// The composition root of the expiry sweep: store, executor and sweep from one config. The Lambda handler and the
// local stack both build it here. Serves no MCP, so it bundles neither the MCP SDK nor the tool registry.
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { workflowEngines } from './workflow-engines.js';
import { ExpirySweep, type ExpirySweepSettings } from '../service/expiry-sweep-service.js';
import type { TaskMetrics } from '../core/task-metrics.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { DynamoDbExpirySweepStore } from '../store/dynamodb-expiry-sweep-store.js';
import { DynamoDbOwnerQuotas } from '../store/dynamodb-owner-quotas.js';
import { DynamoDbTaskStore } from '../store/dynamodb-task-store.js';
import { defaultClients } from './aws-clients.js';
import type { BackendClients } from './aws-clients.js';
import { defaultLogger } from './default-logger.js';

export interface ExpirySweepConfig {
  readonly tableName: string;
  readonly settings?: Partial<ExpirySweepSettings>;
}

export function createExpirySweep(
  config: ExpirySweepConfig,
  clients: BackendClients = defaultClients(),
  logger: Logger = defaultLogger(),
  metrics?: TaskMetrics,
  clock?: Pick<Clock, 'now'>,
): ExpirySweep {
  const client = DynamoDBDocumentClient.from(clients.dynamoDb, { marshallOptions: { removeUndefinedValues: true } });
  return new ExpirySweep({
    store: new DynamoDbExpirySweepStore({ client, tableName: config.tableName }),
    slots: new DynamoDbOwnerQuotas({
      client,
      tableName: config.tableName,
      tasks: new DynamoDbTaskStore({ client, tableName: config.tableName }),
    }),
    executor: workflowEngines(clients),
    logger,
    ...(metrics ? { metrics } : {}),
    ...(config.settings ? { settings: config.settings } : {}),
    ...(clock ? { clock } : {}),
  });
}
