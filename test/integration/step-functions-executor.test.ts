// The executor against the Step Functions emulator through the real SFN client.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import {
  ExecutionLimitExceeded,
  KmsAccessDeniedException,
  ListExecutionsCommand,
  SFNClient,
  StateMachineDeleting,
  ValidationException,
  type SFNServiceException,
} from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { ExecutionStartError } from '../../lambda/core/errors.js';
import { stepFunctionsWorkflow, type Workflow } from '../../lambda/contract/workflow-engine.js';
import { StepFunctionsExecutor } from '../../lambda/executor/step-functions-executor.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/local-aws.js';
import { exampleTools, localAwsClients } from '../support/local-backend.js';

const sfn = () => localAwsClients().stepFunctions;
const executor = () => new StepFunctionsExecutor({ client: sfn() });
const machine = (name: string): Workflow =>
  stepFunctionsWorkflow(exampleTools().find((tool) => tool.name === name)!.stateMachineArn!);

async function describeUntilClosed(executionArn: string) {
  for (let attempt = 0; attempt < 300; attempt++) {
    const execution = await executor().describe(executionArn);
    if (execution?.status !== 'RUNNING') return execution;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('execution did not close');
}

async function executionsNamed(stateMachineArn: string, name: string): Promise<number> {
  const { executions = [] } = await sfn().send(new ListExecutionsCommand({ stateMachineArn, maxResults: 1000 }));
  return executions.filter((execution) => execution.name === name).length;
}

describe('StepFunctionsExecutor', () => {
  it('derives the execution ARN before starting, and the start returns that ARN', async () => {
    const name = `exec-${randomUUID()}`;
    const expected = executor().executionArnFor(machine('text_stats'), name);
    const { executionArn } = await executor().start({
      workflow: machine('text_stats'),
      executionName: name,
      input: '{"text":"a b"}',
    });
    expect(executionArn).toBe(expected);
  });

  it('starts one execution however often the same start is retried, running or closed', async () => {
    const workflow = machine('analyze_documents');
    const request = {
      workflow,
      executionName: `retry-${randomUUID()}`,
      input: '{"documents":["a"],"reviewSeconds":1}',
    };
    const first = await executor().start(request);
    const again = await executor().start(request);
    expect(again.executionArn).toBe(first.executionArn);
    await describeUntilClosed(first.executionArn);
    const afterClose = await executor().start(request);
    expect(afterClose.executionArn).toBe(first.executionArn);
    expect(await executionsNamed(workflow.arn, request.executionName)).toBe(1);
  });

  it('describes a finished execution with its output', async () => {
    const { executionArn } = await executor().start({
      workflow: machine('text_stats'),
      executionName: `d-${randomUUID()}`,
      input: '{"text":"one two"}',
    });
    const execution = await describeUntilClosed(executionArn);
    expect(execution).toMatchObject({ status: 'SUCCEEDED' });
    expect(JSON.parse(execution!.output!)).toMatchObject({ words: 2 });
  });

  it('describes a failed execution with its error and cause', async () => {
    const { executionArn } = await executor().start({
      workflow: machine('export_report'),
      executionName: `f-${randomUUID()}`,
      input: '{"reportName":"q3"}',
    });
    expect(await describeUntilClosed(executionArn)).toMatchObject({
      status: 'FAILED',
      error: 'UpstreamUnavailable',
      cause: expect.stringContaining("'q3'"),
    });
  });

  it('answers null for an execution that does not exist', async () => {
    expect(await executor().describe(executor().executionArnFor(machine('text_stats'), 'never-started'))).toBeNull();
  });

  it('stops a running execution, and stopping again or stopping nothing is harmless', async () => {
    const { executionArn } = await executor().start({
      workflow: machine('analyze_documents'),
      executionName: `s-${randomUUID()}`,
      input: '{"documents":["a"],"reviewSeconds":60}',
    });
    await executor().stop(executionArn, { error: 'TaskCancelled', cause: 'test' });
    expect(await executor().describe(executionArn)).toMatchObject({
      status: 'ABORTED',
      error: 'TaskCancelled',
      cause: 'test',
    });
    await expect(executor().stop(executionArn, { error: 'TaskCancelled', cause: 'again' })).resolves.toBeUndefined();
    await expect(
      executor().stop(executor().executionArnFor(machine('text_stats'), 'ghost'), { error: 'x', cause: 'y' }),
    ).resolves.toBeUndefined();
  });

  it('reports a definite refusal as ExecutionStartError', async () => {
    const missing = stepFunctionsWorkflow('arn:aws:states:us-east-1:000000000000:stateMachine:does-not-exist');
    await expect(executor().start({ workflow: missing, executionName: 'x', input: '{}' })).rejects.toBeInstanceOf(
      ExecutionStartError,
    );
    await expect(
      executor().start({ workflow: machine('text_stats'), executionName: 'x', input: 'not json' }),
    ).rejects.toBeInstanceOf(ExecutionStartError);
  });

  it("refuses an input over 256 KiB as the caller's fault", async () => {
    const input = JSON.stringify({ documents: Array.from({ length: 4 }, () => 'x'.repeat(80_000)), reviewSeconds: 1 });
    const start = executor().start({
      workflow: machine('analyze_documents'),
      executionName: `big-${randomUUID()}`,
      input,
    });
    await expect(start).rejects.toMatchObject({ name: 'ExecutionStartError', fault: 'input' });
  });

  // Refusals the emulator cannot produce, injected into a real client before it sends anything.
  const refusals: [string, SFNServiceException, string][] = [
    [
      'a name that breaks a constraint',
      new ValidationException({
        message: "1 validation error detected: Value at 'name' failed to satisfy constraint",
        $metadata: {},
      }),
      'configuration',
    ],
    [
      'a machine being deleted',
      new StateMachineDeleting({ message: 'State Machine is being deleted', $metadata: {} }),
      'configuration',
    ],
    ['an unusable key', new KmsAccessDeniedException({ message: 'KMS access denied', $metadata: {} }), 'configuration'],
    [
      'too many open executions',
      new ExecutionLimitExceeded({ message: 'Execution limit exceeded', $metadata: {} }),
      'capacity',
    ],
  ];
  it.each(refusals)('reports %s as a definite refusal', async (_, refusal, fault) => {
    const client = sfn();
    client.middlewareStack.add(() => async () => Promise.reject(refusal), {
      step: 'initialize',
      name: 'injectRefusal',
    });
    const start = new StepFunctionsExecutor({ client }).start({
      workflow: machine('text_stats'),
      executionName: `r-${randomUUID()}`,
      input: '{}',
    });
    await expect(start).rejects.toMatchObject({ name: 'ExecutionStartError', fault });
  });

  it('leaves an unreachable service as an unknown outcome, not a refusal', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));
    const client = new SFNClient({
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
      endpoint: `http://127.0.0.1:${port}`,
      maxAttempts: 1,
    });
    const start = new StepFunctionsExecutor({ client }).start({
      workflow: machine('text_stats'),
      executionName: 'x',
      input: '{}',
    });
    await expect(start).rejects.toThrow();
    await expect(start).rejects.not.toBeInstanceOf(ExecutionStartError);
  });
});
