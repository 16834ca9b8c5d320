// The durable function executor against a Lambda client whose `send` answers from a script (an injected fault: the
// SDK's own exception classes are thrown, as the client throws them): what it asks Lambda, how it resolves a task's
// execution reference, and which errors are refusals, which "gone", and which an unknown outcome.
import {
  CallbackTimeoutException,
  DurableExecutionAlreadyStartedException,
  InvalidParameterValueException,
  InvalidRequestContentException,
  KMSAccessDeniedException,
  LambdaClient,
  LambdaServiceException,
  ModeNotSupportedException,
  NoPublishedVersionException,
  RequestTooLargeException,
  ResourceConflictException,
  ResourceNotFoundException,
  ResourceNotReadyException,
  SerializedRequestEntityTooLargeException,
  ServiceException,
  ServiceQuotaExceededException,
  TooManyRequestsException,
} from '@aws-sdk/client-lambda';
import { describe, expect, it } from 'vitest';
import { ExecutionStartError, ServiceBusyError } from '../../../lambda/core/errors.js';
import { WorkflowEngine, type Workflow } from '../../../lambda/contract/workflow-engine.js';
import { DurableFunctionExecutor } from '../../../lambda/executor/durable-function-executor.js';

const FUNCTION = 'arn:aws:lambda:eu-west-1:123456789012:function:durable-review';
const durable = (arn: string): Workflow => ({ engine: WorkflowEngine.DurableFunctions, arn });
const WORKFLOW = durable(`${FUNCTION}:live`);
const NAME = 'task-SEbFev7bhzQ0Kr6sIWTs8ey198x6ZHyEgnd5aWe4ZrI-0cbc8c9e10';
const REF = `${FUNCTION}/durable-execution/${NAME}`;
const REAL = `${FUNCTION}:3/durable-execution/${NAME}/0b7e3c4d-9a1f-4e2b-8c6d-5f4e3d2c1b0a`;
const $metadata = {};

type Reply = (input: Record<string, unknown>) => unknown;

/** An executor over a Lambda client that answers each command (by name, without `Command`) from `replies`. */
function executorWith(replies: Readonly<Record<string, Reply>>) {
  const client = new LambdaClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const calls: { command: string; input: Record<string, unknown> }[] = [];
  client.send = (async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
    const name = command.constructor.name.replace(/Command$/, '');
    calls.push({ command: name, input: command.input });
    const reply = replies[name];
    if (reply === undefined) throw new Error(`The test gave no answer to ${name}`);
    return reply(command.input);
  }) as unknown as LambdaClient['send'];
  return {
    executor: new DurableFunctionExecutor({ client }),
    calls,
    commands: () => calls.map((call) => call.command),
  };
}

const listed =
  (...executions: { name: string; arn: string }[]) =>
  () => ({
    DurableExecutions: executions.map(({ name, arn }) => ({ DurableExecutionName: name, DurableExecutionArn: arn })),
  });
const fail = (error: Error) => () => {
  throw error;
};
const start = (executor: DurableFunctionExecutor, input = '{"documents":["a b"]}') =>
  executor.start({ workflow: WORKFLOW, executionName: NAME, input });

