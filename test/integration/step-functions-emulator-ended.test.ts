// The emulator's news of executions that end by themselves (its stand-in for EventBridge's status-change events, to
// a listener in its own process), driven by the real SFNClient over loopback HTTP.
import {
  CreateStateMachineCommand,
  DescribeExecutionCommand,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { describe, expect, it, vi } from 'vitest';
import { GENEROUS_WAIT } from '../support/local-backend.js';
import { useStepFunctionsEmulator } from '../support/step-functions-emulator.js';

const ROLE_ARN = 'arn:aws:iam::000000000000:role/local-sfn';

const ended: string[] = [];
const local = useStepFunctionsEmulator({ onExecutionEnded: (arn) => ended.push(arn) });

const machine = async (name: string, definition: object): Promise<string> =>
  (
    await local.sfn.send(
      new CreateStateMachineCommand({ name, roleArn: ROLE_ARN, definition: JSON.stringify(definition) }),
    )
  ).stateMachineArn!;
const start = async (stateMachineArn: string): Promise<string> =>
  (await local.sfn.send(new StartExecutionCommand({ stateMachineArn, input: '{}' }))).executionArn!;
const statusOf = async (executionArn: string): Promise<string> =>
  (await local.sfn.send(new DescribeExecutionCommand({ executionArn }))).status!;

describe('the emulator tells of each execution that ends by itself', () => {
  it('once for one that succeeds and once for one that fails, by the time DescribeExecution shows the end', async () => {
    const succeeds = await start(await machine('succeeds', { StartAt: 'Done', States: { Done: { Type: 'Succeed' } } }));
    const fails = await start(
      await machine('fails', { StartAt: 'No', States: { No: { Type: 'Fail', Error: 'E', Cause: 'c' } } }),
    );
    await vi.waitUntil(() => ended.includes(succeeds) && ended.includes(fails), GENEROUS_WAIT);
    expect(await statusOf(succeeds)).toBe('SUCCEEDED');
    expect(await statusOf(fails)).toBe('FAILED');
    expect(ended.filter((arn) => arn === succeeds || arn === fails)).toHaveLength(2);
  });

  it('not for one that StopExecution ends: the caller that stopped it knows', async () => {
    const waits = await start(
      await machine('waits', { StartAt: 'Wait', States: { Wait: { Type: 'Wait', Seconds: 3600, End: true } } }),
    );
    await local.sfn.send(new StopExecutionCommand({ executionArn: waits }));
    // A later execution's news comes after anything the stopped one would have said.
    const after = await start(await machine('after', { StartAt: 'Done', States: { Done: { Type: 'Succeed' } } }));
    await vi.waitUntil(() => ended.includes(after), GENEROUS_WAIT);
    expect(await statusOf(waits)).toBe('ABORTED');
    expect(ended).not.toContain(waits);
  });
});
