// EXPRESS state machines on the local Step Functions emulator, driven by the real SFNClient: synchronous runs
// (StartSyncExecution), and the STANDARD wrapper an EXPRESS tool's tasks run (lambda/contract/express-wrapper.ts),
// which runs the EXPRESS machine with `states:startExecution.sync:2`.
import {
  CreateStateMachineCommand,
  DescribeExecutionCommand,
  DescribeStateMachineCommand,
  GetExecutionHistoryCommand,
  InvalidArn,
  InvalidDefinition,
  StartExecutionCommand,
  StartSyncExecutionCommand,
  StateMachineTypeNotSupported,
  StopExecutionCommand,
  type DescribeExecutionCommandOutput,
} from '@aws-sdk/client-sfn';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { expressWrapperDefinition, expressWrapperStateName } from '../../lambda/contract/express-wrapper.js';
import { ExecutionStartError } from '../../lambda/core/errors.js';
import { StepFunctionsExecutor } from '../../lambda/executor/step-functions-executor.js';
import { Registry } from '../../local/step-functions/registry.js';
import { useStepFunctionsEmulator } from '../support/step-functions-emulator.js';

const ROLE_ARN = 'arn:aws:iam::000000000000:role/local-sfn';
const lambdaArn = (name: string): string => `arn:aws:lambda:us-east-1:000000000000:function:${name}`;

class NoKeywords extends Error {
  override name = 'NoKeywords';
}

const lambdaHandlers = {
  upper: (event: unknown) => {
    const { text } = event as { text: string };
    if (text === '') throw new NoKeywords('The text has no words.');
    return { upper: text.toUpperCase() };
  },
};

/** Waits `waitSeconds` when the input names it, then runs the Lambda step: an EXPRESS machine's everyday shape. */
const expressDefinition = {
  StartAt: 'MaybeWait',
  States: {
    MaybeWait: {
      Type: 'Choice',
      Choices: [{ Variable: '$.waitSeconds', IsPresent: true, Next: 'Hold' }],
      Default: 'Upper',
    },
    Hold: { Type: 'Wait', SecondsPath: '$.waitSeconds', Next: 'Upper' },
    Upper: { Type: 'Task', Resource: lambdaArn('upper'), End: true },
  },
};

// StartSyncExecution goes to the `sync-` host of Step Functions' endpoint; a stand-in has only the one host.
const local = useStepFunctionsEmulator({ lambdaHandlers }, { disableHostPrefix: true });
let express: string;
let wrapper: string;
let standard: string;

async function createMachine(name: string, definition: object | string, type?: 'EXPRESS'): Promise<string> {
  const created = await local.sfn.send(
    new CreateStateMachineCommand({
      name,
      roleArn: ROLE_ARN,
      definition: typeof definition === 'string' ? definition : JSON.stringify(definition),
      ...(type ? { type } : {}),
    }),
  );
  return created.stateMachineArn!;
}

/** Polls until the execution leaves RUNNING; bounded so a stuck execution fails the test instead of hanging it. */
async function settled(executionArn: string): Promise<DescribeExecutionCommandOutput> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const execution = await local.sfn.send(new DescribeExecutionCommand({ executionArn }));
    if (execution.status !== 'RUNNING') return execution;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`execution ${executionArn} is still RUNNING`);
}

async function startWrapper(name: string, input: unknown, machine = wrapper): Promise<string> {
  const { executionArn } = await local.sfn.send(
    new StartExecutionCommand({ stateMachineArn: machine, name, input: JSON.stringify(input) }),
  );
  return executionArn!;
}

beforeAll(async () => {
  express = await createMachine('keywords-express', expressDefinition, 'EXPRESS');
  wrapper = await createMachine('keywords-wrapper', expressWrapperDefinition(express));
  standard = await createMachine('keywords-standard', expressDefinition);
});

describe('step functions emulator: EXPRESS state machines', () => {
  it('creates an EXPRESS machine and describes it as one', async () => {
    const described = await local.sfn.send(new DescribeStateMachineCommand({ stateMachineArn: express }));
    expect(described).toMatchObject({ name: 'keywords-express', type: 'EXPRESS' });
  });

  it.each([
    ['the callback pattern', 'arn:aws:states:::lambda:invoke.waitForTaskToken'],
    ['the job-run pattern', 'arn:aws:states:::states:startExecution.sync:2'],
  ])('refuses an EXPRESS definition that uses %s, as AWS does', async (_pattern, resource) => {
    const definition = { StartAt: 'T', States: { T: { Type: 'Task', Resource: resource, End: true } } };
    const creating = createMachine(`refused-${resource.length}`, definition, 'EXPRESS');
    await expect(creating).rejects.toBeInstanceOf(InvalidDefinition);
    await expect(creating).rejects.toThrow(/Express state machine does not support/);
  });

  it('runs an execution synchronously and answers with its output', async () => {
    const run = await local.sfn.send(
      new StartSyncExecutionCommand({ stateMachineArn: express, name: 'sync-ok', input: '{"text":"quick"}' }),
    );
    expect(run).toMatchObject({ status: 'SUCCEEDED', name: 'sync-ok', output: '{"upper":"QUICK"}' });
    expect(run.executionArn).toMatch(/:express:keywords-express:sync-ok:/);
  });

  it('answers a failed synchronous run with its error and cause, not as an API error', async () => {
    const run = await local.sfn.send(new StartSyncExecutionCommand({ stateMachineArn: express, input: '{"text":""}' }));
    expect(run).toMatchObject({ status: 'FAILED', error: 'NoKeywords', cause: 'The text has no words.' });
    expect(run.output).toBeUndefined();
  });

  it('ends a synchronous run as TIMED_OUT when the machine’s TimeoutSeconds passes', async () => {
    const slow = await createMachine('slow-express', { ...expressDefinition, TimeoutSeconds: 1 }, 'EXPRESS');
    const run = await local.sfn.send(
      new StartSyncExecutionCommand({ stateMachineArn: slow, input: '{"text":"late","waitSeconds":30}' }),
    );
    expect(run.status).toBe('TIMED_OUT');
  });

  it('refuses StartSyncExecution of a STANDARD machine', async () => {
    await expect(
      local.sfn.send(new StartSyncExecutionCommand({ stateMachineArn: standard, input: '{"text":"x"}' })),
    ).rejects.toBeInstanceOf(StateMachineTypeNotSupported);
  });

  it('gives an asynchronous EXPRESS execution an ARN that DescribeExecution refuses', async () => {
    const executionArn = await startWrapper('async-express', { text: 'x' }, express);
    expect(executionArn).toMatch(/:express:keywords-express:async-express:/);
    await expect(local.sfn.send(new DescribeExecutionCommand({ executionArn }))).rejects.toBeInstanceOf(InvalidArn);
  });
});

