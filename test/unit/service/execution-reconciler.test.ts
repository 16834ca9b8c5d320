// The reconciler on in-memory parts: it describes only the executions of active tasks whose check is due, each once
// across concurrent runs, at most the run's budget, and records what a lost status event would have told.
import { describe, expect, it, vi } from 'vitest';
import { FIRST_CHECK_AFTER_MS, MAX_CHECK_INTERVAL_MS } from '../../../lambda/core/task.js';
import type { TaskExecutor } from '../../../lambda/executor/task-executor.js';
import { bind } from '../../support/bind-methods.js';
import { analyze, inMemoryBackend, textStats, useFakeTime } from '../../support/in-memory-backend.js';

useFakeTime();

describe('the reconciler', () => {
  it('checks no task before its first check is due, and then records the end a lost status event would have told', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(textStats('lost-event'));
    b.executor.succeed(task.executionArn, { words: 3 });
    vi.advanceTimersByTime(FIRST_CHECK_AFTER_MS - 1);
    expect(await b.service().reconcileDue({ maxChecks: 10 })).toMatchObject({ due: 0, checked: 0 });
    expect(b.executor.calls.describe).toBe(0);
    vi.advanceTimersByTime(1);
    expect(await b.service().reconcileDue({ maxChecks: 10 })).toMatchObject({ due: 1, checked: 1 });
    expect(b.executor.calls.describe).toBe(1);
    const stored = await b.store.get('lost-event', task.taskId);
    expect(stored).toMatchObject({ status: 'completed', output: '{"words":3}' });
    expect(stored?.nextCheckAt).toBeUndefined();
    expect(await b.service().reconcileDue({ maxChecks: 10 })).toMatchObject({ due: 0 });
  });

  it('checks a running task again after half its age, from a minute to an hour, with its current step', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(analyze('long-runner'));
    b.executor.enterStep(task.executionArn, 'Review');
    const created = Date.now();
    vi.advanceTimersByTime(FIRST_CHECK_AFTER_MS);
    await b.service().reconcileDue({ maxChecks: 10 });
    expect(await b.store.get('long-runner', task.taskId)).toMatchObject({
      status: 'working',
      currentStep: 'Review',
      lastCheckedAt: Date.now(),
      nextCheckAt: Date.now() + FIRST_CHECK_AFTER_MS,
    });
    vi.setSystemTime(created + 10 * 60_000);
    await b.service().reconcileDue({ maxChecks: 10 });
    expect((await b.store.get('long-runner', task.taskId))?.nextCheckAt).toBe(Date.now() + 5 * 60_000);
    vi.setSystemTime(created + 5 * 60 * 60_000);
    await b.service().reconcileDue({ maxChecks: 10 });
    expect((await b.store.get('long-runner', task.taskId))?.nextCheckAt).toBe(Date.now() + MAX_CHECK_INTERVAL_MS);
    expect(b.executor.calls.describe).toBe(3);
    expect(b.executor.calls.currentStep).toBe(3);
  });

  it('spends at most its budget per run, most overdue first, and leaves the rest to the next run', async () => {
    const b = inMemoryBackend();
    const tasks = [];
    for (let index = 0; index < 5; index++) {
      tasks.push(await b.service().createTask(textStats(`owner-${index}`)));
      vi.advanceTimersByTime(1_000);
    }
    vi.advanceTimersByTime(FIRST_CHECK_AFTER_MS);
    expect(await b.service().reconcileDue({ maxChecks: 2 })).toMatchObject({ due: 2, checked: 2 });
    expect(b.executor.calls.describe).toBe(2);
    const checked = await Promise.all(tasks.map((task) => b.store.get(task.owner, task.taskId)));
    expect(checked.map((task) => task?.lastCheckedAt !== undefined)).toEqual([true, true, false, false, false]);
    expect(await b.service().reconcileDue({ maxChecks: 10 })).toMatchObject({ due: 3, checked: 3 });
  });

  it('checks each due task once when two runs (two instances) overlap', async () => {
    const b = inMemoryBackend();
    for (let index = 0; index < 4; index++) await b.service().createTask(textStats(`overlap-${index}`));
    vi.advanceTimersByTime(FIRST_CHECK_AFTER_MS);
    const [first, second] = await Promise.all([
      b.service().reconcileDue({ maxChecks: 10 }),
      b.service().reconcileDue({ maxChecks: 10 }),
    ]);
    expect(first.checked + second.checked).toBe(4);
    expect(first.skipped + second.skipped).toBe(4);
    expect(b.executor.calls.describe).toBe(4);
  });

  it('counts a check Step Functions refuses, logs it, and tries that task again at its next check', async () => {
    const b = inMemoryBackend();
    const throttled: TaskExecutor = {
      ...bind<TaskExecutor>(b.executor),
      describe: async () => Promise.reject(new Error('ThrottlingException')),
    };
    const task = await b.service().createTask(textStats('throttled'));
    b.executor.succeed(task.executionArn, { words: 1 });
    vi.advanceTimersByTime(FIRST_CHECK_AFTER_MS);
    expect(await b.service({ executor: throttled }).reconcileDue({ maxChecks: 10 })).toMatchObject({ failed: 1 });
    expect(b.logger.warnings()).toContain('Could not check the execution of a task');
    expect(await b.service().reconcileDue({ maxChecks: 10 })).toMatchObject({ due: 0 });
    vi.advanceTimersByTime(FIRST_CHECK_AFTER_MS);
    expect(await b.service().reconcileDue({ maxChecks: 10 })).toMatchObject({ checked: 1 });
    expect((await b.store.get('throttled', task.taskId))?.status).toBe('completed');
  });

  it('fails a task whose execution never started once the start grace has passed', async () => {
    const b = inMemoryBackend();
    const lostStart: TaskExecutor = {
      ...bind<TaskExecutor>(b.executor),
      start: async () => Promise.reject(new Error('socket hang up')),
    };
    const task = await b.service({ executor: lostStart }).createTask(textStats('never-started'));
    vi.advanceTimersByTime(FIRST_CHECK_AFTER_MS);
    await b.service().reconcileDue({ maxChecks: 10 });
    expect((await b.store.get('never-started', task.taskId))?.status).toBe('failed');
  });

  it('begins no check past its deadline: the due tasks wait for the next run', async () => {
    const b = inMemoryBackend();
    await b.service().createTask(textStats('late'));
    vi.advanceTimersByTime(FIRST_CHECK_AFTER_MS);
    expect(await b.service().reconcileDue({ maxChecks: 10, deadline: Date.now() })).toMatchObject({
      due: 1,
      deferred: 1,
      checked: 0,
    });
    expect(b.executor.calls.describe).toBe(0);
  });
});
