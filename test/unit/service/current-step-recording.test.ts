// The current step of a running task, on in-memory parts: read by the reconciler's check of the execution (a poll
// reads only the table), stored once per change (on the status write when the status moves too), never a write while
// it stands still, and never a failed check when it cannot be read or stored.
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

/** The reconciler's next check of the task, when it comes due; then the task as stored. */
const check = async (
  b: InMemoryBackend,
  taskId: string,
  parts: { store?: TaskStore; executor?: TaskExecutor } = {},
) => {
  const due = (await b.store.get('stepper', taskId))!.nextCheckAt!;
  vi.setSystemTime(Math.max(due, Date.now()));
  await b.service(parts).reconcileDue({ maxChecks: 10 });
  return (await b.store.get('stepper', taskId))!;
};

describe('the current step of a running task', () => {
  it('rides on the status write of the first check: one write for working and the step', async () => {
    const b = inMemoryBackend();
    const { store, writes } = countingStepWrites(b);
    const task = await b.service().createTask(analyze('stepper'));
    b.executor.enterStep(task.executionArn, 'AnalyzeDocuments');
    expect(await check(b, task.taskId, { store })).toMatchObject({
      status: 'working',
      currentStep: 'AnalyzeDocuments',
    });
    expect((await b.service().getTask('stepper', task.taskId)).currentStep).toBe('AnalyzeDocuments');
    expect(writes()).toBe(0);
  });

  it('is stored when a check finds it changed, and not written again while it stands still', async () => {
    const b = inMemoryBackend();
    const { store, writes } = countingStepWrites(b);
    const task = await b.service().createTask(analyze('stepper'));
    await check(b, task.taskId, { store });
    b.executor.enterStep(task.executionArn, 'RequestedReviewWindow');
    expect((await check(b, task.taskId, { store })).currentStep).toBe('RequestedReviewWindow');
    expect(writes()).toBe(1);
    b.executor.resetCalls();
    for (let index = 0; index < 3; index++)
      expect((await check(b, task.taskId, { store })).currentStep).toBe('RequestedReviewWindow');
    expect(b.executor.calls).toMatchObject({ describe: 3, currentStep: 3 });
    expect(writes()).toBe(1);
  });

  it('is read only while the execution runs', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(analyze('stepper'));
    await check(b, task.taskId);
    expect(b.executor.calls).toMatchObject({ describe: 1, currentStep: 1 });
    b.executor.succeed(task.executionArn, {});
    expect((await check(b, task.taskId)).status).toBe('completed');
    expect(b.executor.calls).toMatchObject({ describe: 2, currentStep: 1 });
  });

  it('never fails a check: a history that cannot be read is logged and the status still moves on', async () => {
    const b = inMemoryBackend();
    const noHistory: TaskExecutor = {
      ...bind<TaskExecutor>(b.executor),
      currentStep: async () => Promise.reject(new Error('AccessDeniedException')),
    };
    const task = await b.service().createTask(analyze('stepper'));
    b.executor.enterStep(task.executionArn, 'AnalyzeDocuments');
    const checked = await check(b, task.taskId, { executor: noHistory });
    expect(checked.status).toBe('working');
    expect(checked.currentStep).toBeUndefined();
    expect(b.logger.warnings()).toContain('Could not read the current step');
  });

  it('never fails a check: a step that cannot be stored is logged, and the next check stores it', async () => {
    const b = inMemoryBackend();
    const failing: TaskStore = {
      ...bind<TaskStore>(b.store),
      recordCurrentStep: async () => Promise.reject(new Error('InternalServerError')),
    };
    const task = await b.service().createTask(analyze('stepper'));
    await check(b, task.taskId);
    b.executor.enterStep(task.executionArn, 'RequestedReviewWindow');
    const read = await check(b, task.taskId, { store: failing });
    expect(read).toMatchObject({ status: 'working' });
    expect(read.currentStep).toBeUndefined();
    expect(b.logger.warnings()).toContain('Could not record the current step');
    expect((await check(b, task.taskId)).currentStep).toBe('RequestedReviewWindow');
  });
});
