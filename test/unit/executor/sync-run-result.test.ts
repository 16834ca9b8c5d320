// What a StartSyncExecution answer becomes: each status Step Functions answers with (SUCCEEDED, FAILED, TIMED_OUT, all
// with HTTP 200) read as the execution snapshot a described STANDARD execution gives, then as the tool result a plain
// call returns; and the API's refusals as ExecutionStartError with the fault a caller acts on.
import {
  InvalidExecutionInput,
  SFNClient,
  StartSyncExecutionCommand,
  StateMachineDoesNotExist,
  StateMachineTypeNotSupported,
  type StartSyncExecutionCommandOutput,
} from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { ExecutionStartError, ServiceBusyError } from '../../../lambda/core/errors.js';
import { outcomeOfExecution } from '../../../lambda/core/execution-status.js';
import { toolResultOf } from '../../../lambda/core/task.js';
import { StepFunctionsExecutor } from '../../../lambda/executor/step-functions-executor.js';
import { SYNC_REQUEST_TIMEOUT_MS } from '../../../lambda/executor/start-sync-execution.js';

const REQUEST = {
  stateMachineArn: 'arn:aws:states:us-east-1:123456789012:stateMachine:word-count',
  executionName: 'task-call',
  input: '{"text":"a b"}',
};

/** An executor whose client answers every command with `answer` (or throws it), recording what it was sent. */
function executorAnswering(answer: Partial<StartSyncExecutionCommandOutput> | Error) {
  const sent: { command: unknown; options: unknown }[] = [];
  const client = {
    send: async (command: unknown, options: unknown) => {
      sent.push({ command, options });
      if (answer instanceof Error) throw answer;
      return answer;
    },
  } as unknown as SFNClient;
  return { executor: new StepFunctionsExecutor({ client }), sent };
}

/** The tool result a plain call gives for the answer. */
async function resultOf(answer: Partial<StartSyncExecutionCommandOutput>) {
  const { executor } = executorAnswering(answer);
  return toolResultOf(outcomeOfExecution(await executor.runSync(REQUEST)));
}

const metadata = (name: string) => ({ $fault: 'client' as const, $metadata: {}, message: `${name} message` });

describe('StepFunctionsExecutor.runSync', () => {
  it('sends one StartSyncExecution of the machine, name and input, with a timeout past the EXPRESS limit', async () => {
    const { executor, sent } = executorAnswering({ status: 'SUCCEEDED', output: '{}' });
    await executor.runSync(REQUEST);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.command).toBeInstanceOf(StartSyncExecutionCommand);
    expect((sent[0]!.command as StartSyncExecutionCommand).input).toEqual({
      stateMachineArn: REQUEST.stateMachineArn,
      name: REQUEST.executionName,
      input: REQUEST.input,
    });
    expect(sent[0]!.options).toMatchObject({ requestTimeout: SYNC_REQUEST_TIMEOUT_MS });
  });

  it('maps SUCCEEDED to the output as the tool result', async () => {
    expect(await resultOf({ status: 'SUCCEEDED', output: '{"words":2}' })).toEqual({
      content: [{ type: 'text', text: '{"words":2}' }],
      structuredContent: { words: 2 },
    });
  });

  it('maps a SUCCEEDED output that is a tool error (isError) to that tool error', async () => {
    const output = JSON.stringify({ isError: true, content: [{ type: 'text', text: 'No words.' }] });
    expect(await resultOf({ status: 'SUCCEEDED', output })).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'No words.' }],
    });
  });

  it('maps FAILED to a tool error with the error and cause', async () => {
    expect(await resultOf({ status: 'FAILED', error: 'NoWords', cause: 'The text is empty.' })).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Execution failed: NoWords: The text is empty.' }],
    });
  });

  it('maps TIMED_OUT to a tool error that says it timed out', async () => {
    expect(await resultOf({ status: 'TIMED_OUT', error: 'States.Timeout' })).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Execution timed out: States.Timeout' }],
    });
  });

  it('refuses a STANDARD machine (StateMachineTypeNotSupported) as a configuration fault', async () => {
    const { executor } = executorAnswering(new StateMachineTypeNotSupported(metadata('type')));
    await expect(executor.runSync(REQUEST)).rejects.toMatchObject({
      name: ExecutionStartError.name,
      fault: 'configuration',
    });
  });

  it('refuses an unknown machine as a configuration fault and a bad input as an input fault', async () => {
    const unknown = executorAnswering(new StateMachineDoesNotExist(metadata('missing'))).executor;
    await expect(unknown.runSync(REQUEST)).rejects.toMatchObject({ fault: 'configuration' });
    const input = executorAnswering(new InvalidExecutionInput(metadata('input'))).executor;
    await expect(input.runSync(REQUEST)).rejects.toMatchObject({ fault: 'input' });
  });

  it('refuses a throttled run as a throttled fault: sent once, it started nothing', async () => {
    const throttled = new ServiceBusyError('Step Functions', 'StartSyncExecution', 1);
    await expect(executorAnswering(throttled).executor.runSync(REQUEST)).rejects.toMatchObject({
      fault: 'throttled',
    });
  });

  it('lets any other error through: the outcome is unknown', async () => {
    const lost = new Error('socket hang up');
    await expect(executorAnswering(lost).executor.runSync(REQUEST)).rejects.toBe(lost);
  });
});
