// A task of a tool run by a Lambda durable function, through the same task service as a state machine's: its
// execution named within a durable execution's limits and stored by its reference before the start, its status
// events (which name the real execution ARN) finding it, and its end mapped to the task as a Step Functions one is.
import { describe, expect, it } from 'vitest';
import { WorkflowEngine } from '../../../lambda/contract/workflow-engine.js';
import type { ToolDefinition } from '../../../lambda/contract/tool-definition.js';
import { TaskOrigin } from '../../../lambda/core/task.js';
import { taskKey, taskKeyFromExecutionName, executionNameOf } from '../../../lambda/core/task-key.js';
import { InMemoryExecutor } from '../../../lambda/executor/in-memory-executor.js';
import type { StartRequest, TaskExecutor } from '../../../lambda/executor/task-executor.js';
import { SYSTEM_CLOCK } from '../../../lambda/core/clock.js';
import { DEFAULT_SETTINGS } from '../../../lambda/service/settings.js';
import { TaskService } from '../../../lambda/service/task-service.js';
import { InMemoryOwnerQuotas } from '../../../lambda/store/in-memory-owner-quotas.js';
import { InMemoryTaskStore } from '../../../lambda/store/in-memory-task-store.js';
import { ToolRegistry } from '../../../lambda/tools/tool-registry.js';
import { bind } from '../../support/bind-methods.js';
import { RecordingLogger, TEST_TOOLS, useFakeTime } from '../../support/in-memory-backend.js';

useFakeTime();

const FUNCTION = 'arn:aws:lambda:us-east-1:123456789012:function:durable-review';
const DURABLE_REVIEW: ToolDefinition = {
  name: 'durable_review',
  description: 'Reviews documents in steps, waits, and asks for approval.',
  inputSchema: {
    type: 'object',
    properties: { documents: { type: 'array', items: { type: 'string' }, minItems: 1 } },
    required: ['documents'],
  },
  durableFunctionArn: `${FUNCTION}:live`,
};

/** A task service whose registry holds the durable tool beside the state machine tools. */
function backend() {
  const store = new InMemoryTaskStore({ clock: SYSTEM_CLOCK });
  const executor = new InMemoryExecutor();
  const starts: StartRequest[] = [];
  const recording: TaskExecutor = {
    ...bind<TaskExecutor>(executor),
    start: (request) => (starts.push(request), executor.start(request)),
  };
  const service = new TaskService({
    store,
    quotas: new InMemoryOwnerQuotas({ tasks: store }),
    executor: recording,
    syncExecutor: executor,
    tools: new ToolRegistry([...TEST_TOOLS, DURABLE_REVIEW]),
    settings: DEFAULT_SETTINGS,
    logger: new RecordingLogger(),
    clock: SYSTEM_CLOCK,
  });
  return { service, executor, engine: recording, starts };
}

const review = (owner: string) => ({
  owner,
  toolName: 'durable_review',
  arguments: { documents: ['a b', 'c'] },
  origin: TaskOrigin.Mcp20251125,
});

describe('a durable tool task', () => {
  it('starts its function on the durable engine, named within 64 characters, stored by its reference', async () => {
    const { service, starts } = backend();
    const task = await service.createTask(review('alice'));
    expect(starts).toHaveLength(1);
    const [start] = starts;
    expect(start!.workflow).toEqual({ engine: WorkflowEngine.DurableFunctions, arn: `${FUNCTION}:live` });
    expect(start!.executionName).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(JSON.parse(start!.input)).toEqual({ documents: ['a b', 'c'] });
    expect(task.executionArn).toBe(`${FUNCTION}/durable-execution/${start!.executionName}`);
    expect(taskKeyFromExecutionName(executionNameOf(task.executionArn))).toBe(taskKey('alice', task.taskId));
  });

  it('keeps a state machine tool on Step Functions with its name as before', async () => {
    const { service, starts } = backend();
    const task = await service.createTask({
      owner: 'bob',
      toolName: 'text_stats',
      arguments: { text: 'a' },
      origin: TaskOrigin.Mcp20251125,
    });
    expect(starts[0]!.workflow.engine).toBe(WorkflowEngine.StepFunctions);
    expect(starts[0]!.executionName).toMatch(new RegExp(`^task-${taskKey('bob', task.taskId)}-[0-9a-f]{10}$`));
    expect(task.executionArn).toMatch(/^arn:aws:states:.*:execution:text-stats:task-[0-9a-f]{64}-[0-9a-f]{10}$/);
  });

  it('completes from a status event naming the real execution ARN, with the result described by it', async () => {
    const { service, executor, engine } = backend();
    const task = await service.createTask(review('carol'));
    const realArn = `${FUNCTION}:3/durable-execution/${executionNameOf(task.executionArn)}/0b7e3c4d`;
    executor.succeed(task.executionArn, { content: [{ type: 'text', text: 'Reviewed 2 documents.' }] });
    const described: string[] = [];
    // Lambda describes the real ARN; the in-memory executor knows the execution by the reference.
    engine.describe = async (arn) => (
      described.push(arn),
      executor.describe(arn === realArn ? task.executionArn : arn)
    );
    const done = await service.recordExecutionEvent(task.executionArn, 'describe', realArn);
    expect(done).toMatchObject({ status: 'completed' });
    expect(described).toEqual([realArn]);
    expect(await service.resultOf(done!)).toEqual({ content: [{ type: 'text', text: 'Reviewed 2 documents.' }] });
  });

  it('is cancelled when its execution is stopped, and fails with the error of a failed one', async () => {
    const { service, executor } = backend();
    const stopped = await service.createTask(review('dave'));
    const failed = await service.createTask(review('erin'));
    await executor.stop(stopped.executionArn, { error: 'TaskCancelled', cause: 'by hand' });
    executor.fail(failed.executionArn, 'DocumentRejectedError', 'Document 2 is rejected.');
    // The status events of both ends (a poll reads only the table).
    await service.recordExecutionEvent(stopped.executionArn, 'describe');
    await service.recordExecutionEvent(failed.executionArn, 'describe');
    expect(await service.getTask('dave', stopped.taskId)).toMatchObject({ status: 'cancelled' });
    expect(await service.getTask('erin', failed.taskId)).toMatchObject({
      status: 'failed',
      statusMessage: 'Execution failed: DocumentRejectedError: Document 2 is rejected.',
    });
  });
});
