// Ending a task on the client's word, on in-memory parts: cancel (by task ID or by the creating request's ID), delete,
// and the listing that shows what is left. A stop that fails is task-cancellation-faults.test.ts's.
import { describe, expect, it, vi } from 'vitest';
import { IllegalTransitionError, TaskNotFoundError } from '../../../lambda/core/errors.js';
import { TaskOrigin } from '../../../lambda/core/task.js';
import type { TaskExecutor } from '../../../lambda/executor/task-executor.js';
import { bind } from '../../support/bind-methods.js';
import {
  analyze,
  executionOf,
  inMemoryBackend,
  textStats,
  useFakeTime,
  type InMemoryBackend,
} from '../../support/in-memory-backend.js';

useFakeTime();

/**
 * The executor whose describe lags: it shows the execution running until a stop is asked for, as a task whose stored
 * status is behind its execution (an answer resumed it and it finished since the last read).
 */
function laggingUntilStop(b: InMemoryBackend): TaskExecutor {
  let stopped = false;
  return {
    ...bind<TaskExecutor>(b.executor),
    describe: async (arn) => (stopped ? b.executor.describe(arn) : { status: 'RUNNING' }),
    stop: async (arn, reason) => ((stopped = true), b.executor.stop(arn, reason)),
  };
}

describe('cancelling a task', () => {
  it('stops the execution and records cancelled before answering', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(analyze('canceller'));
    const cancelled = await b.service().cancelTask('canceller', task.taskId, 'Not needed any more.');
    expect(cancelled).toMatchObject({ status: 'cancelled', statusMessage: 'Not needed any more.' });
    expect(executionOf(b, task)).toMatchObject({
      status: 'ABORTED',
      error: 'TaskCancelled',
      cause: 'Not needed any more.',
    });
    expect((await b.store.get('canceller', task.taskId))?.status).toBe('cancelled');
  });

  it('refuses to cancel a terminal task, and the task stays as it was', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(analyze('late-cancel'));
    await b.store.update(task, { status: 'completed', at: Date.now() });
    await expect(b.service().cancelTask('late-cancel', task.taskId)).rejects.toBeInstanceOf(IllegalTransitionError);
    expect((await b.store.get('late-cancel', task.taskId))?.status).toBe('completed');
  });

  it('throws TaskNotFoundError for a task that is not the caller’s', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(analyze('owner-a'));
    await expect(b.service().cancelTask('owner-b', task.taskId)).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(executionOf(b, task).status).toBe('RUNNING');
  });

  it('a completion that arrives after the cancellation does not undo it', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(analyze('race'));
    await b.service().cancelTask('race', task.taskId);
    await expect(b.store.update(task, { status: 'completed', at: Date.now() })).rejects.toBeInstanceOf(
      IllegalTransitionError,
    );
    await b.service().recordExecutionEvent(task.executionArn, { status: 'SUCCEEDED', output: '{}' });
    expect((await b.service().getTask('race', task.taskId)).status).toBe('cancelled');
  });

  it('records the outcome of an execution that ended on its own before the stop, and refuses the cancel', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(textStats('too-late'));
    b.executor.succeed(task.executionArn, { words: 3 });
    const cancel = b.service({ executor: laggingUntilStop(b) }).cancelTask('too-late', task.taskId);
    await expect(cancel).rejects.toMatchObject({ name: 'IllegalTransitionError', from: 'completed' });
    expect(await b.store.get('too-late', task.taskId)).toMatchObject({ status: 'completed', output: '{"words":3}' });
  });

  it('answers with the cancelled task when a poll recorded the stop first, auditing it once', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(analyze('overtaken'));
    // Another instance polls between the stop and the cancel's own write, and sees the execution aborted.
    const pollingAfterStop: TaskExecutor = {
      ...bind<TaskExecutor>(b.executor),
      stop: async (arn, reason) => {
        await b.executor.stop(arn, reason);
        await b.service().getTask('overtaken', task.taskId);
      },
    };
    const cancelled = await b.service({ executor: pollingAfterStop }).cancelTask('overtaken', task.taskId);
    expect(cancelled.status).toBe('cancelled');
    expect(b.logger.audits().filter((record) => record.event === 'task.cancelled')).toHaveLength(1);
  });
});