describe('StepFunctionsExecutor.runSync on the emulator', () => {
  const run = (stateMachineArn: string, input: unknown) =>
    new StepFunctionsExecutor({ client: local.sfn }).runSync({
      stateMachineArn,
      executionName: 'task-sync-run',
      input: JSON.stringify(input),
    });

  it('answers a SUCCEEDED run with its output, as DescribeExecution would', async () => {
    expect(await run(express, { text: 'sync' })).toEqual({ status: 'SUCCEEDED', output: '{"upper":"SYNC"}' });
  });

  it('answers a FAILED run with its error and cause', async () => {
    expect(await run(express, { text: '' })).toEqual({
      status: 'FAILED',
      error: 'NoKeywords',
      cause: 'The text has no words.',
    });
  });

  it('refuses a STANDARD machine as a configuration fault', async () => {
    const refused = run(standard, { text: 'x' });
    await expect(refused).rejects.toBeInstanceOf(ExecutionStartError);
    await expect(refused).rejects.toMatchObject({ fault: 'configuration' });
  });
});

describe('step functions emulator: the STANDARD wrapper of an EXPRESS machine', () => {
  it('ends with the EXPRESS execution’s output, unchanged', async () => {
    const done = await settled(await startWrapper('task-wrapped-ok', { text: 'wrapped' }));
    expect(done).toMatchObject({ status: 'SUCCEEDED', output: '{"upper":"WRAPPED"}' });
  });

  it('fails with the EXPRESS execution’s own error and cause', async () => {
    const done = await settled(await startWrapper('task-wrapped-failed', { text: '' }));
    expect(done).toMatchObject({ status: 'FAILED', error: 'NoKeywords', cause: 'The text has no words.' });
  });

  it('fails with States.Timeout when the EXPRESS execution times out', async () => {
    const slow = await createMachine('slower-express', { ...expressDefinition, TimeoutSeconds: 1 }, 'EXPRESS');
    const slowWrapper = await createMachine('slower-wrapper', expressWrapperDefinition(slow));
    const done = await settled(await startWrapper('task-wrapped-late', { text: 'x', waitSeconds: 30 }, slowWrapper));
    expect(done).toMatchObject({ status: 'FAILED', error: 'States.Timeout' });
  });

  it('waits in its one working state while the EXPRESS execution runs, and stops at once when stopped', async () => {
    const executionArn = await startWrapper('task-wrapped-stopped', { text: 'x', waitSeconds: 240 });
    let current: string | undefined;
    for (let attempt = 0; attempt < 200 && current === undefined; attempt += 1) {
      const { events } = await local.sfn.send(new GetExecutionHistoryCommand({ executionArn, reverseOrder: true }));
      current = events?.find((event) => event.type === 'TaskStateEntered')?.stateEnteredEventDetails?.name;
      if (current === undefined) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(current).toBe(expressWrapperStateName);
    await local.sfn.send(
      new StopExecutionCommand({ executionArn, error: 'TaskCancelled', cause: 'The client cancelled.' }),
    );
    const stopped = await local.sfn.send(new DescribeExecutionCommand({ executionArn }));
    expect(stopped).toMatchObject({ status: 'ABORTED', error: 'TaskCancelled', cause: 'The client cancelled.' });
  });
});

describe('step functions emulator: the wrapper on fake time', () => {
  it('waits for an EXPRESS execution past the minute the library would give a Task state by default', async () => {
    vi.useFakeTimers();
    try {
      const registry = new Registry({ region: 'us-east-1', accountId: '000000000000' }, lambdaHandlers);
      const create = (name: string, definition: string, type: 'STANDARD' | 'EXPRESS') =>
        registry.createStateMachine({ name, definition, roleArn: ROLE_ARN, type });
      const child = create('minutes-express', JSON.stringify(expressDefinition), 'EXPRESS');
      const parent = create('minutes-wrapper', expressWrapperDefinition(child.arn), 'STANDARD');
      const run = registry.startExecution({
        stateMachineArn: parent.arn,
        name: 'task-minutes',
        input: JSON.stringify({ text: 'patient', waitSeconds: 200 }),
      });
      await vi.advanceTimersByTimeAsync(199_000);
      expect(run.status).toBe('RUNNING');
      await vi.advanceTimersByTimeAsync(2_000);
      await run.settled;
      expect(run).toMatchObject({ status: 'SUCCEEDED', output: '{"upper":"PATIENT"}' });
    } finally {
      vi.useRealTimers();
    }
  });
});
