// The emulator's callback pattern: `.waitForTaskToken` states answered through the real SFN client over HTTP.
import { randomUUID } from 'node:crypto';
import {
  InvalidOutput,
  InvalidToken,
  SendTaskFailureCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  StopExecutionCommand,
  TaskTimedOut,
} from '@aws-sdk/client-sfn';
import { describe, expect, it, vi } from 'vitest';
import { GENEROUS_WAIT } from '../support/local-backend.js';
import { askState, useTaskTokenFixture } from '../support/task-token-fixture.js';

const fixture = useTaskTokenFixture();
const { createMachine, start, tokenFor, settled, succeed } = fixture;
const describeExecution = fixture.describe;
const fail = (taskToken: string, error?: string, cause?: string) =>
  fixture.sfn.send(new SendTaskFailureCommand({ taskToken, error, cause }));
const heartbeat = (taskToken: string) => fixture.sfn.send(new SendTaskHeartbeatCommand({ taskToken }));

describe('step functions emulator: waitForTaskToken', () => {
  const approval = {
    StartAt: 'Ask',
    States: {
      Ask: askState({ ResultSelector: { 'approved.$': '$.approved' }, ResultPath: '$.answer', Next: 'Decide' }),
      Decide: {
        Type: 'Choice',
        Choices: [{ Variable: '$.answer.approved', BooleanEquals: true, Next: 'Approved' }],
        Default: 'Declined',
      },
      Approved: { Type: 'Pass', Result: 'approved', ResultPath: '$.decision', End: true },
      Declined: { Type: 'Pass', Result: 'declined', ResultPath: '$.decision', End: true },
    },
  };

  it('hands the function its Payload with the token and pauses until the token is answered', async () => {
    const label = randomUUID();
    const executionArn = await start(await createMachine(approval), { label, question: 'Deploy?' });
    const event = await vi.waitUntil(() => fixture.asked.find((e) => e.label === label), GENEROUS_WAIT);
    expect(event).toMatchObject({ label, request: { label, question: 'Deploy?' } });
    expect(event.TaskToken).toMatch(/^[A-Za-z0-9+/=]{16,1024}$/);
    await expect(describeExecution(executionArn)).resolves.toMatchObject({ status: 'RUNNING' });
  });

  it('resumes with the SendTaskSuccess output through ResultSelector and ResultPath, and a Choice branches on it', async () => {
    const stateMachineArn = await createMachine(approval);
    const [yes, no] = [randomUUID(), randomUUID()];
    const approved = await start(stateMachineArn, { label: yes, question: 'Deploy?' });
    const declined = await start(stateMachineArn, { label: no, question: 'Deploy?' });
    await succeed(await tokenFor(no), { approved: false, note: 'dropped by ResultSelector' });
    await succeed(await tokenFor(yes), { approved: true });

    const yesRun = await settled(approved);
    expect(yesRun.status).toBe('SUCCEEDED');
    expect(JSON.parse(yesRun.output ?? '')).toEqual({
      label: yes,
      question: 'Deploy?',
      answer: { approved: true },
      decision: 'approved',
    });
    const noRun = await settled(declined);
    expect(JSON.parse(noRun.output ?? '')).toMatchObject({ answer: { approved: false }, decision: 'declined' });
  });

  it('fails the state with the SendTaskFailure error and cause, so a Catch on that error handles it', async () => {
    const stateMachineArn = await createMachine({
      StartAt: 'Ask',
      States: {
        Ask: askState({ Catch: [{ ErrorEquals: ['Declined'], ResultPath: '$.failure', Next: 'Handled' }], End: true }),
        Handled: { Type: 'Pass', End: true },
      },
    });
    const [caught, uncaught] = [randomUUID(), randomUUID()];
    const caughtRun = await start(stateMachineArn, { label: caught });
    const uncaughtRun = await start(stateMachineArn, { label: uncaught });
    await fail(await tokenFor(caught), 'Declined', 'not today');
    await fail(await tokenFor(uncaught), 'Other', 'why');

    const handled = await settled(caughtRun);
    expect(handled.status).toBe('SUCCEEDED');
    expect(JSON.parse(handled.output ?? '')).toEqual({
      label: caught,
      failure: { Error: 'Declined', Cause: 'not today' },
    });
    await expect(settled(uncaughtRun)).resolves.toMatchObject({ status: 'FAILED', error: 'Other', cause: 'why' });
  });

  it('fails the state with the error of the invoked function when it throws, and closes the token', async () => {
    const broken = { StartAt: 'Ask', States: { Ask: askState({ End: true }, 'askBroken') } };
    const stateMachineArn = await createMachine(broken);
    const label = randomUUID();
    const executionArn = await start(stateMachineArn, { label });
    const taskToken = await tokenFor(label);
    await expect(settled(executionArn)).resolves.toMatchObject({
      status: 'FAILED',
      error: 'BoomError',
      cause: 'could not record the question',
    });
    await expect(succeed(taskToken, {})).rejects.toBeInstanceOf(TaskTimedOut);
  });
});

describe('step functions emulator: answering task tokens', () => {
  const single = { StartAt: 'Ask', States: { Ask: askState({ End: true }) } };

  it('answers a token it never issued with InvalidToken, on every SendTask operation', async () => {
    const unknown = Buffer.from(randomUUID()).toString('base64');
    await expect(succeed(unknown, {})).rejects.toBeInstanceOf(InvalidToken);
    await expect(fail('not a token')).rejects.toBeInstanceOf(InvalidToken);
    await expect(heartbeat(unknown)).rejects.toBeInstanceOf(InvalidToken);
  });

  it('answers output that is not JSON with InvalidOutput and keeps the task waiting for a valid answer', async () => {
    const label = randomUUID();
    const executionArn = await start(await createMachine(single), { label });
    const taskToken = await tokenFor(label);
    await expect(
      fixture.sfn.send(new SendTaskSuccessCommand({ taskToken, output: '{not json' })),
    ).rejects.toBeInstanceOf(InvalidOutput);
    await expect(describeExecution(executionArn)).resolves.toMatchObject({ status: 'RUNNING' });
    await succeed(taskToken, 'fine');
    await expect(settled(executionArn)).resolves.toMatchObject({ status: 'SUCCEEDED', output: '"fine"' });
  });

  it('answers a token whose task is already answered with TaskTimedOut, and the first answer stands', async () => {
    const label = randomUUID();
    const executionArn = await start(await createMachine(single), { label });
    const taskToken = await tokenFor(label);
    await succeed(taskToken, { first: true });
    await expect(succeed(taskToken, { second: true })).rejects.toBeInstanceOf(TaskTimedOut);
    await expect(fail(taskToken, 'Late')).rejects.toBeInstanceOf(TaskTimedOut);
    await expect(heartbeat(taskToken)).rejects.toBeInstanceOf(TaskTimedOut);
    const done = await settled(executionArn);
    expect(JSON.parse(done.output ?? '')).toEqual({ first: true });
  });

  it('aborts an execution stopped while it waits, and closes its token', async () => {
    const label = randomUUID();
    const executionArn = await start(await createMachine(single), { label });
    const taskToken = await tokenFor(label);
    await fixture.sfn.send(new StopExecutionCommand({ executionArn, error: 'Cancelled' }));
    await expect(describeExecution(executionArn)).resolves.toMatchObject({ status: 'ABORTED', error: 'Cancelled' });
    await expect(succeed(taskToken, {})).rejects.toBeInstanceOf(TaskTimedOut);
    await expect(heartbeat(taskToken)).rejects.toBeInstanceOf(TaskTimedOut);
  });
});
