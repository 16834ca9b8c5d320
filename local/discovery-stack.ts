// Tool discovery on the local stack: the Schema Registry stand-in, one example machine created the way a team's own
// would be (tagged, its input schema in the registry, no addTool), and the catalog refresher run on a timer in place
// of the deployed refresher's schedule and CloudTrail trigger. A machine created or tagged by hand on the emulator
// (the AWS CLI with --endpoint-url) becomes a tool within a refresh and the MCP function's catalog read.
import {
  ConflictException,
  CreateRegistryCommand,
  CreateSchemaCommand,
  DescribeSchemaCommand,
  SchemasClient,
  UpdateSchemaCommand,
} from '@aws-sdk/client-schemas';
import { CreateStateMachineCommand, type SFNClient } from '@aws-sdk/client-sfn';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Logger } from '../lambda/core/logger.js';
import { createCatalogRefresher } from '../lambda/handlers/tool-catalog-refresh-core.js';
import { EXAMPLE_DISCOVERY } from '../lambda/example-tools/example-discovery.js';
import { DISCOVERY_TAGS, type DiscoverySelection } from '../lambda/contract/discovery-selection.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './local-aws.js';
import { startSchemaRegistryStandIn } from './schema-registry-stand-in.js';
import { portInUseOr } from './free-port.js';
import { PORT_VARIABLES } from './local-ports.js';

/** What the local stack selects: machines tagged as a team would tag its own. */
const LOCAL_TAG = EXAMPLE_DISCOVERY.tag;
export const LOCAL_DISCOVERY: DiscoverySelection = EXAMPLE_DISCOVERY;

const EXAMPLE_MACHINE = 'greet-discovered';
const EXAMPLE_REGISTRY = 'mcp-examples';
const EXAMPLE_SCHEMA = 'GreetInput';

export interface LocalDiscovery {
  readonly schemaRegistryEndpoint: string;
  /** The selection in force, as a person would type it. */
  readonly description: string;
  stop(): Promise<void>;
}

export async function startLocalDiscovery(options: {
  readonly stepFunctions: SFNClient;
  readonly dynamoDb: DynamoDBClient;
  readonly tableName: string;
  /** The tools written in code, whose names a discovered machine never takes. */
  readonly reservedNames: ReadonlySet<string>;
  readonly intervalMs: number;
  readonly logger: Logger;
  /** The Schema Registry stand-in's port. @default any free port */
  readonly schemaRegistryPort?: number;
  /** The file the stand-in keeps its registries and schemas in across restarts. @default none: in memory */
  readonly schemaRegistryStateFile?: string;
}): Promise<LocalDiscovery> {
  const registry = await startSchemaRegistryStandIn({
    ...(options.schemaRegistryPort ? { port: options.schemaRegistryPort } : {}),
    ...(options.schemaRegistryStateFile !== undefined ? { stateFile: options.schemaRegistryStateFile } : {}),
  }).catch((error: unknown) =>
    Promise.reject(portInUseOr(error, options.schemaRegistryPort ?? 0, '127.0.0.1', PORT_VARIABLES.schemaRegistry)),
  );
  const schemas = new SchemasClient({
    endpoint: registry.endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  await putExampleSchema(
    schemas,
    JSON.stringify({
      $schema: 'http://json-schema.org/draft-04/schema#',
      type: 'object',
      properties: { name: { type: 'string', minLength: 1, description: 'Who to greet.' } },
      required: ['name'],
      additionalProperties: false,
    }),
  );
  await options.stepFunctions.send(
    new CreateStateMachineCommand({
      name: EXAMPLE_MACHINE,
      roleArn: 'arn:aws:iam::000000000000:role/local',
      definition: JSON.stringify({
        Comment: 'Greets someone by name. A machine of its own, made a tool by its tags, not by code.',
        StartAt: 'Greet',
        States: {
          Greet: { Type: 'Pass', Parameters: { 'greeting.$': "States.Format('Hello, {}!', $.name)" }, End: true },
        },
      }),
      tags: [
        { key: LOCAL_TAG.key, value: LOCAL_TAG.value },
        { key: DISCOVERY_TAGS.inputSchemaArn, value: registry.schemaArn(EXAMPLE_REGISTRY, EXAMPLE_SCHEMA) },
      ],
    }),
  );
  // The deployed refresher's composition root, on the stand-ins' clients.
  const refresher = createCatalogRefresher(
    { tableName: options.tableName, selection: LOCAL_DISCOVERY, reservedNames: options.reservedNames },
    { dynamoDb: options.dynamoDb, stepFunctions: options.stepFunctions, schemas },
    options.logger,
  );
  await refresher.refresh();
  const timer = setInterval(() => {
    refresher
      .refresh()
      .catch((error: unknown) => options.logger.warn('Tool catalog refresh failed', { error: String(error) }));
  }, options.intervalMs);
  timer.unref();
  return {
    schemaRegistryEndpoint: registry.endpoint,
    description: `tag ${LOCAL_TAG.key}=${LOCAL_TAG.value}, schema ARN tag ${DISCOVERY_TAGS.inputSchemaArn}`,
    stop: async () => {
      clearInterval(timer);
      await registry.stop();
    },
  };
}

/**
 * The example's registry and schema, as a team would create them. With kept state they may be there from a previous
 * run: the registry is then left as it is, and the schema too unless its content has changed since.
 */
async function putExampleSchema(schemas: SchemasClient, content: string): Promise<void> {
  const alreadyThere = (error: unknown): undefined => {
    if (error instanceof ConflictException) return undefined;
    throw error;
  };
  await schemas.send(new CreateRegistryCommand({ RegistryName: EXAMPLE_REGISTRY })).catch(alreadyThere);
  const schema = { RegistryName: EXAMPLE_REGISTRY, SchemaName: EXAMPLE_SCHEMA };
  const created = await schemas
    .send(new CreateSchemaCommand({ ...schema, Type: 'JSONSchemaDraft4', Content: content }))
    .catch(alreadyThere);
  if (created !== undefined) return;
  const { Content } = await schemas.send(new DescribeSchemaCommand(schema));
  if (Content !== content)
    await schemas.send(new UpdateSchemaCommand({ ...schema, Type: 'JSONSchemaDraft4', Content: content }));
}
