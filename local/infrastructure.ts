// The local stand-ins for AWS: DynamoDB Local, the Step Functions emulator and, when a catalog has a durable function
// tool, the local runner of durable functions, with the given tool catalogs registered.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LambdaClient } from '@aws-sdk/client-lambda';
import {
  CreateStateMachineCommand,
  DeleteStateMachineCommand,
  SFNClient,
  StateMachineAlreadyExists,
} from '@aws-sdk/client-sfn';
import { definitionWithArns, toolDescription, type StateMachineTool } from '../lambda/tools/state-machine-tool.js';
import type { ToolDefinition } from '../lambda/contract/tool-definition.js';
import { expressWrapperDefinition } from '../lambda/contract/express-wrapper.js';
import { startDynamoDbLocal } from './dynamodb-local.js';
import { PortInUseError, portInUseOr } from './free-port.js';
import { PORT_VARIABLES } from './local-ports.js';
import { localStatePaths } from './local-state.js';
import { LOCAL_ACCOUNT, LOCAL_CREDENTIALS, LOCAL_REGION, localAwsEnvironment } from './local-aws.js';
import { startStepFunctionsEmulator } from './step-functions/emulator.js';
import type { StepFunctionsQuotaOptions } from './step-functions/api-quotas.js';
import { createTaskTable } from './dynamodb-local-tables.js';
import { createProgressHandler } from '../lambda/handlers/report-progress.js';
import { PROGRESS_LAMBDA_STEP } from '../lambda/progress/progress-lambda-step.js';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ASK_STEP } from '../lambda/example-tools/example-tool-catalog.js';
import { createAskStep } from '../lambda/input/input-request-recording.js';
import { DynamoDbInputRequests } from '../lambda/store/dynamodb-input-requests.js';
import type { DurableFunctionTool } from '../lambda/example-tools/example-durable-tools.js';
import { ENV } from '../lambda/contract/environment-names.js';
import type { DurableFunctionRunner } from './durable-functions/durable-function-runner.js';

/** A tool of a catalog: a state machine's, or a durable function's. */
export type LocalTool = StateMachineTool | DurableFunctionTool;

/** Tool catalogs to register, each under a name of the caller's choosing (e.g. `{ example: EXAMPLE_TOOLS }`). */
export type ToolCatalogs<Name extends string> = Readonly<Record<Name, readonly LocalTool[]>>;

const isDurableTool = (tool: LocalTool): tool is DurableFunctionTool => 'functionName' in tool;
const isStateMachineTool = (tool: LocalTool): tool is StateMachineTool => !isDurableTool(tool);

/** The alias the local stack's durable tools invoke (Lambda starts durable executions only of a version or alias). */
const LOCAL_DURABLE_ALIAS = 'live';

export interface LocalInfrastructure<Name extends string = string> {
  readonly dynamoDbEndpoint: string;
  readonly stepFunctionsEndpoint: string;
  /** The local runner of durable functions, when a catalog has a durable function tool. */
  readonly lambdaEndpoint?: string;
  /** Each catalog's tools, registered as state machines on the emulator, under the catalog's name. */
  readonly tools: Readonly<Record<Name, ToolDefinition[]>>;
  /** How many executions the emulator has started (to prove retries start none twice). */
  executionsStarted(): number;
  /** Calls the emulator refused with ThrottlingException, by action (only in quota mode). */
  throttledCalls(): Readonly<Record<string, number>>;
  /**
   * Calls `listener` with the ARN of each execution that ends by itself, as it ends (the emulator's stand-in for
   * EventBridge's status-change events, to a listener in this process); returns what stops the calls.
   */
  onExecutionEnded(listener: (executionArn: string) => void): () => void;
  /** A task table (one kept from an earlier run, with `stateDir`, is taken as it is). */
  createTable(tableName: string): Promise<void>;
  stop(): Promise<void>;
}

type Handler = (event: unknown) => Promise<unknown>;

const lambdaArn = (functionName: string): string =>
  `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:${functionName}`;

/** Every Lambda step of the tools, by function name; one name bound to two different modules is refused. */
async function loadLambdaHandlers(tools: readonly StateMachineTool[]): Promise<Record<string, Handler>> {
  const entries = new Map<string, string>();
  for (const step of tools.flatMap((tool) => Object.values(tool.lambdaSteps))) {
    const known = entries.get(step.functionName);
    if (known !== undefined && known !== step.entry)
      throw new Error(`Lambda function '${step.functionName}' is both ${known} and ${step.entry}`);
    entries.set(step.functionName, step.entry);
  }
  const handlers: Record<string, Handler> = {};
  for (const [functionName, entry] of entries)
    handlers[functionName] = ((await import(entry)) as { handler: Handler }).handler;
  return handlers;
}

