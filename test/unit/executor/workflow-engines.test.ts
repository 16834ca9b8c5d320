// One executor over the engines: a start goes to the engine its workflow names, every later call to the engine its
// execution ARN belongs to (Step Functions for every ARN stored before there were engines), and a call on an engine
// the backend was not given is refused without reaching another engine.
import { describe, expect, it } from 'vitest';
import { EngineNotConfiguredError, ExecutionStartError } from '../../../lambda/core/errors.js';
import {
  engineOfExecutionArn,
  engineOfWorkflowArn,
  stepFunctionsWorkflow,
  WorkflowEngine,
  type Workflow,
} from '../../../lambda/contract/workflow-engine.js';
import { InMemoryExecutor } from '../../../lambda/executor/in-memory-executor.js';
import type { TaskExecutor } from '../../../lambda/executor/task-executor.js';
import { taskKey, taskKeyFromExecutionName } from '../../../lambda/core/task-key.js';
import { executionArnFor, executionNameOn, WorkflowEngines } from '../../../lambda/executor/workflow-engines.js';

const MACHINE = 'arn:aws:states:us-east-1:123456789012:stateMachine:review';
const FUNCTION = 'arn:aws:lambda:us-east-1:123456789012:function:review:live';
const DURABLE: Workflow = { engine: WorkflowEngine.DurableFunctions, arn: FUNCTION };
const DURABLE_EXECUTION = `${FUNCTION}/durable-execution/task-x/0f0e`;

/** A durable engine that records which method was called with which ARN, and answers as a running execution. */
function recordingEngine() {
  const calls: string[] = [];
  const engine: TaskExecutor = {
    executionArnFor: (workflow, name) => `${workflow.arn}/durable-execution/${name}`,
    start: async (request) => {
      calls.push(`start ${request.workflow.arn}`);
      return { executionArn: `${request.workflow.arn}/durable-execution/${request.executionName}` };
    },
    describe: async (arn) => (calls.push(`describe ${arn}`), { status: 'RUNNING' }),
    currentStep: async (arn) => (calls.push(`currentStep ${arn}`), 'review'),
    stop: async (arn) => void calls.push(`stop ${arn}`),
    resume: async (arn, token) => (calls.push(`resume ${arn} ${token}`), 'delivered'),
  };
  return { engine, calls };
}

describe('engineOfWorkflowArn', () => {
  it("reads durable functions from a Lambda function's ARN, qualified or not, in any partition", () => {
    expect(engineOfWorkflowArn(FUNCTION)).toBe(WorkflowEngine.DurableFunctions);
    expect(engineOfWorkflowArn('arn:aws-cn:lambda:cn-north-1:123456789012:function:review')).toBe(
      WorkflowEngine.DurableFunctions,
    );
  });

  it("reads Step Functions from a state machine's ARN, and from anything else, as every tool was before", () => {
    expect(engineOfWorkflowArn(MACHINE)).toBe(WorkflowEngine.StepFunctions);
    expect(engineOfWorkflowArn('arn:aws:lambda:us-east-1:123456789012:layer:x:1')).toBe(WorkflowEngine.StepFunctions);
  });
});

describe('engineOfExecutionArn', () => {
  it('reads Step Functions from an execution ARN of the states service', () => {
    expect(engineOfExecutionArn(`${MACHINE.replace(':stateMachine:', ':execution:')}:task-1`)).toBe(
      WorkflowEngine.StepFunctions,
    );
  });

  it('reads durable functions from an execution ARN of the lambda service', () => {
    expect(engineOfExecutionArn(DURABLE_EXECUTION)).toBe(WorkflowEngine.DurableFunctions);
  });

  it('knows no engine of another service, or of text that is no ARN', () => {
    expect(engineOfExecutionArn('arn:aws:sqs:us-east-1:123456789012:queue')).toBeNull();
    expect(engineOfExecutionArn('task-1')).toBeNull();
  });
});

describe('executionArnFor and executionNameOn', () => {
  it("derive a durable execution's reference, the same for any qualifier, before any engine is asked", () => {
    const unqualified = FUNCTION.replace(/:live$/, '');
    for (const arn of [FUNCTION, `${unqualified}:7`, `${unqualified}:$LATEST`])
      expect(executionArnFor({ engine: WorkflowEngine.DurableFunctions, arn }, 'task-x')).toBe(
        `${unqualified}/durable-execution/task-x`,
      );
  });

  it("name a task's execution within each engine's limit, and lead back to the task key", () => {
    const key = taskKey('alice', 't1');
    const stepFunctions = executionNameOn(WorkflowEngine.StepFunctions, key, '0123456789');
    const durable = executionNameOn(WorkflowEngine.DurableFunctions, key, '0123456789');
    expect(stepFunctions).toMatch(/^[0-9A-Za-z_-]{1,80}$/);
    expect(durable).toMatch(/^[0-9A-Za-z_-]{1,64}$/);
    expect(stepFunctions).toBe(`task-${key}-0123456789`);
    expect(taskKeyFromExecutionName(stepFunctions)).toBe(key);
    expect(taskKeyFromExecutionName(durable)).toBe(key);
  });
});

