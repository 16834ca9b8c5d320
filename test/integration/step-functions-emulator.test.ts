// The local Step Functions emulator, driven by the real @aws-sdk/client-sfn SFNClient over loopback HTTP.
import {
  CreateStateMachineCommand,
  DeleteStateMachineCommand,
  DescribeExecutionCommand,
  DescribeStateMachineCommand,
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  InvalidArn,
  InvalidDefinition,
  InvalidExecutionInput,
  InvalidName,
  ListExecutionsCommand,
  ListStateMachinesCommand,
  StartExecutionCommand,
  StateMachineAlreadyExists,
  StateMachineDoesNotExist,
  StopExecutionCommand,
  type DescribeExecutionCommandOutput,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { startStepFunctionsEmulator } from '../../local/step-functions/emulator.js';
import { localSfnClient, useStepFunctionsEmulator } from '../support/step-functions-emulator.js';

const ROLE_ARN = 'arn:aws:iam::000000000000:role/local-sfn';
const lambdaArn = (name: string): string => `arn:aws:lambda:us-east-1:000000000000:function:${name}`;
const machineArn = (name: string): string => `arn:aws:states:us-east-1:000000000000:stateMachine:${name}`;

class BoomError extends Error {
  override name = 'BoomError';
}

let flakyCalls = 0;
const lambdaHandlers = {
  double: (event: unknown) => ({ value: (event as { value: number }).value * 2 }),
  square: (event: unknown) => (event as number) ** 2,
  boom: () => {
    throw new BoomError('it went boom');
  },
  flaky: (event: unknown) => {
    flakyCalls += 1;
    if (flakyCalls === 1) throw new BoomError('first call fails');
    return { event, calls: flakyCalls };
  },
};

function createMachine(sfn: SFNClient, name: string, definition: object): Promise<string> {
  return sfn
    .send(new CreateStateMachineCommand({ name, roleArn: ROLE_ARN, definition: JSON.stringify(definition) }))
    .then((out) => out.stateMachineArn ?? '');
}

/** Polls until the execution leaves RUNNING; bounded so a stuck execution fails the test instead of hanging it. */
async function settled(sfn: SFNClient, executionArn: string): Promise<DescribeExecutionCommandOutput> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const execution = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    if (execution.status !== 'RUNNING') return execution;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`execution ${executionArn} is still RUNNING`);
}

async function run(sfn: SFNClient, stateMachineArn: string, input: unknown): Promise<DescribeExecutionCommandOutput> {
  const { executionArn } = await sfn.send(new StartExecutionCommand({ stateMachineArn, input: JSON.stringify(input) }));
  return settled(sfn, executionArn ?? '');
}

const waitLong = { StartAt: 'Hold', States: { Hold: { Type: 'Wait', Seconds: 600, End: true } } };
const passOnly = { StartAt: 'P', States: { P: { Type: 'Pass', End: true } } };

const local = useStepFunctionsEmulator({ lambdaHandlers });