const LOCAL_STEP_FUNCTIONS_ROLE = `arn:aws:iam::${LOCAL_ACCOUNT}:role/local-step-functions`;
const machineArnOf = (name: string): string => `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT}:stateMachine:${name}`;

async function createMachine(
  stepFunctions: SFNClient,
  name: string,
  definition: string,
  type: 'STANDARD' | 'EXPRESS',
): Promise<string> {
  const create = new CreateStateMachineCommand({ name, definition, type, roleArn: LOCAL_STEP_FUNCTIONS_ROLE });
  const created = await stepFunctions.send(create).catch(async (error: unknown) => {
    // State kept from an earlier run (LOCAL_STATE_DIR) may hold the tool's machine with another definition: the code's
    // wins, as a deployment's update would.
    if (!(error instanceof StateMachineAlreadyExists)) throw error;
    await stepFunctions.send(new DeleteStateMachineCommand({ stateMachineArn: machineArnOf(name) }));
    return stepFunctions.send(create);
  });
  return created.stateMachineArn!;
}

/**
 * A tool's machine on the emulator. An EXPRESS tool also gets the STANDARD wrapper its tasks run, from the same ASL
 * the CDK construct deploys (lib/tools/express-wrapper.ts).
 */
async function registerTool(stepFunctions: SFNClient, tool: StateMachineTool): Promise<ToolDefinition> {
  const name = tool.name.replace(/_/g, '-');
  const definition = definitionWithArns(tool, (step) => lambdaArn(step.functionName));
  if (tool.type !== 'EXPRESS')
    return {
      ...toolDescription(tool),
      stateMachineArn: await createMachine(stepFunctions, name, definition, 'STANDARD'),
    };
  const expressStateMachineArn = await createMachine(stepFunctions, name, definition, 'EXPRESS');
  const wrapper = expressWrapperDefinition(expressStateMachineArn);
  const stateMachineArn = await createMachine(stepFunctions, `${name}-wrapper`, wrapper, 'STANDARD');
  return { ...toolDescription(tool), stateMachineArn, expressStateMachineArn };
}

export function localClients(endpoints: {
  dynamoDbEndpoint: string;
  stepFunctionsEndpoint: string;
  lambdaEndpoint?: string | undefined;
}): {
  dynamoDb: DynamoDBClient;
  stepFunctions: SFNClient;
  lambda?: LambdaClient;
} {
  const common = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  return {
    dynamoDb: new DynamoDBClient({ ...common, endpoint: endpoints.dynamoDbEndpoint }),
    // StartSyncExecution goes to the `sync-` host of Step Functions' endpoint; the emulator has only the one host.
    stepFunctions: new SFNClient({ ...common, endpoint: endpoints.stepFunctionsEndpoint, disableHostPrefix: true }),
    ...(endpoints.lambdaEndpoint !== undefined
      ? { lambda: new LambdaClient({ ...common, endpoint: endpoints.lambdaEndpoint }) }
      : {}),
  };
}

/**
 * The local runner of the catalogs' durable function tools, each running its deployed entry module with the
 * environment a deployment gives it: the local stand-ins, and `tableName` as its endpoint's task table. None without
 * such a tool: it starts a worker thread.
 */
async function startDurableFunctions(
  tools: readonly DurableFunctionTool[],
  endpoints: { dynamoDbEndpoint: string; stepFunctionsEndpoint: string },
  tableName: string | undefined,
): Promise<DurableFunctionRunner | undefined> {
  if (tools.length === 0) return undefined;
  const { startDurableFunctionRunner } = await import('./durable-functions/durable-function-runner.js');
  return startDurableFunctionRunner({
    entries: Object.fromEntries(tools.map((tool) => [tool.functionName, tool.entry])),
    environment: {
      ...localAwsEnvironment(endpoints),
      ...(tableName !== undefined ? { [ENV.tableName]: tableName } : {}),
    },
  });
}

function durableToolDefinition(tool: DurableFunctionTool, runner: DurableFunctionRunner): ToolDefinition {
  const { functionName, entry: _entry, ...description } = tool;
  return { ...description, durableFunctionArn: `${runner.functionArn(functionName)}:${LOCAL_DURABLE_ALIAS}` };
}

/**
 * Starts both stand-ins and registers every tool of every catalog as a state machine; `stop` ends them all. The
 * progress step and the ask step record on `progressTableName`, as the deployed functions record on their endpoint's
 * table.
 */