describe('DurableFunctionExecutor.start', () => {
  it("invokes the qualified function asynchronously, named, with the arguments and the execution's reference", async () => {
    const { executor, calls } = executorWith({ Invoke: () => ({ StatusCode: 202, DurableExecutionArn: REAL }) });
    expect(await start(executor)).toEqual({ executionArn: REF });
    expect(executor.executionArnFor(WORKFLOW, NAME)).toBe(REF);
    const { input } = calls[0]!;
    expect(input).toMatchObject({ FunctionName: WORKFLOW.arn, InvocationType: 'Event', DurableExecutionName: NAME });
    expect(JSON.parse(Buffer.from(input['Payload'] as Uint8Array).toString('utf8'))).toEqual({
      arguments: { documents: ['a b'] },
      execution: REF,
    });
  });

  it('keeps the real ARN Invoke answers with, so the next describe asks no lookup', async () => {
    const { executor, commands } = executorWith({
      Invoke: () => ({ StatusCode: 202, DurableExecutionArn: REAL }),
      GetDurableExecution: () => ({ Status: 'RUNNING' }),
    });
    await start(executor);
    expect(await executor.describe(REF)).toEqual({ status: 'RUNNING' });
    expect(commands()).toEqual(['Invoke', 'GetDurableExecution']);
  });

  it('takes a name already started as this task started: the reference, its real ARN looked up when needed', async () => {
    const { executor, commands } = executorWith({
      Invoke: fail(new DurableExecutionAlreadyStartedException({ message: 'already started', $metadata })),
      ListDurableExecutionsByFunction: listed({ name: NAME, arn: REAL }),
      GetDurableExecution: () => ({ Status: 'SUCCEEDED', Result: '{}' }),
    });
    expect(await start(executor)).toEqual({ executionArn: REF });
    await executor.describe(REF);
    expect(commands()).toEqual(['Invoke', 'ListDurableExecutionsByFunction', 'GetDurableExecution']);
  });

  it('refuses an unqualified function without asking Lambda, as Lambda would refuse it', async () => {
    const { executor, calls } = executorWith({});
    const refusal = executor.start({ workflow: durable(FUNCTION), executionName: NAME, input: '{}' });
    await expect(refusal).rejects.toThrow(ExecutionStartError);
    await expect(refusal).rejects.toMatchObject({ fault: 'configuration' });
    expect(calls).toEqual([]);
  });

  it('refuses a name past 64 characters, or with a character a durable execution name cannot have, unasked', async () => {
    const { executor, calls } = executorWith({});
    for (const executionName of [`task-${'a'.repeat(60)}`, 'task:1']) {
      const refusal = executor.start({ workflow: WORKFLOW, executionName, input: '{}' });
      await expect(refusal).rejects.toMatchObject({ name: 'ExecutionStartError', fault: 'configuration' });
    }
    expect(calls).toEqual([]);
  });

  it('refuses input that is not JSON as the caller’s', async () => {
    const { executor } = executorWith({});
    await expect(start(executor, '{not json')).rejects.toMatchObject({ name: 'ExecutionStartError', fault: 'input' });
  });

  it.each([
    ['RequestTooLargeException', new RequestTooLargeException({ message: 'too large', $metadata }), 'input'],
    [
      'SerializedRequestEntityTooLargeException',
      new SerializedRequestEntityTooLargeException({ message: 'too large', $metadata }),
      'input',
    ],
    ['InvalidRequestContentException', new InvalidRequestContentException({ message: 'bad', $metadata }), 'input'],
    [
      'ResourceNotFoundException',
      new ResourceNotFoundException({ message: 'no function', $metadata }),
      'configuration',
    ],
    [
      'InvalidParameterValueException',
      new InvalidParameterValueException({ message: 'bad name', $metadata }),
      'configuration',
    ],
    ['NoPublishedVersionException', new NoPublishedVersionException({ message: 'none', $metadata }), 'configuration'],
    ['ModeNotSupportedException', new ModeNotSupportedException({ message: 'sync only', $metadata }), 'configuration'],
    ['KMSAccessDeniedException', new KMSAccessDeniedException({ message: 'denied', $metadata }), 'configuration'],
    [
      'AccessDeniedException',
      new LambdaServiceException({
        name: 'AccessDeniedException',
        $fault: 'client',
        message: 'not authorized',
        $metadata,
      }),
      'configuration',
    ],
    ['TooManyRequestsException', new TooManyRequestsException({ message: 'Rate exceeded', $metadata }), 'throttled'],
    ['a throttle the client translated', new ServiceBusyError('Lambda', 'Invoke', 1), 'throttled'],
    ['ServiceQuotaExceededException', new ServiceQuotaExceededException({ message: 'quota', $metadata }), 'capacity'],
  ])('turns %s into a refusal (%s)', async (_name, error, fault) => {
    const { executor } = executorWith({ Invoke: fail(error) });
    const refusal = start(executor);
    await expect(refusal).rejects.toThrow(ExecutionStartError);
    await expect(refusal).rejects.toMatchObject({ fault, cause: error });
  });

  it.each([
    ['ServiceException', new ServiceException({ message: 'internal', $metadata })],
    ['ResourceConflictException', new ResourceConflictException({ message: 'updating', $metadata })],
    ['ResourceNotReadyException', new ResourceNotReadyException({ message: 'not ready', $metadata })],
    ['a network error', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })],
  ])('rethrows %s as it is: the outcome is unknown', async (_name, error) => {
    const { executor } = executorWith({ Invoke: fail(error) });
    await expect(start(executor)).rejects.toBe(error);
  });
});

