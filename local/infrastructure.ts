// The local stand-ins for AWS: DynamoDB Local and the Step Functions emulator, with the example tools registered.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateStateMachineCommand, SFNClient } from '@aws-sdk/client-sfn';
import { definitionWithArns, EXAMPLE_TOOLS } from '../lambda/example-tools/catalog.js';
import type { ToolDefinition } from '../lambda/tools/tool-definition.js';
import { startDynamoDbLocal } from './dynamodb-local.js';
import { LOCAL_ACCOUNT, LOCAL_CREDENTIALS, LOCAL_REGION } from './local-aws.js';
import { startStepFunctionsEmulator } from './step-functions/emulator.js';
import { createTaskTable } from './task-table.js';

export interface LocalInfrastructure {
  readonly dynamoDbEndpoint: string;
  readonly stepFunctionsEndpoint: string;
  /** The example tools, registered as state machines on the emulator. */
  readonly tools: ToolDefinition[];
  /** How many executions the emulator has started (to prove retries start none twice). */
  executionsStarted(): number;
  /** A new, empty task table. */
  createTable(tableName: string): Promise<void>;
  stop(): Promise<void>;
}

type Handler = (event: unknown) => Promise<unknown>;

const lambdaArn = (functionName: string): string => `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:${functionName}`;

async function loadLambdaHandlers(): Promise<Record<string, Handler>> {
  const handlers: Record<string, Handler> = {};
  for (const step of EXAMPLE_TOOLS.flatMap((tool) => Object.values(tool.lambdaSteps))) {
    const module = (await import(step.entry)) as { handler: Handler };
    handlers[step.functionName] = module.handler;
  }
  return handlers;
}

export function localClients(endpoints: { dynamoDbEndpoint: string; stepFunctionsEndpoint: string }): { dynamoDb: DynamoDBClient; stepFunctions: SFNClient } {
  const common = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  return {
    dynamoDb: new DynamoDBClient({ ...common, endpoint: endpoints.dynamoDbEndpoint }),
    stepFunctions: new SFNClient({ ...common, endpoint: endpoints.stepFunctionsEndpoint }),
  };
}

export async function startLocalInfrastructure(): Promise<LocalInfrastructure> {
  const dynamoDb = await startDynamoDbLocal();
  const stepFunctions = await startStepFunctionsEmulator({ region: LOCAL_REGION, accountId: LOCAL_ACCOUNT, lambdaHandlers: await loadLambdaHandlers() }).catch(
    async (error: unknown) => {
      await dynamoDb.stop();
      throw error;
    },
  );
  const endpoints = { dynamoDbEndpoint: dynamoDb.endpoint, stepFunctionsEndpoint: stepFunctions.url };
  const clients = localClients(endpoints);
  const stop = async (): Promise<void> => {
    clients.dynamoDb.destroy();
    clients.stepFunctions.destroy();
    await Promise.allSettled([stepFunctions.close(), dynamoDb.stop()]);
  };
  try {
    const tools: ToolDefinition[] = [];
    for (const tool of EXAMPLE_TOOLS) {
      const { stateMachineArn } = await clients.stepFunctions.send(
        new CreateStateMachineCommand({
          name: tool.name.replace(/_/g, '-'),
          definition: definitionWithArns(tool, (step) => lambdaArn(step.functionName)),
          roleArn: `arn:aws:iam::${LOCAL_ACCOUNT}:role/local-step-functions`,
        }),
      );
      tools.push({ name: tool.name, title: tool.title, description: tool.description, inputSchema: tool.inputSchema, stateMachineArn: stateMachineArn! });
    }
    return {
      ...endpoints,
      tools,
      executionsStarted: () => stepFunctions.executionsStarted,
      createTable: (tableName) => createTaskTable(clients.dynamoDb, tableName),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