describe('step functions emulator: state machines', () => {
  it('creates, describes and lists a state machine with AWS-shaped ARNs and dates', async () => {
    const definition = JSON.stringify(passOnly);
    const created = await local.sfn.send(
      new CreateStateMachineCommand({ name: 'catalog', definition, roleArn: ROLE_ARN }),
    );
    expect(created.stateMachineArn).toBe(machineArn('catalog'));
    expect(created.creationDate).toBeInstanceOf(Date);

    const described = await local.sfn.send(new DescribeStateMachineCommand({ stateMachineArn: machineArn('catalog') }));
    expect(described).toMatchObject({
      name: 'catalog',
      status: 'ACTIVE',
      definition,
      roleArn: ROLE_ARN,
      type: 'STANDARD',
    });
    expect(described.creationDate?.getTime()).toBe(created.creationDate?.getTime());

    const listed = await local.sfn.send(new ListStateMachinesCommand({}));
    expect(listed.stateMachines?.map((m) => m.name)).toContain('catalog');
  });

  it('answers a repeated create with the same definition with the existing machine, a different one with StateMachineAlreadyExists', async () => {
    const first = await createMachine(local.sfn, 'repeatable', passOnly);
    await expect(createMachine(local.sfn, 'repeatable', passOnly)).resolves.toBe(first);
    const changed = { StartAt: 'P', States: { P: { Type: 'Pass', Result: 1, End: true } } };
    await expect(createMachine(local.sfn, 'repeatable', changed)).rejects.toBeInstanceOf(StateMachineAlreadyExists);
  });

  it('rejects bad names, bad definitions and unknown or malformed ARNs with the typed exceptions', async () => {
    await expect(createMachine(local.sfn, 'has space', passOnly)).rejects.toBeInstanceOf(InvalidName);
    await expect(createMachine(local.sfn, 'unreachable', { StartAt: 'Nope', States: {} })).rejects.toBeInstanceOf(
      InvalidDefinition,
    );
    await expect(
      local.sfn.send(new CreateStateMachineCommand({ name: 'garbled', definition: '{oops', roleArn: ROLE_ARN })),
    ).rejects.toBeInstanceOf(InvalidDefinition);
    await expect(
      local.sfn.send(new DescribeStateMachineCommand({ stateMachineArn: machineArn('never-created') })),
    ).rejects.toBeInstanceOf(StateMachineDoesNotExist);
    await expect(
      local.sfn.send(new DescribeStateMachineCommand({ stateMachineArn: 'not-an-arn' })),
    ).rejects.toBeInstanceOf(InvalidArn);
  });

  it('forgets a deleted state machine', async () => {
    const arn = await createMachine(local.sfn, 'short-lived', passOnly);
    await local.sfn.send(new DeleteStateMachineCommand({ stateMachineArn: arn }));
    await expect(local.sfn.send(new DescribeStateMachineCommand({ stateMachineArn: arn }))).rejects.toBeInstanceOf(
      StateMachineDoesNotExist,
    );
  });
});