describe('DurableFunctionExecutor.describe', () => {
  it('resolves a reference by function and name once, then describes the real ARN only', async () => {
    const { executor, calls, commands } = executorWith({
      ListDurableExecutionsByFunction: listed({ name: NAME, arn: REAL }),
      GetDurableExecution: () => ({ Status: 'FAILED', Error: { ErrorType: 'E', ErrorMessage: 'm' } }),
    });
    expect(await executor.describe(REF)).toEqual({ status: 'FAILED', error: 'E', cause: 'm' });
    expect(await executor.describe(REF)).toEqual({ status: 'FAILED', error: 'E', cause: 'm' });
    expect(commands()).toEqual(['ListDurableExecutionsByFunction', 'GetDurableExecution', 'GetDurableExecution']);
    expect(calls[0]!.input).toMatchObject({ FunctionName: FUNCTION, DurableExecutionName: NAME });
    expect(calls[1]!.input).toMatchObject({ DurableExecutionArn: REAL });
  });

  it('takes only the execution of exactly that name from the list', async () => {
    const { executor } = executorWith({
      ListDurableExecutionsByFunction: listed({ name: `${NAME}-other`, arn: 'wrong' }, { name: NAME, arn: REAL }),
      GetDurableExecution: (input) => ({ Status: input['DurableExecutionArn'] === REAL ? 'RUNNING' : 'FAILED' }),
    });
    expect(await executor.describe(REF)).toEqual({ status: 'RUNNING' });
  });

  it('is null for a reference Lambda has no execution for, and asks again next time (a start may yet land)', async () => {
    const { executor, commands } = executorWith({ ListDurableExecutionsByFunction: listed() });
    expect(await executor.describe(REF)).toBeNull();
    expect(await executor.describe(REF)).toBeNull();
    expect(commands()).toEqual(['ListDurableExecutionsByFunction', 'ListDurableExecutionsByFunction']);
  });

  it('is null when the function is gone, or the execution is', async () => {
    const gone = new ResourceNotFoundException({ message: 'gone', $metadata });
    expect(await executorWith({ ListDurableExecutionsByFunction: fail(gone) }).executor.describe(REF)).toBeNull();
    expect(await executorWith({ GetDurableExecution: fail(gone) }).executor.describe(REAL)).toBeNull();
  });

  it('describes a real ARN without a lookup', async () => {
    const { executor, commands } = executorWith({ GetDurableExecution: () => ({ Status: 'STOPPED' }) });
    expect(await executor.describe(REAL)).toEqual({ status: 'ABORTED' });
    expect(commands()).toEqual(['GetDurableExecution']);
  });
});

