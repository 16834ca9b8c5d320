// The emulator's callback pattern, continued: heartbeats, timeouts, and several tokens waiting at once.
import { randomUUID } from 'node:crypto';
import { SendTaskHeartbeatCommand, TaskTimedOut } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { askState, useTaskTokenFixture } from '../support/task-token-fixture.js';

const fixture = useTaskTokenFixture();
const { createMachine, start, tokenFor, settled, succeed } = fixture;

const heartbeat = (taskToken: string) => fixture.sfn.send(new SendTaskHeartbeatCommand({ taskToken }));
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts a machine that asks, and on the listed errors goes on to a Pass state that keeps the error in $.failure. */
async function startAskOrHandle(
  askFields: Record<string, unknown>,
  errorEquals: string[],
  label: string,
): Promise<string> {
  const catcher = { ErrorEquals: errorEquals, ResultPath: '$.failure', Next: 'Handled' };
  const stateMachineArn = await createMachine({
    StartAt: 'Ask',
    States: { Ask: askState({ ...askFields, Catch: [catcher], End: true }), Handled: { Type: 'Pass', End: true } },
  });
  return start(stateMachineArn, { label });
}

describe('step functions emulator: heartbeats and timeouts of waiting tasks', () => {
  it('fails the state with States.HeartbeatTimeout when no heartbeat comes, which a Catch on States.Timeout handles', async () => {
    const label = randomUUID();
    const executionArn = await startAskOrHandle({ HeartbeatSeconds: 1 }, ['States.Timeout'], label);
    const taskToken = await tokenFor(label);
    const done = await settled(executionArn);
    expect(done.status).toBe('SUCCEEDED');
    expect(JSON.parse(done.output ?? '')).toMatchObject({ failure: { Error: 'States.HeartbeatTimeout' } });
    await expect(succeed(taskToken, {})).rejects.toBeInstanceOf(TaskTimedOut);
  });

  it('fails the execution with States.HeartbeatTimeout when nothing catches it, the limit read by HeartbeatSecondsPath', async () => {
    const label = randomUUID();
    const stateMachineArn = await createMachine({
      StartAt: 'Ask',
      States: { Ask: askState({ HeartbeatSecondsPath: '$.patience', End: true }) },
    });
    const executionArn = await start(stateMachineArn, { label, patience: 1 });
    await tokenFor(label);
    await expect(settled(executionArn)).resolves.toMatchObject({ status: 'FAILED', error: 'States.HeartbeatTimeout' });
  });

  it('keeps waiting while heartbeats come within HeartbeatSeconds, then resumes with the answer', async () => {
    const label = randomUUID();
    const executionArn = await startAskOrHandle({ HeartbeatSeconds: 3 }, ['States.ALL'], label);
    const taskToken = await tokenFor(label);
    // Sixteen heartbeats a quarter second apart outlast HeartbeatSeconds: only the heartbeats can have kept it open.
    // The 3 s limit leaves a loaded machine room to stall between two beats.
    for (let beat = 0; beat < 16; beat += 1) {
      await heartbeat(taskToken);
      await pause(250);
    }
    await expect(fixture.describe(executionArn)).resolves.toMatchObject({ status: 'RUNNING' });
    await succeed(taskToken, { answer: 42 });
    await expect(settled(executionArn)).resolves.toMatchObject({ status: 'SUCCEEDED', output: '{"answer":42}' });
  });

  it('fails the state with States.Timeout after TimeoutSeconds, which a Catch on States.TaskFailed does not handle', async () => {
    const label = randomUUID();
    const executionArn = await startAskOrHandle({ TimeoutSeconds: 1 }, ['States.TaskFailed'], label);
    const taskToken = await tokenFor(label);
    await expect(settled(executionArn)).resolves.toMatchObject({ status: 'FAILED', error: 'States.Timeout' });
    await expect(succeed(taskToken, {})).rejects.toBeInstanceOf(TaskTimedOut);
  });

  it('reads the limit from TimeoutSecondsPath in the state input, and closes the token while the execution goes on', async () => {
    const label = randomUUID();
    const again = `${label}-again`;
    const stateMachineArn = await createMachine({
      StartAt: 'Ask',
      States: {
        Ask: askState({
          TimeoutSecondsPath: '$.limit',
          Catch: [{ ErrorEquals: ['States.Timeout'], ResultPath: '$.failure', Next: 'Relabel' }],
          End: true,
        }),
        Relabel: { Type: 'Pass', Result: again, ResultPath: '$.label', Next: 'AskAgain' },
        AskAgain: askState({ ResultPath: '$.answer', End: true }),
      },
    });
    const executionArn = await start(stateMachineArn, { label, limit: 1 });
    const firstToken = await tokenFor(label);
    const secondToken = await tokenFor(again);
    await expect(heartbeat(firstToken)).rejects.toBeInstanceOf(TaskTimedOut);
    await expect(fixture.describe(executionArn)).resolves.toMatchObject({ status: 'RUNNING' });

    await succeed(secondToken, 'second answer');
    const done = await settled(executionArn);
    expect(JSON.parse(done.output ?? '')).toMatchObject({
      limit: 1,
      failure: { Error: 'States.Timeout' },
      answer: 'second answer',
    });
  });
  it('fails the state with States.Runtime when a seconds path does not resolve to a positive integer', async () => {
    const stateMachineArn = await createMachine({
      StartAt: 'Ask',
      States: { Ask: askState({ TimeoutSecondsPath: '$.limit', HeartbeatSecondsPath: '$.beat', End: true }) },
    });
    for (const limits of [
      { limit: 0, beat: 1 },
      { limit: 5, beat: 'soon' },
    ]) {
      const executionArn = await start(stateMachineArn, { label: randomUUID(), ...limits });
      await expect(settled(executionArn)).resolves.toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
    }
  });
});