describe('cancelling by the creating request (SEP-1686 notifications/cancelled)', () => {
  const byRequest = (owner: string, taskId: string, requestId: string) =>
    analyze(owner, { origin: TaskOrigin.Sep1686, taskId, requestId });

  it('cancels the task the owner created with that request ID', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(byRequest('requester', 'by-request', '7'));
    expect(await b.service().cancelByRequest('requester', '7', 'The client cancelled the request.')).toMatchObject({
      taskId: 'by-request',
      status: 'cancelled',
      statusMessage: 'The client cancelled the request.',
    });
    expect(executionOf(b, task).status).toBe('ABORTED');
  });

  it('changes nothing for an unknown request, another owner’s request, or a terminal task', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(byRequest('requester', 'by-request', '"7"'));
    expect(await b.service().cancelByRequest('requester', '7', 'why')).toBeNull();
    expect(await b.service().cancelByRequest('someone-else', '"7"', 'why')).toBeNull();
    expect(executionOf(b, task).status).toBe('RUNNING');
    b.executor.succeed(task.executionArn, {});
    await b.service().getTask('requester', 'by-request');
    expect(await b.service().cancelByRequest('requester', '"7"', 'why')).toBeNull();
    expect((await b.store.get('requester', 'by-request'))?.status).toBe('completed');
  });

  it('answers null when the execution ended on its own before the stop', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(byRequest('requester', 'ended', '8'));
    b.executor.succeed(task.executionArn, {});
    expect(await b.service({ executor: laggingUntilStop(b) }).cancelByRequest('requester', '8', 'why')).toBeNull();
    expect((await b.store.get('requester', 'ended'))?.status).toBe('completed');
  });
});

describe('deleting a task', () => {
  it('stops an active task’s execution, then removes the task and its result', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(analyze('deleter'));
    await b.service().deleteTask('deleter', task.taskId);
    expect(executionOf(b, task)).toMatchObject({ status: 'ABORTED', error: 'TaskDeleted' });
    expect(await b.store.get('deleter', task.taskId)).toBeNull();
    await expect(b.service().getTask('deleter', task.taskId)).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('removes a terminal task without a stop', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(textStats('tidy'));
    b.executor.succeed(task.executionArn, { words: 3 });
    await b.statusEvent(task);
    await b.service().deleteTask('tidy', task.taskId);
    expect(b.executor.calls.stop).toBe(0);
    expect(await b.store.get('tidy', task.taskId)).toBeNull();
  });

  it('throws TaskNotFoundError for an unknown task or another owner’s, stopping nothing', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(analyze('owner-a'));
    await expect(b.service().deleteTask('owner-b', task.taskId)).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(b.service().deleteTask('owner-a', 'no-such-task')).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(executionOf(b, task).status).toBe('RUNNING');
  });
});

describe('listing tasks', () => {
  it("pages through exactly the owner's tasks, newest first, in pages of the configured size", async () => {
    const b = inMemoryBackend({ settings: { listPageSize: 2 } });
    const created = [];
    for (let index = 0; index < 3; index++) {
      created.push(await b.service().createTask(analyze('lister')));
      await b.service().createTask(analyze('someone-else'));
      await vi.advanceTimersByTimeAsync(1_000);
    }
    const first = await b.service().listTasks('lister');
    expect(first.tasks.map((task) => task.taskId)).toEqual([created[2]!.taskId, created[1]!.taskId]);
    const second = await b.service().listTasks('lister', first.nextCursor);
    expect(second.tasks.map((task) => task.taskId)).toEqual([created[0]!.taskId]);
  });
});
