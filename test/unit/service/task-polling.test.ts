// Reading a task on in-memory parts: a poll and a wait read only the table, where the status events record what the
// execution did (b.statusEvent stands for EventBridge and the status-sync function), and a waiting caller backs off.
import { describe, expect, it, vi } from 'vitest';
import { TaskExpiredError, TaskNotFoundError } from '../../../lambda/core/errors.js';
import { MIN_POLL_HINT_MS, type TaskRecord } from '../../../lambda/core/task.js';
import type { TaskExecutor } from '../../../lambda/executor/task-executor.js';
import { bind } from '../../support/bind-methods.js';
import {
  analyze,
  executionOf,
  inMemoryBackend,
  settle,
  textStats,
  useFakeTime,
} from '../../support/in-memory-backend.js';

useFakeTime();

describe('polling a task', () => {
  it('shows what the status events recorded: submitted, then working, calling no Step Functions API', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(analyze('seen-running'));
    expect((await b.service().getTask('seen-running', task.taskId)).status).toBe('submitted');
    expect(b.executor.calls).toMatchObject({ describe: 0, currentStep: 0 });
    await b.statusEvent(task);
    expect((await b.service().getTask('seen-running', task.taskId)).status).toBe('working');
    expect((await b.store.get('seen-running', task.taskId))?.status).toBe('working');
  });

  it('completes the task with the execution output, and the result is the tool result', async () => {
    const b = inMemoryBackend();
    const tasks = b.service();
    const task = await tasks.createTask(textStats('finisher'));
    b.executor.succeed(task.executionArn, { words: 3 });
    await b.statusEvent(task);
    const done = await tasks.getTask('finisher', task.taskId);
    expect(done).toMatchObject({ status: 'completed', completedAt: Date.now() });
    expect(await tasks.resultOf(done)).toMatchObject({ structuredContent: { words: 3 } });
  });

  it('fails the task with the error and cause of a failed execution, and says so in the result', async () => {
    const b = inMemoryBackend();
    const tasks = b.service();
    const task = await tasks.createTask(textStats('failer'));
    b.executor.fail(task.executionArn, 'UpstreamUnavailable', 'The report service is down.');
    await b.statusEvent(task);
    const failed = await tasks.getTask('failer', task.taskId);
    expect(failed).toMatchObject({
      status: 'failed',
      statusMessage: 'Execution failed: UpstreamUnavailable: The report service is down.',
    });
    expect(await tasks.resultOf(failed)).toMatchObject({ isError: true });
  });

  it('calls no Step Functions API however many instances poll, for however long the task runs', async () => {
    const b = inMemoryBackend();
    // Separate service objects stand for separate Lambda instances sharing the store.
    const instances = Array.from({ length: 10 }, () => b.service());
    const task = await instances[0]!.createTask(analyze('counted'));
    await b.statusEvent(task);
    b.executor.resetCalls();
    for (let minute = 0; minute < 60; minute++) {
      await Promise.all(instances.map((instance) => instance.getTask('counted', task.taskId)));
      await vi.advanceTimersByTimeAsync(60_000);
    }
    expect(b.executor.calls).toMatchObject({ describe: 0, currentStep: 0 });
  });

  it('never describes the execution of a terminal task again', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(textStats('settled'));
    b.executor.succeed(task.executionArn, { words: 3 });
    await b.statusEvent(task);
    b.executor.resetCalls();
    await vi.advanceTimersByTimeAsync(60 * 60_000);
    expect((await b.service().getTask('settled', task.taskId)).status).toBe('completed');
    expect(await b.service().reconcileDue({ maxChecks: 10 })).toMatchObject({ due: 0 });
    expect(b.executor.calls).toMatchObject({ describe: 0, currentStep: 0 });
  });

  it('hints a longer poll interval as the task ages, in the poll and in the listing, without storing it', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(analyze('patient'));
    expect(task.pollIntervalMs).toBe(MIN_POLL_HINT_MS);
    expect((await b.service().getTask('patient', task.taskId)).pollIntervalMs).toBe(MIN_POLL_HINT_MS);
    await vi.advanceTimersByTimeAsync(30_000);
    expect((await b.service().getTask('patient', task.taskId)).pollIntervalMs).toBe(b.settings.pollIntervalMs);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect((await b.service().getTask('patient', task.taskId)).pollIntervalMs).toBe(30_000);
    expect((await b.service().listTasks('patient')).tasks[0]?.pollIntervalMs).toBe(30_000);
    expect((await b.store.get('patient', task.taskId))?.pollIntervalMs).toBe(b.settings.pollIntervalMs);
  });

  it('throws TaskNotFoundError for a task of another owner, and for one that never was', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(analyze('owner-a'));
    await expect(b.service().getTask('owner-b', task.taskId)).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(b.service().getTask('owner-a', 'no-such-task')).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('stops the execution of a task found expired while active, frees its slot, and reports it expired', async () => {
    const b = inMemoryBackend({ settings: { maxActiveTasksPerOwner: 1 } });
    const task = await b.service().createTask(analyze('forgetful', { requestedRetentionMs: 5_000 }));
    await vi.advanceTimersByTimeAsync(5_000);
    await expect(b.service().getTask('forgetful', task.taskId)).rejects.toBeInstanceOf(TaskExpiredError);
    expect(executionOf(b, task)).toMatchObject({ status: 'ABORTED', error: 'TaskExpired' });
    await expect(b.service().createTask(analyze('forgetful'))).resolves.toMatchObject({ status: 'submitted' });
  });
});