describe('step functions emulator: executions', { timeout: 30_000 }, () => {
  it('runs Pass, Wait and a Lambda Task to SUCCEEDED with the expected output', async () => {
    const arn = await createMachine(local.sfn, 'pass-wait-task', {
      StartAt: 'Prepare',
      States: {
        Prepare: { Type: 'Pass', Parameters: { 'value.$': '$.n' }, Next: 'Pause' },
        Pause: { Type: 'Wait', Seconds: 1, Next: 'Double' },
        Double: { Type: 'Task', Resource: lambdaArn('double'), ResultPath: '$.doubled', End: true },
      },
    });
    const execution = await run(local.sfn, arn, { n: 21 });
    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output ?? '')).toEqual({ value: 21, doubled: { value: 42 } });
    expect(execution.input).toBe(JSON.stringify({ n: 21 }));
    expect(execution.stopDate).toBeInstanceOf(Date);
  });

  it('runs a Map state calling a Lambda function (qualified ARN) for each item', async () => {
    const arn = await createMachine(local.sfn, 'map-squares', {
      StartAt: 'Each',
      States: {
        Each: {
          Type: 'Map',
          ItemsPath: '$.items',
          ItemProcessor: {
            ProcessorConfig: { Mode: 'INLINE' },
            StartAt: 'Square',
            States: { Square: { Type: 'Task', Resource: `${lambdaArn('square')}:live`, End: true } },
          },
          End: true,
        },
      },
    });
    const execution = await run(local.sfn, arn, { items: [1, 2, 3] });
    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output ?? '')).toEqual([1, 4, 9]);
  });

  it('runs the lambda:invoke integration and wraps the result in Payload', async () => {
    const arn = await createMachine(local.sfn, 'invoke-integration', {
      StartAt: 'Invoke',
      States: {
        Invoke: {
          Type: 'Task',
          Resource: 'arn:aws:states:::lambda:invoke',
          Parameters: { FunctionName: lambdaArn('double'), 'Payload.$': '$' },
          OutputPath: '$.Payload',
          End: true,
        },
      },
    });
    const execution = await run(local.sfn, arn, { value: 5 });
    expect(JSON.parse(execution.output ?? '')).toEqual({ value: 10 });
  });

  it('reports a Fail state as FAILED with its Error and Cause and no output', async () => {
    const arn = await createMachine(local.sfn, 'always-fails', {
      StartAt: 'Reject',
      States: { Reject: { Type: 'Fail', Error: 'OrderRejected', Cause: 'out of stock' } },
    });
    const execution = await run(local.sfn, arn, {});
    expect(execution).toMatchObject({ status: 'FAILED', error: 'OrderRejected', cause: 'out of stock' });
    expect(execution.output).toBeUndefined();
  });

  it('reports an uncaught Lambda error as FAILED with the error name and message', async () => {
    const arn = await createMachine(local.sfn, 'lambda-throws', {
      StartAt: 'Explode',
      States: { Explode: { Type: 'Task', Resource: lambdaArn('boom'), End: true } },
    });
    const execution = await run(local.sfn, arn, {});
    expect(execution).toMatchObject({ status: 'FAILED', error: 'BoomError', cause: 'it went boom' });
  });

  it('lets a Catch on the Lambda error name handle it', async () => {
    const arn = await createMachine(local.sfn, 'lambda-caught', {
      StartAt: 'Explode',
      States: {
        Explode: {
          Type: 'Task',
          Resource: lambdaArn('boom'),
          Catch: [{ ErrorEquals: ['BoomError'], ResultPath: '$.failure', Next: 'Recovered' }],
          End: true,
        },
        Recovered: { Type: 'Pass', End: true },
      },
    });
    const execution = await run(local.sfn, arn, { order: 7 });
    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output ?? '')).toEqual({
      order: 7,
      failure: { Error: 'BoomError', Cause: 'it went boom' },
    });
  });

  it('retries a failing Lambda on States.TaskFailed', async () => {
    const arn = await createMachine(local.sfn, 'lambda-retried', {
      StartAt: 'Flaky',
      States: {
        Flaky: {
          Type: 'Task',
          Resource: lambdaArn('flaky'),
          Retry: [{ ErrorEquals: ['States.TaskFailed'], IntervalSeconds: 1, MaxAttempts: 2 }],
          End: true,
        },
      },
    });
    const execution = await run(local.sfn, arn, { id: 1 });
    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output ?? '')).toEqual({ event: { id: 1 }, calls: 2 });
  });

  it('stops a running execution as ABORTED and leaves a closed one unchanged on a second stop', async () => {
    const stateMachineArn = await createMachine(local.sfn, 'stoppable', waitLong);
    const { executionArn } = await local.sfn.send(new StartExecutionCommand({ stateMachineArn }));
    const stop = await local.sfn.send(
      new StopExecutionCommand({ executionArn, error: 'Cancelled', cause: 'user asked' }),
    );
    expect(stop.stopDate).toBeInstanceOf(Date);

    const stopped = await local.sfn.send(new DescribeExecutionCommand({ executionArn }));
    expect(stopped).toMatchObject({ status: 'ABORTED', error: 'Cancelled', cause: 'user asked' });
    expect(stopped.stopDate?.getTime()).toBe(stop.stopDate?.getTime());

    const again = await local.sfn.send(new StopExecutionCommand({ executionArn, error: 'Other' }));
    expect(again.stopDate?.getTime()).toBe(stop.stopDate?.getTime());
    await expect(local.sfn.send(new DescribeExecutionCommand({ executionArn }))).resolves.toMatchObject({
      error: 'Cancelled',
    });
  });

  it('rejects bad execution names, inputs, machines and execution ARNs with the typed exceptions', async () => {
    const stateMachineArn = await createMachine(local.sfn, 'validated', passOnly);
    await expect(
      local.sfn.send(new StartExecutionCommand({ stateMachineArn, name: 'bad/name' })),
    ).rejects.toBeInstanceOf(InvalidName);
    await expect(
      local.sfn.send(new StartExecutionCommand({ stateMachineArn, input: '{not json' })),
    ).rejects.toBeInstanceOf(InvalidExecutionInput);
    await expect(
      local.sfn.send(new StartExecutionCommand({ stateMachineArn: machineArn('missing-machine') })),
    ).rejects.toBeInstanceOf(StateMachineDoesNotExist);
    const unknown = 'arn:aws:states:us-east-1:000000000000:execution:validated:never-started';
    await expect(local.sfn.send(new DescribeExecutionCommand({ executionArn: unknown }))).rejects.toBeInstanceOf(
      ExecutionDoesNotExist,
    );
    await expect(local.sfn.send(new StopExecutionCommand({ executionArn: unknown }))).rejects.toBeInstanceOf(
      ExecutionDoesNotExist,
    );
    await expect(
      local.sfn.send(new DescribeExecutionCommand({ executionArn: stateMachineArn })),
    ).rejects.toBeInstanceOf(InvalidArn);
  });

  it('lists executions newest first, filtered by status and paged with nextToken', async () => {
    const stateMachineArn = await createMachine(local.sfn, 'listed', {
      StartAt: 'Route',
      States: {
        Route: {
          Type: 'Choice',
          Choices: [{ Variable: '$.hold', BooleanEquals: true, Next: 'Hold' }],
          Default: 'Done',
        },
        Hold: { Type: 'Wait', Seconds: 600, End: true },
        Done: { Type: 'Succeed' },
      },
    });
    const quick = await run(local.sfn, stateMachineArn, { hold: false });
    const held = await local.sfn.send(
      new StartExecutionCommand({ stateMachineArn, name: 'held', input: '{"hold":true}' }),
    );

    const succeeded = await local.sfn.send(new ListExecutionsCommand({ stateMachineArn, statusFilter: 'SUCCEEDED' }));
    expect(succeeded.executions?.map((e) => e.executionArn)).toEqual([quick.executionArn]);
    const running = await local.sfn.send(new ListExecutionsCommand({ stateMachineArn, statusFilter: 'RUNNING' }));
    expect(running.executions?.map((e) => e.executionArn)).toEqual([held.executionArn]);

    const first = await local.sfn.send(new ListExecutionsCommand({ stateMachineArn, maxResults: 1 }));
    expect(first.executions?.map((e) => e.name)).toEqual(['held']);
    const second = await local.sfn.send(
      new ListExecutionsCommand({ stateMachineArn, maxResults: 1, nextToken: first.nextToken }),
    );
    expect(second.executions?.map((e) => e.executionArn)).toEqual([quick.executionArn]);
    expect(second.nextToken).toBeUndefined();
  });
});

