// The emulator's GetExecutionHistory, driven by the real @aws-sdk/client-sfn SFNClient: the events a run records,
// in AWS's types and order, reversed and paged as the API does.
import {
  CreateStateMachineCommand,
  ExecutionDoesNotExist,
  GetExecutionHistoryCommand,
  StartExecutionCommand,
  type HistoryEvent,
} from '@aws-sdk/client-sfn';
import { describe, expect, it, vi } from 'vitest';
import { GENEROUS_WAIT } from '../support/local-backend.js';
import { useStepFunctionsEmulator } from '../support/step-functions-emulator.js';

const ROLE_ARN = 'arn:aws:iam::000000000000:role/local-sfn';

const local = useStepFunctionsEmulator({
  lambdaHandlers: { double: (event: unknown) => ({ value: (event as { value: number }).value * 2 }) },
});

async function start(name: string, definition: object, input: unknown): Promise<string> {
  const { stateMachineArn } = await local.sfn.send(
    new CreateStateMachineCommand({ name, roleArn: ROLE_ARN, definition: JSON.stringify(definition) }),
  );
  const { executionArn } = await local.sfn.send(
    new StartExecutionCommand({ stateMachineArn, input: JSON.stringify(input) }),
  );
  return executionArn!;
}

const history = async (
  executionArn: string,
  options: { reverseOrder?: boolean; maxResults?: number; nextToken?: string; includeExecutionData?: boolean } = {},
) => local.sfn.send(new GetExecutionHistoryCommand({ executionArn, ...options }));
const types = (events: HistoryEvent[] | undefined): string[] => (events ?? []).map((event) => event.type ?? '');

const PASS_TASK = {
  StartAt: 'Prepare',
  States: {
    Prepare: { Type: 'Pass', Parameters: { 'value.$': '$.n' }, Next: 'Double' },
    Double: { Type: 'Task', Resource: 'arn:aws:lambda:us-east-1:000000000000:function:double', End: true },
  },
};
const FINISHED = [
  'ExecutionStarted',
  'PassStateEntered',
  'PassStateExited',
  'TaskStateEntered',
  'TaskStateExited',
  'ExecutionSucceeded',
];

describe('step functions emulator: GetExecutionHistory', { timeout: 30_000 }, () => {
  it('lists a finished run’s events oldest first, with ids, names, input and output', async () => {
    const executionArn = await start('history-order', PASS_TASK, { n: 21 });
    await vi.waitUntil(
      async () => types((await history(executionArn)).events).includes('ExecutionSucceeded'),
      GENEROUS_WAIT,
    );
    const { events, nextToken } = await history(executionArn);
    expect(types(events)).toEqual(FINISHED);
    expect(nextToken).toBeUndefined();
    expect(events!.map((event) => event.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(events![0]!.timestamp).toBeInstanceOf(Date);
    expect(events![1]!.stateEnteredEventDetails).toEqual({ name: 'Prepare', input: JSON.stringify({ n: 21 }) });
    expect(events![4]!.stateExitedEventDetails).toEqual({ name: 'Double', output: JSON.stringify({ value: 42 }) });
    expect(events![5]!.executionSucceededEventDetails?.output).toBe(JSON.stringify({ value: 42 }));
  });

  it('reverses the order, pages with maxResults and nextToken, and leaves out the data when asked', async () => {
    const executionArn = await start('history-pages', PASS_TASK, { n: 1 });
    await vi.waitUntil(
      async () => types((await history(executionArn)).events).includes('ExecutionSucceeded'),
      GENEROUS_WAIT,
    );
    const first = await history(executionArn, { reverseOrder: true, maxResults: 4, includeExecutionData: false });
    expect(types(first.events)).toEqual([...FINISHED].reverse().slice(0, 4));
    expect(first.events![0]!.executionSucceededEventDetails?.output).toBeUndefined();
    expect(first.events![1]!.stateExitedEventDetails).toEqual({ name: 'Double' });
    const second = await history(executionArn, { reverseOrder: true, maxResults: 4, nextToken: first.nextToken! });
    expect(types(second.events)).toEqual([...FINISHED].reverse().slice(4));
    expect(second.nextToken).toBeUndefined();
  });

  it('shows a running execution in the state it has entered and not exited', async () => {
    const executionArn = await start(
      'history-waiting',
      { StartAt: 'Hold', States: { Hold: { Type: 'Wait', Seconds: 600, End: true } } },
      {},
    );
    await vi.waitUntil(
      async () => types((await history(executionArn)).events).includes('WaitStateEntered'),
      GENEROUS_WAIT,
    );
    const { events } = await history(executionArn, { reverseOrder: true });
    expect(types(events)).toEqual(['WaitStateEntered', 'ExecutionStarted']);
    expect(events![0]!.stateEnteredEventDetails?.name).toBe('Hold');
  });

  it('answers an unknown execution with ExecutionDoesNotExist', async () => {
    const unknown = 'arn:aws:states:us-east-1:000000000000:execution:history-order:never-started';
    await expect(history(unknown)).rejects.toBeInstanceOf(ExecutionDoesNotExist);
  });
});
