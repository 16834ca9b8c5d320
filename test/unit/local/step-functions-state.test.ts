// The Step Functions emulator with a state file, driven by the real SFNClient: machines (definitions, tags) and
// STANDARD executions are there again after a restart; an execution that was running when it stopped comes back
// FAILED with the restart as its reason, and its history says so.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateStateMachineCommand,
  DescribeExecutionCommand,
  DescribeStateMachineCommand,
  GetExecutionHistoryCommand,
  ListExecutionsCommand,
  ListTagsForResourceCommand,
  StartExecutionCommand,
  TagResourceCommand,
  UntagResourceCommand,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startStepFunctionsEmulator, type StepFunctionsEmulator } from '../../../local/step-functions/emulator.js';
import { RESTARTED } from '../../../local/step-functions/persisted-registry.js';
import { localSfnClient } from '../../support/step-functions-emulator.js';

const ROLE_ARN = 'arn:aws:iam::000000000000:role/local-sfn';
const PASS = JSON.stringify({
  Comment: 'Answers at once.',
  StartAt: 'Done',
  States: { Done: { Type: 'Pass', Result: { answer: 42 }, End: true } },
});
const WAIT = JSON.stringify({ StartAt: 'Wait', States: { Wait: { Type: 'Wait', Seconds: 3600, End: true } } });

let dir: string;
let stateFile: string;
const running: Array<{ emulator: StepFunctionsEmulator; sfn: SFNClient }> = [];

async function start(): Promise<SFNClient> {
  const emulator = await startStepFunctionsEmulator({ stateFile });
  const sfn = localSfnClient(emulator.url);
  running.push({ emulator, sfn });
  return sfn;
}

async function restart(): Promise<SFNClient> {
  for (const { emulator, sfn } of running.splice(0)) {
    sfn.destroy();
    await emulator.close();
  }
  return start();
}

async function ended(sfn: SFNClient, executionArn: string): Promise<string | undefined> {
  for (;;) {
    const { status } = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    if (status !== 'RUNNING') return status;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sfn-state-'));
  stateFile = join(dir, 'step-functions.json');
});
afterEach(async () => {
  for (const { emulator, sfn } of running.splice(0)) {
    sfn.destroy();
    await emulator.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('the Step Functions emulator with a state file', () => {
  it('keeps a machine, its definition and its tags as last changed', async () => {
    const sfn = await start();
    const { stateMachineArn } = await sfn.send(
      new CreateStateMachineCommand({
        name: 'answer',
        roleArn: ROLE_ARN,
        definition: PASS,
        tags: [
          { key: 'mcp:tool', value: 'true' },
          { key: 'team', value: 'orders' },
        ],
      }),
    );
    await sfn.send(new TagResourceCommand({ resourceArn: stateMachineArn, tags: [{ key: 'stage', value: 'dev' }] }));
    await sfn.send(new UntagResourceCommand({ resourceArn: stateMachineArn, tagKeys: ['team'] }));

    const after = await restart();
    expect(await after.send(new DescribeStateMachineCommand({ stateMachineArn }))).toMatchObject({
      name: 'answer',
      definition: PASS,
      roleArn: ROLE_ARN,
      type: 'STANDARD',
    });
    const { tags } = await after.send(new ListTagsForResourceCommand({ resourceArn: stateMachineArn }));
    expect(tags).toEqual([
      { key: 'mcp:tool', value: 'true' },
      { key: 'stage', value: 'dev' },
    ]);
    // Creating it again as it was is the same machine, as in AWS.
    expect(
      await after.send(new CreateStateMachineCommand({ name: 'answer', roleArn: ROLE_ARN, definition: PASS })),
    ).toMatchObject({ stateMachineArn });
  });

  it('keeps an ended execution describable, with its output and history', async () => {
    const sfn = await start();
    const { stateMachineArn } = await sfn.send(
      new CreateStateMachineCommand({ name: 'answer', roleArn: ROLE_ARN, definition: PASS }),
    );
    const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn, input: '{"q":1}' }));
    expect(await ended(sfn, executionArn!)).toBe('SUCCEEDED');
    const { events: before } = await sfn.send(new GetExecutionHistoryCommand({ executionArn }));

    const after = await restart();
    expect(await after.send(new DescribeExecutionCommand({ executionArn }))).toMatchObject({
      status: 'SUCCEEDED',
      input: '{"q":1}',
      output: '{"answer":42}',
    });
    expect((await after.send(new GetExecutionHistoryCommand({ executionArn }))).events).toEqual(before);
    const { executions } = await after.send(new ListExecutionsCommand({ stateMachineArn }));
    expect(executions?.map((each) => each.executionArn)).toEqual([executionArn]);
  });

  it('ends an execution that was running when it stopped as FAILED, the restart its reason', async () => {
    const sfn = await start();
    const { stateMachineArn } = await sfn.send(
      new CreateStateMachineCommand({ name: 'waits', roleArn: ROLE_ARN, definition: WAIT }),
    );
    const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn }));

    const after = await restart();
    expect(await after.send(new DescribeExecutionCommand({ executionArn }))).toMatchObject({
      status: 'FAILED',
      error: RESTARTED.error,
      cause: RESTARTED.cause,
      stopDate: expect.any(Date),
    });
    const { events } = await after.send(new GetExecutionHistoryCommand({ executionArn }));
    expect(events?.at(-1)).toMatchObject({
      type: 'ExecutionFailed',
      executionFailedEventDetails: { error: RESTARTED.error, cause: RESTARTED.cause },
    });
    // A start with its name is refused now, as it is in AWS for an execution that has ended.
    await expect(
      after.send(new StartExecutionCommand({ stateMachineArn, name: executionArn!.split(':').at(-1) })),
    ).rejects.toMatchObject({ name: 'ExecutionAlreadyExists' });
  });

  it('keeps nothing without a state file', async () => {
    const emulator = await startStepFunctionsEmulator();
    const sfn = localSfnClient(emulator.url);
    running.push({ emulator, sfn });
    await sfn.send(new CreateStateMachineCommand({ name: 'answer', roleArn: ROLE_ARN, definition: PASS }));
    const after = await restart();
    await expect(
      after.send(
        new DescribeStateMachineCommand({
          stateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:answer',
        }),
      ),
    ).rejects.toMatchObject({ name: 'StateMachineDoesNotExist' });
  });
});