describe('WorkflowEngines', () => {
  it('starts a Step Functions workflow on Step Functions, at the ARN derived before the start', async () => {
    const stepFunctions = new InMemoryExecutor();
    const engines = new WorkflowEngines({ stepFunctions });
    const workflow = stepFunctionsWorkflow(MACHINE);
    const expected = engines.executionArnFor(workflow, 'task-1');
    expect(expected).toBe(executionArnFor(workflow, 'task-1'));
    expect(await engines.start({ workflow, executionName: 'task-1', input: '{}' })).toEqual({ executionArn: expected });
    expect(stepFunctions.execution(expected).stateMachineArn).toBe(MACHINE);
  });

  it('sends every call on a Step Functions execution to Step Functions', async () => {
    const stepFunctions = new InMemoryExecutor();
    const { engine: durableFunctions, calls } = recordingEngine();
    const engines = new WorkflowEngines({ stepFunctions, durableFunctions });
    const { executionArn } = await engines.start({
      workflow: stepFunctionsWorkflow(MACHINE),
      executionName: 'task-2',
      input: '{}',
    });
    stepFunctions.enterStep(executionArn, 'Ask');
    const token = stepFunctions.waitForToken(executionArn);
    expect(await engines.currentStep(executionArn)).toBe('Ask');
    expect(await engines.resume(executionArn, token, '{"ok":true}')).toBe('delivered');
    await engines.stop(executionArn, { error: 'TaskCancelled', cause: 'test' });
    expect(await engines.describe(executionArn)).toMatchObject({ status: 'ABORTED', error: 'TaskCancelled' });
    expect(stepFunctions.calls).toMatchObject({ start: 1, describe: 1, currentStep: 1, stop: 1, resume: 1 });
    expect(calls).toEqual([]);
  });

  it('sends a durable workflow and every call on its execution to the durable engine', async () => {
    const stepFunctions = new InMemoryExecutor();
    const { engine: durableFunctions, calls } = recordingEngine();
    const engines = new WorkflowEngines({ stepFunctions, durableFunctions });
    await engines.start({ workflow: DURABLE, executionName: 'task-x', input: '{}' });
    await engines.describe(DURABLE_EXECUTION);
    await engines.currentStep(DURABLE_EXECUTION);
    await engines.resume(DURABLE_EXECUTION, 'callback-1', '{}');
    await engines.stop(DURABLE_EXECUTION, { error: 'TaskCancelled', cause: 'test' });
    expect(calls).toEqual([
      `start ${FUNCTION}`,
      `describe ${DURABLE_EXECUTION}`,
      `currentStep ${DURABLE_EXECUTION}`,
      `resume ${DURABLE_EXECUTION} callback-1`,
      `stop ${DURABLE_EXECUTION}`,
    ]);
    expect(stepFunctions.calls).toMatchObject({ start: 0, describe: 0, currentStep: 0, stop: 0, resume: 0 });
  });

  it('refuses to start a durable workflow for good when it has no durable engine', async () => {
    const stepFunctions = new InMemoryExecutor();
    const engines = new WorkflowEngines({ stepFunctions });
    const start = engines.start({ workflow: DURABLE, executionName: 'task-x', input: '{}' });
    await expect(start).rejects.toBeInstanceOf(ExecutionStartError);
    await expect(start).rejects.toMatchObject({ fault: 'configuration' });
    expect(stepFunctions.executions()).toEqual([]);
  });

  it('throws EngineNotConfiguredError for a durable execution when it has no durable engine', async () => {
    const engines = new WorkflowEngines({ stepFunctions: new InMemoryExecutor() });
    await expect(engines.describe(DURABLE_EXECUTION)).rejects.toBeInstanceOf(EngineNotConfiguredError);
    await expect(engines.stop(DURABLE_EXECUTION, { error: 'e', cause: 'c' })).rejects.toBeInstanceOf(
      EngineNotConfiguredError,
    );
  });
});
