// What a durable tool's task costs in Lambda API calls, counted on the real executor over a Lambda client whose `send`
// plays a small Lambda: one Invoke to start; polls none at all (the status events keep the table current); a
// reconciler's check of a running task one GetDurableExecution and one history page, and none before the check is
// due; a reference resolved once per instance (ListDurableExecutionsByFunction) and never by a status event, which
// names the real ARN; one StopDurableExecution to cancel.
import { vi, describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../lambda/contract/tool-definition.js';
import { SYSTEM_CLOCK } from '../../../lambda/core/clock.js';
import { FIRST_CHECK_AFTER_MS, TaskOrigin } from '../../../lambda/core/task.js';
import { DurableFunctionExecutor } from '../../../lambda/executor/durable-function-executor.js';
import { InMemoryExecutor } from '../../../lambda/executor/in-memory-executor.js';
import { WorkflowEngines } from '../../../lambda/executor/workflow-engines.js';
import { DEFAULT_SETTINGS } from '../../../lambda/service/settings.js';
import { TaskService } from '../../../lambda/service/task-service.js';
import { InMemoryOwnerQuotas } from '../../../lambda/store/in-memory-owner-quotas.js';
import { InMemoryTaskStore } from '../../../lambda/store/in-memory-task-store.js';
import { ToolRegistry } from '../../../lambda/tools/tool-registry.js';
import { RecordingLogger, useFakeTime } from '../../support/in-memory-backend.js';
import { SmallLambda } from '../../support/small-lambda.js';

useFakeTime();

const FUNCTION = 'arn:aws:lambda:us-east-1:123456789012:function:durable-review';
const TOOL: ToolDefinition = {
  name: 'durable_review',
  description: 'Reviews documents.',
  inputSchema: { type: 'object', properties: { documents: { type: 'array' } } },
  durableFunctionArn: `${FUNCTION}:live`,
};
const TOOLS = new ToolRegistry([TOOL]);

/** One Lambda, one task table; each call is a new instance of the MCP function (its own executor and cache). */
function world() {
  const lambda = new SmallLambda();
  const store = new InMemoryTaskStore({ clock: SYSTEM_CLOCK });
  const quotas = new InMemoryOwnerQuotas({ tasks: store });
  const instance = () => {
    const executor = new WorkflowEngines({
      stepFunctions: new InMemoryExecutor(),
      durableFunctions: new DurableFunctionExecutor({ client: lambda.client() }),
    });
    return new TaskService({
      store,
      quotas,
      executor,
      syncExecutor: executor,
      tools: TOOLS,
      settings: DEFAULT_SETTINGS,
      logger: new RecordingLogger(),
      clock: SYSTEM_CLOCK,
    });
  };
  return { lambda, instance };
}

const call = (owner: string) => ({
  owner,
  toolName: TOOL.name,
  arguments: { documents: ['a'] },
  origin: TaskOrigin.Mcp20251125,
});

describe('the Lambda calls of a durable task', () => {
  it('start with one Invoke, poll with none, and check with one read and one history page, the ARN kept', async () => {
    const { lambda, instance } = world();
    const service = instance();
    const task = await service.createTask(call('alice'));
    expect(lambda.calls).toEqual({ Invoke: 1 });
    expect(await service.getTask('alice', task.taskId)).toMatchObject({ status: 'submitted' });
    expect(await service.getTask('alice', task.taskId)).toMatchObject({ status: 'submitted' });
    expect(await service.reconcileDue({ maxChecks: 10 })).toMatchObject({ due: 0 });
    expect(lambda.calls).toEqual({ Invoke: 1 });
    await vi.advanceTimersByTimeAsync(FIRST_CHECK_AFTER_MS);
    expect(await service.reconcileDue({ maxChecks: 10 })).toMatchObject({ due: 1, checked: 1 });
    expect(await service.getTask('alice', task.taskId)).toMatchObject({
      status: 'working',
      currentStep: 'Review window',
    });
    expect(lambda.calls).toEqual({ Invoke: 1, GetDurableExecution: 1, GetDurableExecutionHistory: 1 });
    lambda.succeed(task.executionArn, { content: [{ type: 'text', text: 'done' }] });
    await vi.advanceTimersByTimeAsync(FIRST_CHECK_AFTER_MS);
    expect(await service.reconcileDue({ maxChecks: 10 })).toMatchObject({ due: 1, checked: 1 });
    expect(await service.getTask('alice', task.taskId)).toMatchObject({ status: 'completed' });
    expect(lambda.calls).toEqual({ Invoke: 1, GetDurableExecution: 2, GetDurableExecutionHistory: 1 });
  });

  it('resolve the stored reference once on another instance, and never for a status event', async () => {
    const { lambda, instance } = world();
    const task = await instance().createTask(call('bob'));
    const reconciler = instance();
    await vi.advanceTimersByTimeAsync(FIRST_CHECK_AFTER_MS);
    await reconciler.reconcileDue({ maxChecks: 10 });
    await vi.advanceTimersByTimeAsync(FIRST_CHECK_AFTER_MS);
    await reconciler.reconcileDue({ maxChecks: 10 });
    expect(lambda.calls['ListDurableExecutionsByFunction']).toBe(1);
    expect(lambda.calls['GetDurableExecution']).toBe(2);
    const realArn = lambda.succeed(task.executionArn, { ok: true }).arn;
    const statusSync = instance();
    expect(await statusSync.recordExecutionEvent(task.executionArn, 'describe', realArn)).toMatchObject({
      status: 'completed',
    });
    expect(lambda.calls['ListDurableExecutionsByFunction']).toBe(1);
    expect(lambda.calls['GetDurableExecution']).toBe(3);
  });

  it('cancel with one StopDurableExecution', async () => {
    const { lambda, instance } = world();
    const service = instance();
    const task = await service.createTask(call('carol'));
    expect(await service.cancelTask('carol', task.taskId)).toMatchObject({ status: 'cancelled' });
    expect(lambda.calls['StopDurableExecution']).toBe(1);
    expect(lambda.calls['ListDurableExecutionsByFunction']).toBeUndefined();
  });
});