export async function startLocalInfrastructure<Name extends string>(
  catalogs: ToolCatalogs<Name>,
  options: {
    progressTableName?: string;
    /** The emulator's quota mode (see local/step-functions/api-quotas.ts). @default off */
    stepFunctionsQuotas?: StepFunctionsQuotaOptions;
    /** Fixed ports for the Step Functions emulator and DynamoDB Local. @default any free port */
    ports?: { readonly stepFunctions?: number; readonly dynamoDb?: number };
    /**
     * A directory DynamoDB Local's tables and the emulator's machines and executions are kept in across restarts
     * (local-state.ts). @default none: in memory
     */
    stateDir?: string;
  } = {},
): Promise<LocalInfrastructure<Name>> {
  const names = Object.keys(catalogs) as Name[];
  const allTools = names.flatMap((name) => catalogs[name]);
  const lambdaHandlers = await loadLambdaHandlers(allTools.filter(isStateMachineTool));
  // Bound to the table once DynamoDB Local runs; reports (and questions) before that are refused.
  let reportProgress: Handler | undefined;
  let ask: Handler | undefined;
  lambdaHandlers[ASK_STEP.functionName] = (event) => {
    if (ask === undefined)
      return Promise.reject(
        new Error('The local ask step has no task table (startLocalInfrastructure progressTableName)'),
      );
    return ask(event);
  };
  lambdaHandlers[PROGRESS_LAMBDA_STEP.functionName] = (event) => {
    if (reportProgress === undefined)
      return Promise.reject(
        new Error('The local progress step has no task table (startLocalInfrastructure progressTableName)'),
      );
    return reportProgress(event);
  };
  const state = options.stateDir === undefined ? undefined : localStatePaths(options.stateDir);
  const dynamoDb = await startDynamoDbLocal({
    ...(options.ports?.dynamoDb ? { port: options.ports.dynamoDb } : {}),
    ...(state ? { dbPath: state.dynamoDb } : {}),
  }).catch((error: unknown) =>
    Promise.reject(
      options.ports?.dynamoDb && /BindException|Address already in use/.test(String(error))
        ? new PortInUseError(options.ports.dynamoDb, '0.0.0.0', PORT_VARIABLES.dynamoDb)
        : error,
    ),
  );
  const endedListeners = new Set<(executionArn: string) => void>();
  const stepFunctions = await startStepFunctionsEmulator({
    region: LOCAL_REGION,
    accountId: LOCAL_ACCOUNT,
    lambdaHandlers,
    onExecutionEnded: (executionArn) => endedListeners.forEach((listener) => listener(executionArn)),
    ...(options.stepFunctionsQuotas === undefined ? {} : { quotas: options.stepFunctionsQuotas }),
    ...(options.ports?.stepFunctions ? { port: options.ports.stepFunctions } : {}),
    ...(state ? { stateFile: state.stepFunctions } : {}),
  }).catch(async (error: unknown) => {
    await dynamoDb.stop();
    throw portInUseOr(error, options.ports?.stepFunctions ?? 0, '127.0.0.1', PORT_VARIABLES.stepFunctions);
  });
  const endpoints = { dynamoDbEndpoint: dynamoDb.endpoint, stepFunctionsEndpoint: stepFunctions.url };
  const clients = localClients(endpoints);
  if (options.progressTableName !== undefined) {
    reportProgress = createProgressHandler(options.progressTableName, clients.dynamoDb) as Handler;
    // The ask step records questions on the same table, as the deployed one does on its endpoint's.
    const inputs = new DynamoDbInputRequests({
      client: DynamoDBDocumentClient.from(clients.dynamoDb, { marshallOptions: { removeUndefinedValues: true } }),
      tableName: options.progressTableName,
    });
    ask = createAskStep({ inputs }) as Handler;
  }
  let durableFunctions: DurableFunctionRunner | undefined;
  const stop = async (): Promise<void> => {
    clients.dynamoDb.destroy();
    clients.stepFunctions.destroy();
    await Promise.allSettled([stepFunctions.close(), dynamoDb.stop(), durableFunctions?.close()]);
  };
  try {
    durableFunctions = await startDurableFunctions(
      allTools.filter(isDurableTool),
      endpoints,
      options.progressTableName,
    );
    const tools = {} as Record<Name, ToolDefinition[]>;
    for (const name of names) {
      const registered: ToolDefinition[] = [];
      for (const tool of catalogs[name])
        registered.push(
          isDurableTool(tool)
            ? durableToolDefinition(tool, durableFunctions!)
            : await registerTool(clients.stepFunctions, tool),
        );
      tools[name] = registered;
    }
    return {
      ...endpoints,
      ...(durableFunctions ? { lambdaEndpoint: durableFunctions.url } : {}),
      tools,
      executionsStarted: () => stepFunctions.executionsStarted,
      throttledCalls: () => stepFunctions.throttledCalls(),
      onExecutionEnded: (listener) => {
        endedListeners.add(listener);
        return () => void endedListeners.delete(listener);
      },
      createTable: (tableName) => createTaskTable(clients.dynamoDb, tableName),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
