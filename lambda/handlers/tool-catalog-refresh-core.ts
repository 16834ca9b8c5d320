// The composition root of the tool catalog refresher: its Step Functions and Schema Registry sources and the catalog
// store, from one config. Serves no MCP, so it bundles neither the MCP SDK nor the task service.
import type { SchemasClient } from '@aws-sdk/client-schemas';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../core/clock.js';
import { SYSTEM_CLOCK } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { CatalogRefresher } from '../discovery/catalog-refresher.js';
import { SchemaRegistrySource } from '../discovery/schema-registry-source.js';
import { StepFunctionsMachineSource } from '../discovery/step-functions-machine-source.js';
import { DynamoDbDiscoveredCatalog } from '../store/dynamodb-discovered-catalog.js';
import type { BackendClients } from './aws-clients.js';
import type { CatalogRefreshConfig } from './tool-catalog-refresh-environment.js';

export interface CatalogRefreshClients extends BackendClients {
  readonly schemas: SchemasClient;
}

export function createCatalogRefresher(
  config: CatalogRefreshConfig,
  clients: CatalogRefreshClients,
  logger: Logger,
  clock: Pick<Clock, 'now'> = SYSTEM_CLOCK,
): CatalogRefresher {
  const client = DynamoDBDocumentClient.from(clients.dynamoDb, { marshallOptions: { removeUndefinedValues: true } });
  return new CatalogRefresher({
    machines: new StepFunctionsMachineSource(clients.stepFunctions),
    schemas: new SchemaRegistrySource(clients.schemas),
    store: new DynamoDbDiscoveredCatalog({ client, tableName: config.tableName }),
    selection: config.selection,
    reservedNames: config.reservedNames,
    clock,
    logger,
  });
}