describe('waiting for a task', () => {
  it('returns a fast tool result at once when its status event has landed', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(textStats('quick'));
    b.executor.succeed(task.executionArn, { words: 3 });
    await b.statusEvent(task);
    const done = await b.service().waitForTerminal('quick', task.taskId, { timeoutMs: 60_000 });
    expect(done.status).toBe('completed');
    expect(b.executor.calls.describe).toBe(1);
  });

  it('sees the status event within moments at first, then within a poll interval, reading only the table', async () => {
    const b = inMemoryBackend({ settings: { pollIntervalMs: 2_000 } });
    const task = await b.service().createTask(analyze('patient'));
    const waiting = b.service().waitForTerminal('patient', task.taskId, { timeoutMs: 600_000 });
    await vi.advanceTimersByTimeAsync(300);
    b.executor.succeed(task.executionArn, { done: true });
    await b.statusEvent(task);
    // Fake time: the wait ends within one of its early pauses (settle fails if it is still pending then).
    expect(await settle(waiting, 300, 10)).toMatchObject({ status: 'completed' });

    const slow = await b.service().createTask(analyze('patient'));
    const waitingLong = b.service().waitForTerminal('patient', slow.taskId, { timeoutMs: 600_000 });
    await vi.advanceTimersByTimeAsync(25_000);
    b.executor.resetCalls();
    b.executor.succeed(slow.executionArn, { done: true });
    await b.statusEvent(slow);
    // Backed off by now: within one poll interval.
    expect(await settle(waitingLong, 2_000, 10)).toMatchObject({ status: 'completed' });
    // The one describe is the status event's; the wait itself called nothing.
    expect(b.executor.calls.describe).toBe(1);
  });

  it('returns the task as last seen when the wait bound passes first', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(analyze('bounded'));
    await b.statusEvent(task);
    const started = Date.now();
    const seen = await settle(b.service().waitForTerminal('bounded', task.taskId, { timeoutMs: 10_000 }), 20_000, 10);
    expect(seen.status).toBe('working');
    // Fake time: exactly what the wait took, whatever the machine's load.
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(10_000);
    expect(waited).toBeLessThan(10_100);
  });

  it('ends at once when the signal aborts', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(analyze('abandoned'));
    await b.statusEvent(task);
    const gone = new AbortController();
    const waiting = b.service().waitForTerminal('abandoned', task.taskId, { timeoutMs: 600_000, signal: gone.signal });
    await vi.advanceTimersByTimeAsync(3_000);
    gone.abort();
    expect((await settle(waiting, 100, 1)).status).toBe('working');
  });

  it('passes on each read, and each read that brings new progress or a new step once', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(analyze('watched'));
    const progress: (string | undefined)[] = [];
    let reads = 0;
    const waiting = b.service().waitForTerminal('watched', task.taskId, {
      timeoutMs: 600_000,
      onProgress: (read: TaskRecord) => void progress.push(read.currentStep),
      onRead: () => void reads++,
    });
    // Each look at the running execution (here the status events'; in AWS the reconciler's) brings its step.
    b.executor.enterStep(task.executionArn, 'Analyze');
    await b.statusEvent(task);
    await vi.advanceTimersByTimeAsync(10_000);
    b.executor.enterStep(task.executionArn, 'RequestedReviewWindow');
    await b.statusEvent(task);
    await vi.advanceTimersByTimeAsync(10_000);
    b.executor.succeed(task.executionArn, {});
    await b.statusEvent(task);
    await settle(waiting);
    expect(progress).toEqual(['Analyze', 'RequestedReviewWindow']);
    expect(reads).toBeGreaterThan(progress.length);
  });
});