describe('step functions emulator: StartExecution idempotency', { timeout: 30_000 }, () => {
  it('returns the running execution for the same name and input, and ExecutionAlreadyExists once it has closed', async () => {
    let openGate: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    const own = await startStepFunctionsEmulator({
      lambdaHandlers: { gated: async (event: unknown) => (await gate, event) },
    });
    const ownSfn = localSfnClient(own.url);
    try {
      const stateMachineArn = await createMachine(ownSfn, 'gated', {
        StartAt: 'Gated',
        States: { Gated: { Type: 'Task', Resource: lambdaArn('gated'), End: true } },
      });
      const start = { stateMachineArn, name: 'order-42', input: '{"order":42}' };
      const first = await ownSfn.send(new StartExecutionCommand(start));
      const repeat = await ownSfn.send(new StartExecutionCommand(start));
      expect(repeat.executionArn).toBe(first.executionArn);
      expect(repeat.startDate?.getTime()).toBe(first.startDate?.getTime());
      expect(own.executionsStarted).toBe(1);

      await expect(ownSfn.send(new StartExecutionCommand({ ...start, input: '{"order":43}' }))).rejects.toBeInstanceOf(
        ExecutionAlreadyExists,
      );

      openGate();
      const done = await settled(ownSfn, first.executionArn ?? '');
      expect(done.status).toBe('SUCCEEDED');
      await expect(ownSfn.send(new StartExecutionCommand(start))).rejects.toBeInstanceOf(ExecutionAlreadyExists);
      expect(own.executionsStarted).toBe(1);
    } finally {
      ownSfn.destroy();
      await own.close();
    }
  });
});

describe('step functions emulator: protocol', () => {
  const post = (target: string, body: string): Promise<Response> =>
    fetch(local.emulator.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': target },
      body,
    });

  it('answers an unknown operation with HTTP 400 UnknownOperationException', async () => {
    const response = await post('AWSStepFunctions.NoSuchThing', '{}');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ __type: 'UnknownOperationException' });
  });

  it('answers a malformed JSON body with HTTP 400 SerializationException', async () => {
    const response = await post('AWSStepFunctions.ListStateMachines', '{nope');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ __type: 'SerializationException' });
  });
});