describe('step functions emulator: several tokens waiting at once', () => {
  it('gives each Parallel branch its own token and joins the answers in branch order, whatever the answering order', async () => {
    const [left, right] = [randomUUID(), randomUUID()];
    // State names are unique across the whole machine, branches included.
    const branch = (side: string, label: string) => ({
      StartAt: `Label${side}`,
      States: {
        [`Label${side}`]: { Type: 'Pass', Result: label, ResultPath: '$.label', Next: `Ask${side}` },
        [`Ask${side}`]: askState({ End: true }),
      },
    });
    const stateMachineArn = await createMachine({
      StartAt: 'Both',
      States: { Both: { Type: 'Parallel', Branches: [branch('Left', left), branch('Right', right)], End: true } },
    });
    const executionArn = await start(stateMachineArn, {});
    const [leftToken, rightToken] = await Promise.all([tokenFor(left), tokenFor(right)]);
    expect(leftToken).not.toBe(rightToken);

    await succeed(rightToken, 'right answer');
    await expect(fixture.describe(executionArn)).resolves.toMatchObject({ status: 'RUNNING' });
    await succeed(leftToken, 'left answer');
    const done = await settled(executionArn);
    expect(done.status).toBe('SUCCEEDED');
    expect(JSON.parse(done.output ?? '')).toEqual(['left answer', 'right answer']);
  });

  it('gives each Map iteration its own token', async () => {
    const labels = [randomUUID(), randomUUID(), randomUUID()];
    const stateMachineArn = await createMachine({
      StartAt: 'Each',
      States: {
        Each: {
          Type: 'Map',
          ItemsPath: '$.labels',
          ItemSelector: { 'label.$': '$$.Map.Item.Value' },
          ItemProcessor: {
            ProcessorConfig: { Mode: 'INLINE' },
            StartAt: 'Ask',
            States: { Ask: askState({ End: true }) },
          },
          End: true,
        },
      },
    });
    const executionArn = await start(stateMachineArn, { labels });
    const tokens = await Promise.all(labels.map(tokenFor));
    expect(new Set(tokens).size).toBe(labels.length);

    for (const index of [2, 0, 1]) await succeed(tokens[index] ?? '', { index });
    const done = await settled(executionArn);
    expect(JSON.parse(done.output ?? '')).toEqual([{ index: 0 }, { index: 1 }, { index: 2 }]);
  });
});
