// The current step of a running task, on in-memory parts: read on a refresh, stored once per change (on the status
// write when the status moves too), never a write while it stands still, never a failed poll when it cannot be read.
import { describe, expect, it, vi } from 'vitest';
import type { TaskExecutor } from '../../../lambda/executor/task-executor.js';
import type { TaskStore } from '../../../lambda/store/task-store.js';
import { bind } from '../../support/bind-methods.js';
import { analyze, inMemoryBackend, useFakeTime, type InMemoryBackend } from '../../support/in-memory-backend.js';

useFakeTime();

/** The store, counting the writes of a step alone. */
function countingStepWrites(b: InMemoryBackend): { store: TaskStore; writes: () => number } {
  let writes = 0;
  return {
    store: {
      ...bind<TaskStore>(b.store),
      recordCurrentStep: async (task, step) => (writes++, b.store.recordCurrentStep(task, step)),
    },
    writes: () => writes,
  };
}

/** One poll, due for a refresh. */
const poll = async (b: InMemoryBackend, store: TaskStore, taskId: string) => {
  await vi.advanceTimersByTimeAsync(b.settings.refreshIntervalMs);
  return b.service({ store }).getTask('stepper', taskId);
};

describe('the current step of a running task', () => {
  it('rides on the status write of the first refresh: one write for working and the step', async () => {
    const b = inMemoryBackend();
    const { store, writes } = countingStepWrites(b);
    const task = await b.service().createTask(analyze('stepper'));
    b.executor.enterStep(task.executionArn, 'AnalyzeDocuments');
    expect(await b.service({ store }).getTask('stepper', task.taskId)).toMatchObject({
      status: 'working',
      currentStep: 'AnalyzeDocuments',
    });
    expect((await b.store.get('stepper', task.taskId))?.currentStep).toBe('AnalyzeDocuments');
    expect(writes()).toBe(0);
  });

  it('is stored when a refresh finds it changed, and not written again while it stands still', async () => {
    const b = inMemoryBackend();
    const { store, writes } = countingStepWrites(b);
    const task = await b.service().createTask(analyze('stepper'));
    await poll(b, store, task.taskId);
    b.executor.enterStep(task.executionArn, 'RequestedReviewWindow');
    expect((await poll(b, store, task.taskId)).currentStep).toBe('RequestedReviewWindow');
    expect((await b.store.get('stepper', task.taskId))?.currentStep).toBe('RequestedReviewWindow');
    expect(writes()).toBe(1);
    b.executor.resetCalls();
    for (let index = 0; index < 3; index++)
      expect((await poll(b, store, task.taskId)).currentStep).toBe('RequestedReviewWindow');
    expect(b.executor.calls).toMatchObject({ describe: 3, currentStep: 3 });
    expect(writes()).toBe(1);
  });

  it('is read only while the execution runs, within the same refresh claim as the describe', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(analyze('stepper'));
    await Promise.all(Array.from({ length: 5 }, () => b.service().getTask('stepper', task.taskId)));
    expect(b.executor.calls).toMatchObject({ describe: 1, currentStep: 1 });
    b.executor.succeed(task.executionArn, {});
    await vi.advanceTimersByTimeAsync(b.settings.refreshIntervalMs);
    expect((await b.service().getTask('stepper', task.taskId)).status).toBe('completed');
    expect(b.executor.calls).toMatchObject({ describe: 2, currentStep: 1 });
  });

  it('never fails a poll: a history that cannot be read is logged and the status still moves on', async () => {
    const b = inMemoryBackend();
    const noHistory: TaskExecutor = {
      ...bind<TaskExecutor>(b.executor),
      currentStep: async () => Promise.reject(new Error('AccessDeniedException')),
    };
    const task = await b.service().createTask(analyze('no-history'));
    b.executor.enterStep(task.executionArn, 'AnalyzeDocuments');
    expect((await b.service({ executor: noHistory }).getTask('no-history', task.taskId)).status).toBe('working');
    expect(b.logger.warnings()).toContain('Could not read the current step');
    expect((await b.store.get('no-history', task.taskId))?.currentStep).toBeUndefined();
  });

  it('never fails a poll: a step that cannot be stored is logged and the poll answers without it', async () => {
    const b = inMemoryBackend();
    const failing: TaskStore = {
      ...bind<TaskStore>(b.store),
      recordCurrentStep: async () => Promise.reject(new Error('InternalServerError')),
    };
    const task = await b.service().createTask(analyze('stepper'));
    await b.service().getTask('stepper', task.taskId);
    b.executor.enterStep(task.executionArn, 'RequestedReviewWindow');
    const read = await poll(b, failing, task.taskId);
    expect(read).toMatchObject({ status: 'working' });
    expect(read.currentStep).toBeUndefined();
    expect(b.logger.warnings()).toContain('Could not record the current step');
    // The next refresh tries again.
    expect((await poll(b, b.store, task.taskId)).currentStep).toBe('RequestedReviewWindow');
  });
});
