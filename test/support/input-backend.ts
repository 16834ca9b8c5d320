// Test fixture for input requests: an own Step Functions emulator running the example refund_order workflow,
// whose ask step records questions in this fixture's task table, and two MCP servers on that one table, so a question
// delivered by one server can be answered through the other. The Step Functions client the servers use can be told to
// fail SendTaskSuccess (an injected fault) and counts every SendTaskSuccess that reaches the emulator.
import { CreateStateMachineCommand, SFNClient } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, inject } from 'vitest';
import { ASK_STEP, EXAMPLE_TOOLS } from '../../lambda/example-tools/example-tool-catalog.js';
import { createAskStep } from '../../lambda/input/input-request-recording.js';
import { DynamoDbInputRequests } from '../../lambda/store/dynamodb-input-requests.js';
import { definitionWithArns, toolDescription } from '../../lambda/tools/state-machine-tool.js';
import type { ToolDefinition } from '../../lambda/contract/tool-definition.js';
import type { TaskMetrics } from '../../lambda/core/task-metrics.js';
import type { TaskServiceSettings } from '../../lambda/service/settings.js';
import { localClients } from '../../local/infrastructure.js';
import { LOCAL_ACCOUNT, LOCAL_REGION } from '../../local/local-aws.js';
import { startStepFunctionsEmulator, type StepFunctionsEmulator } from '../../local/step-functions/emulator.js';
import { createTestTable, startTestServer, type TestServer } from './local-backend.js';

export interface InputBackend {
  /** Two servers on one task table and one emulator. */
  readonly servers: readonly [TestServer, TestServer];
  /** A client of the emulator, for describing executions (no faults). */
  readonly sfn: SFNClient;
  /** SendTaskSuccess calls that reached the emulator. */
  sendTaskSuccessCalls(): number;
  /** Makes the servers' next `count` SendTaskSuccess calls fail before they reach Step Functions. */
  failSendTaskSuccess(count: number): void;
  /**
   * Runs `hook` once, when the servers' next SendTaskSuccess is about to be sent (its answer is claimed by then): puts
   * another request, such as a cancel, deterministically between an answer's claim and its delivery.
   */
  beforeNextSendTaskSuccess(hook: () => Promise<void>): void;
}

const lambdaArn = (name: string): string => `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:${name}`;

/** Registers beforeAll/afterAll hooks; use the fixture inside tests only. `metrics`: what both servers record into. */
export function useInputBackend(
  options: { metrics?: TaskMetrics; settings?: Partial<TaskServiceSettings> } = {},
): InputBackend {
  let emulator: StepFunctionsEmulator | undefined;
  let servers: [TestServer, TestServer] | undefined;
  let sfn: SFNClient | undefined;
  let serverSfn: SFNClient | undefined;
  let calls = 0;
  let failures = 0;
  let beforeSend: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const tableName = await createTestTable();
    const endpoints = {
      dynamoDbEndpoint: inject('dynamoDbEndpoint'),
      stepFunctionsEndpoint: inject('stepFunctionsEndpoint'),
    };
    const { dynamoDb } = localClients(endpoints);
    const tool = EXAMPLE_TOOLS.find((candidate) => candidate.name === 'refund_order')!;
    // The example's own Lambda steps, with the ask step bound to this fixture's table (in AWS: its environment).
    const lambdaHandlers: Record<string, (event: unknown) => Promise<unknown>> = {};
    for (const step of Object.values(tool.lambdaSteps)) {
      if (step.functionName === ASK_STEP.functionName) continue;
      lambdaHandlers[step.functionName] = (
        (await import(step.entry)) as { handler: (event: unknown) => Promise<unknown> }
      ).handler;
    }
    const inputs = new DynamoDbInputRequests({ client: DynamoDBDocumentClient.from(dynamoDb), tableName });
    lambdaHandlers[ASK_STEP.functionName] = createAskStep({ inputs }) as (event: unknown) => Promise<unknown>;
    emulator = await startStepFunctionsEmulator({ region: LOCAL_REGION, accountId: LOCAL_ACCOUNT, lambdaHandlers });
    const own = { ...endpoints, stepFunctionsEndpoint: emulator.url };
    sfn = localClients(own).stepFunctions;
    const { stateMachineArn } = await sfn.send(
      new CreateStateMachineCommand({
        name: 'refund-order',
        definition: definitionWithArns(tool, (step) => lambdaArn(step.functionName)),
        roleArn: `arn:aws:iam::${LOCAL_ACCOUNT}:role/local`,
      }),
    );
    const tools: ToolDefinition[] = [{ ...toolDescription(tool), stateMachineArn: stateMachineArn! }];
    serverSfn = localClients(own).stepFunctions;
    // The injected fault sits before the SDK's retries, so one failure is one failed call as the server sees it.
    serverSfn.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'SendTaskSuccessCommand') {
          const hook = beforeSend;
          beforeSend = undefined;
          await hook?.();
          if (failures > 0) {
            failures -= 1;
            throw Object.assign(new Error('Injected fault: Step Functions unreachable'), { name: 'InjectedFault' });
          }
          calls += 1;
        }
        return next(args);
      },
      { step: 'initialize', name: 'injectSendTaskSuccessFaults' },
    );
    const clients = { dynamoDb, stepFunctions: serverSfn };
    const server = () =>
      startTestServer(options.settings ?? {}, {
        tableName,
        tools,
        clients,
        statusEvents: { stepFunctionsEndpoint: emulator!.url },
        ...(options.metrics ? { metrics: options.metrics } : {}),
      });
    servers = [await server(), await server()];
  });

  afterAll(async () => {
    await Promise.allSettled((servers ?? []).map((server) => server.close()));
    sfn?.destroy();
    serverSfn?.destroy();
    await emulator?.close();
  });

  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the input backend fixture is used outside a test');
    return value;
  };
  return {
    get servers() {
      return ready(servers);
    },
    get sfn() {
      return ready(sfn);
    },
    sendTaskSuccessCalls: () => calls,
    failSendTaskSuccess: (count) => {
      failures += count;
    },
    beforeNextSendTaskSuccess: (hook) => {
      beforeSend = hook;
    },
  };
}