describe('DurableFunctionExecutor.currentStep', () => {
  it('reads one small page of the newest history, without payloads', async () => {
    const { executor, calls } = executorWith({
      ListDurableExecutionsByFunction: listed({ name: NAME, arn: REAL }),
      GetDurableExecutionHistory: () => ({ Events: [{ EventType: 'WaitStarted', Id: 'w', Name: 'Review window' }] }),
    });
    expect(await executor.currentStep(REF)).toBe('Review window');
    expect(calls[1]!.input).toMatchObject({
      DurableExecutionArn: REAL,
      ReverseOrder: true,
      IncludeExecutionData: false,
      MaxItems: expect.any(Number),
    });
    expect(calls[1]!.input['MaxItems']).toBeLessThanOrEqual(50);
  });

  it('is null for an execution that does not exist (yet)', async () => {
    expect(await executorWith({ ListDurableExecutionsByFunction: listed() }).executor.currentStep(REF)).toBeNull();
  });
});

describe('DurableFunctionExecutor.stop', () => {
  const reason = { error: 'TaskCancelled', cause: 'The client cancelled the task.' };

  it('stops the real execution with the reason as its Error', async () => {
    const { executor, calls } = executorWith({
      ListDurableExecutionsByFunction: listed({ name: NAME, arn: REAL }),
      StopDurableExecution: () => ({}),
    });
    await executor.stop(REF, reason);
    expect(calls[1]).toEqual({
      command: 'StopDurableExecution',
      input: { DurableExecutionArn: REAL, Error: { ErrorType: 'TaskCancelled', ErrorMessage: reason.cause } },
    });
  });

  it('is a no-op for an execution that does not exist', async () => {
    const { executor, commands } = executorWith({ ListDurableExecutionsByFunction: listed() });
    await executor.stop(REF, reason);
    expect(commands()).toEqual(['ListDurableExecutionsByFunction']);
    const gone = new ResourceNotFoundException({ message: 'gone', $metadata });
    await expect(
      executorWith({ StopDurableExecution: fail(gone) }).executor.stop(REAL, reason),
    ).resolves.toBeUndefined();
  });

  it('is a no-op for a closed execution whose stop Lambda refuses, and rethrows the refusal for a running one', async () => {
    const refused = new InvalidParameterValueException({ message: 'not running', $metadata });
    const closed = executorWith({
      StopDurableExecution: fail(refused),
      GetDurableExecution: () => ({ Status: 'SUCCEEDED' }),
    });
    await expect(closed.executor.stop(REAL, reason)).resolves.toBeUndefined();
    const running = executorWith({
      StopDurableExecution: fail(refused),
      GetDurableExecution: () => ({ Status: 'RUNNING' }),
    });
    await expect(running.executor.stop(REAL, reason)).rejects.toBe(refused);
  });

  it('rethrows any other error', async () => {
    const error = new ServiceException({ message: 'internal', $metadata });
    await expect(executorWith({ StopDurableExecution: fail(error) }).executor.stop(REAL, reason)).rejects.toBe(error);
  });
});

describe('DurableFunctionExecutor.resume', () => {
  it('completes the callback with the answer and says delivered', async () => {
    const { executor, calls } = executorWith({ SendDurableExecutionCallbackSuccess: () => ({}) });
    expect(await executor.resume(REF, 'callback-1', '{"action":"accept"}')).toBe('delivered');
    expect(calls[0]!.input['CallbackId']).toBe('callback-1');
    expect(Buffer.from(calls[0]!.input['Result'] as Uint8Array).toString('utf8')).toBe('{"action":"accept"}');
  });

  it.each([
    ['CallbackTimeoutException', new CallbackTimeoutException({ message: 'closed', $metadata })],
    ['ResourceNotFoundException', new ResourceNotFoundException({ message: 'gone', $metadata })],
  ])('says gone on %s: nothing waits for the answer any more', async (_name, error) => {
    const { executor } = executorWith({ SendDurableExecutionCallbackSuccess: fail(error) });
    expect(await executor.resume(REF, 'callback-1', '{}')).toBe('gone');
  });

  it('rethrows any other error: the answer may not have arrived', async () => {
    const error = new TooManyRequestsException({ message: 'Rate exceeded', $metadata });
    const { executor } = executorWith({ SendDurableExecutionCallbackSuccess: fail(error) });
    await expect(executor.resume(REF, 'callback-1', '{}')).rejects.toBe(error);
  });
});
