// The emulator's news of executions that end by themselves (its stand-in for EventBridge's status-change events, to
// a listener in its own process), driven by the real SFNClient over loopback HTTP.
import {
  CreateStateMachineCommand,
  DescribeExecutionCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startStepFunctionsEmulator, type StepFunctionsEmulator } from '../../local/step-functions/emulator.js';
import { GENEROUS_WAIT } from '../support/local-backend.js';

const ROLE_ARN = 'arn:aws:iam::000000000000:role/local-sfn';

let emulator: StepFunctionsEmulator;
let sfn: SFNClient;
const ended: string[] = [];

const machine = async (name: string, definition: object): Promise<string> =>
  (await sfn.send(new CreateStateMachineCommand({ name, roleArn: ROLE_ARN, definition: JSON.stringify(definition) })))
    .stateMachineArn!;
const start = async (stateMachineArn: string): Promise<string> =>
  (await sfn.send(new StartExecutionCommand({ stateMachineArn, input: '{}' }))).executionArn!;
const statusOf = async (executionArn: string): Promise<string> =>
  (await sfn.send(new DescribeExecutionCommand({ executionArn }))).status!;

beforeAll(async () => {
  emulator = await startStepFunctionsEmulator({ onExecutionEnded: (arn) => ended.push(arn) });
  sfn = new SFNClient({
    endpoint: emulator.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
});
afterAll(async () => {
  sfn?.destroy();
  await emulator?.close();
});

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
    await sfn.send(new StopExecutionCommand({ executionArn: waits }));
    // A later execution's news comes after anything the stopped one would have said.
    const after = await start(await machine('after', { StartAt: 'Done', States: { Done: { Type: 'Succeed' } } }));
    await vi.waitUntil(() => ended.includes(after), GENEROUS_WAIT);
    expect(await statusOf(waits)).toBe('ABORTED');
    expect(ended).not.toContain(waits);
  });
});
