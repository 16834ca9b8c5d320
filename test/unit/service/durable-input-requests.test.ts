// A durable tool's questions: the workflow records one with the ask step's logic (its execution reference from the
// Invoke payload, a waitForCallback's callback ID as the token), and the answer, from any instance, goes back with one
// SendDurableExecutionCallbackSuccess, as a Step Functions task's goes back with SendTaskSuccess.
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../lambda/contract/tool-definition.js';
import { SYSTEM_CLOCK } from '../../../lambda/core/clock.js';
import { TaskOrigin, type TaskRecord } from '../../../lambda/core/task.js';
import { DurableFunctionExecutor } from '../../../lambda/executor/durable-function-executor.js';
import { InMemoryExecutor } from '../../../lambda/executor/in-memory-executor.js';
import { WorkflowEngines } from '../../../lambda/executor/workflow-engines.js';
import { createAskStep } from '../../../lambda/input/input-request-recording.js';
import { InputService } from '../../../lambda/service/input-service.js';
import { DEFAULT_SETTINGS } from '../../../lambda/service/settings.js';
import { TaskService } from '../../../lambda/service/task-service.js';
import { InMemoryInputRequests } from '../../../lambda/store/in-memory-input-requests.js';
import { InMemoryOwnerQuotas } from '../../../lambda/store/in-memory-owner-quotas.js';
import { InMemoryTaskStore } from '../../../lambda/store/in-memory-task-store.js';
import { ToolRegistry } from '../../../lambda/tools/tool-registry.js';
import { approvalForm, RecordingLogger, useFakeTime } from '../../support/in-memory-backend.js';
import { SmallLambda } from '../../support/small-lambda.js';

useFakeTime();

const TOOL: ToolDefinition = {
  name: 'durable_review',
  description: 'Reviews documents and asks for approval.',
  inputSchema: { type: 'object', properties: { documents: { type: 'array' } } },
  durableFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:durable-review:live',
};
const TOOLS = new ToolRegistry([TOOL]);
const accept = { action: 'accept', content: { approve: true } };

/** One Lambda and one table; each `instance()` is another MCP function instance with its own executor. */
function world() {
  const lambda = new SmallLambda();
  const store = new InMemoryTaskStore({ clock: SYSTEM_CLOCK });
  const quotas = new InMemoryOwnerQuotas({ tasks: store });
  const inputs = new InMemoryInputRequests(store);
  const instance = () => {
    const executor = new WorkflowEngines({
      stepFunctions: new InMemoryExecutor(),
      durableFunctions: new DurableFunctionExecutor({ client: lambda.client() }),
    });
    const logger = new RecordingLogger();
    const service = new TaskService({
      store,
      quotas,
      executor,
      syncExecutor: executor,
      tools: TOOLS,
      settings: DEFAULT_SETTINGS,
      logger,
      clock: SYSTEM_CLOCK,
    });
    return { service, answers: new InputService({ service, inputs, executor, logger, clock: SYSTEM_CLOCK }) };
  };
  return { lambda, store, inputs, instance };
}

/** What the workflow's ask does: open a callback and record the question on the task with its ID. */
async function asked(w: ReturnType<typeof world>, task: TaskRecord, key: string): Promise<string> {
  const callbackId = w.lambda.openCallback();
  await createAskStep({ inputs: w.inputs })({
    taskToken: callbackId,
    executionArn: task.executionArn,
    request: approvalForm(),
    key,
  });
  return callbackId;
}

describe("a durable tool's input requests", () => {
  it('put the task in input_required, and an answer from another instance completes the callback once', async () => {
    const w = world();
    const task = await w.instance().service.createTask({
      owner: 'alice',
      toolName: TOOL.name,
      arguments: { documents: ['a'] },
      origin: TaskOrigin.Mcp20251125,
    });
    const callbackId = await asked(w, task, 'approve');
    expect(await w.store.get('alice', task.taskId)).toMatchObject({ status: 'input_required' });
    await w.instance().answers.answer('alice', task.taskId, { approve: accept });
    expect(w.lambda.callbacks.get(callbackId)).toBe(JSON.stringify(accept));
    expect(w.lambda.calls['SendDurableExecutionCallbackSuccess']).toBe(1);
    expect(await w.store.get('alice', task.taskId)).toMatchObject({
      status: 'working',
      inputRequests: { approve: { state: 'answered' } },
    });
    await w.instance().answers.answer('alice', task.taskId, { approve: accept });
    expect(w.lambda.calls['SendDurableExecutionCallbackSuccess']).toBe(1);
  });

  it('record an answer to a callback Lambda has closed as expired, without an error', async () => {
    const w = world();
    const task = await w.instance().service.createTask({
      owner: 'bob',
      toolName: TOOL.name,
      arguments: { documents: ['a'] },
      origin: TaskOrigin.Mcp20251125,
    });
    w.lambda.closeCallback(await asked(w, task, 'approve'));
    await w.instance().answers.answer('bob', task.taskId, { approve: accept });
    expect((await w.store.get('bob', task.taskId))?.inputRequests?.['approve']?.state).toBe('expired');
  });
});
