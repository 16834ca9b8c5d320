// Test fixture: an own Step Functions emulator whose local "ask" functions record the task tokens they are handed.
import { randomUUID } from 'node:crypto';
import {
  CreateStateMachineCommand,
  DescribeExecutionCommand,
  SendTaskSuccessCommand,
  StartExecutionCommand,
  type DescribeExecutionCommandOutput,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import { vi } from 'vitest';
import { GENEROUS_WAIT } from './local-backend.js';
import { useStepFunctionsEmulator } from './step-functions-emulator.js';

const ROLE_ARN = 'arn:aws:iam::000000000000:role/local-sfn';
const functionArn = (name: string): string => `arn:aws:lambda:us-east-1:000000000000:function:${name}`;

/** The event an "ask" function receives: the state's label, its whole input, and the task token. */
export interface AskEvent {
  readonly label: string;
  readonly request: unknown;
  readonly TaskToken: string;
}

export class BoomError extends Error {
  override name = 'BoomError';
}

/** A `lambda:invoke.waitForTaskToken` state handing the ask function `$.label`, the input and `$$.Task.Token`. */
export function askState(extra: Record<string, unknown> = {}, functionName = 'ask'): Record<string, unknown> {
  return {
    Type: 'Task',
    Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
    Parameters: {
      FunctionName: functionArn(functionName),
      Payload: { 'label.$': '$.label', 'request.$': '$', 'TaskToken.$': '$$.Task.Token' },
    },
    ...extra,
  };
}

export interface TaskTokenFixture {
  readonly sfn: SFNClient;
  /** Every event the ask functions received, as an "ask" Lambda would record input requests with their tokens. */
  readonly asked: readonly AskEvent[];
  createMachine(definition: object): Promise<string>;
  start(stateMachineArn: string, input: Record<string, unknown>): Promise<string>;
  /** The token handed to the ask function for `label`, once it has been invoked. */
  tokenFor(label: string): Promise<string>;
  describe(executionArn: string): Promise<DescribeExecutionCommandOutput>;
  /** The execution once it has left RUNNING. */
  settled(executionArn: string): Promise<DescribeExecutionCommandOutput>;
  succeed(taskToken: string, output: unknown): Promise<unknown>;
}

/** Registers beforeAll/afterAll hooks that start and stop the emulator; use the fixture inside tests only. */
export function useTaskTokenFixture(): TaskTokenFixture {
  const asked: AskEvent[] = [];
  const lambdaHandlers = {
    ask: (event: unknown) => {
      asked.push(event as AskEvent);
      return { recorded: true }; // discarded by the callback integration, as in AWS
    },
    askBroken: (event: unknown) => {
      asked.push(event as AskEvent);
      throw new BoomError('could not record the question');
    },
  };
  const local = useStepFunctionsEmulator({ lambdaHandlers });
  const describe = (executionArn: string) => local.sfn.send(new DescribeExecutionCommand({ executionArn }));

  return {
    get sfn() {
      return local.sfn;
    },
    asked,
    createMachine: async (definition) => {
      const name = `tokens-${randomUUID()}`;
      const out = await local.sfn.send(
        new CreateStateMachineCommand({ name, roleArn: ROLE_ARN, definition: JSON.stringify(definition) }),
      );
      return out.stateMachineArn ?? '';
    },
    start: async (stateMachineArn, input) => {
      const out = await local.sfn.send(new StartExecutionCommand({ stateMachineArn, input: JSON.stringify(input) }));
      return out.executionArn ?? '';
    },
    tokenFor: async (label) => {
      const event = await vi.waitUntil(() => asked.find((e) => e.label === label), GENEROUS_WAIT);
      return event.TaskToken;
    },
    describe,
    settled: async (executionArn) => {
      let execution: DescribeExecutionCommandOutput | undefined;
      await vi.waitUntil(async () => {
        execution = await describe(executionArn);
        return execution.status !== 'RUNNING';
      }, GENEROUS_WAIT);
      return execution as DescribeExecutionCommandOutput;
    },
    succeed: (taskToken, output) =>
      local.sfn.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(output) })),
  };
}