describe('execution status events', () => {
  it('record what the event reports, once: a late or repeated event changes nothing', async () => {
    const b = inMemoryBackend();
    const tasks = b.service();
    const task = await tasks.createTask(textStats('evented'));
    const done = await tasks.recordExecutionEvent(task.executionArn, { status: 'SUCCEEDED', output: '{"words":3}' });
    expect(done).toMatchObject({ status: 'completed', output: '{"words":3}' });
    expect(b.executor.calls.describe).toBe(0);
    expect(await tasks.recordExecutionEvent(task.executionArn, { status: 'RUNNING' })).toMatchObject({
      status: 'completed',
    });
    expect(await tasks.recordExecutionEvent(task.executionArn, { status: 'FAILED' })).toMatchObject({
      status: 'completed',
    });
    expect(b.logger.audits().filter((record) => record.event === 'task.completed')).toHaveLength(1);
  });

  it('describe the execution when the event left its output out', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(textStats('described'));
    b.executor.succeed(task.executionArn, { words: 3 });
    expect(await b.service().recordExecutionEvent(task.executionArn, 'describe')).toMatchObject({
      status: 'completed',
      output: '{"words":3}',
    });
  });

  it('describe by the ARN the event names when the task holds another name of the same execution', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(textStats('durable-like'));
    b.executor.succeed(task.executionArn, { words: 4 });
    const described: string[] = [];
    // A durable execution's task holds a reference; its event names the real ARN, which alone Lambda describes.
    const realArn = `${task.executionArn}/real`;
    const executor: TaskExecutor = {
      ...bind<TaskExecutor>(b.executor),
      describe: async (arn) => (described.push(arn), b.executor.describe(task.executionArn)),
    };
    const done = await b.service({ executor }).recordExecutionEvent(task.executionArn, 'describe', realArn);
    expect(done).toMatchObject({ status: 'completed', output: '{"words":4}' });
    expect(described).toEqual([realArn]);
  });

  it('are ignored for executions no live task of this backend owns', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(textStats('foreign'));
    const other = `${task.executionArn.slice(0, -10)}0000000000`;
    expect(await b.service().recordExecutionEvent(other, { status: 'SUCCEEDED' })).toBeNull();
    expect(await b.service().recordExecutionEvent('arn:aws:states:::execution:m:x', { status: 'FAILED' })).toBeNull();
    await b.service().deleteTask('foreign', task.taskId);
    expect(await b.service().recordExecutionEvent(task.executionArn, { status: 'SUCCEEDED' })).toBeNull();
  });
});
