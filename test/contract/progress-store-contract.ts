// The ProgressStore contract (lambda/store/progress-store.ts) as one suite, run on every implementation: DynamoDB
// Local (test/integration/dynamodb-task-store.test.ts, as progress lives on the task item) and in memory
// (test/unit/store/in-memory-stores.test.ts). Progress shows on the task, so the suite reads it back through the task
// store. The progress step's own checks (payload, unreachable table) are in test/integration/progress-step.test.ts.
import { beforeEach, describe, expect, it } from 'vitest';
import type { TaskRecord } from '../../lambda/core/task.js';
import { taskKey } from '../../lambda/core/task-key.js';
import { statusMessageOf } from '../../lambda/core/task-progress.js';
import { TaskStatus } from '../../lambda/core/task-status.js';
import type { ProgressReport, ProgressStore } from '../../lambda/store/progress-store.js';
import type { TaskStore } from '../../lambda/store/task-store.js';
import { newTask, type MakeFixture, type ManualClock } from './task-fixtures.js';

/** The progress store, and the task store whose tasks carry the progress. */
export interface ProgressStoreFixture {
  readonly progress: ProgressStore;
  readonly tasks: TaskStore;
  readonly clock: ManualClock;
}

export function progressStoreContract(name: string, make: MakeFixture<ProgressStoreFixture>): void {
  describe(`${name} (ProgressStore contract)`, () => {
    let fixture: ProgressStoreFixture;
    beforeEach(async () => {
      fixture = await make();
    });
    const now = () => fixture.clock.now();

    async function storedTask(): Promise<TaskRecord & { key: string }> {
      const task = newTask(fixture.clock);
      await fixture.tasks.create(task);
      return { ...task, key: taskKey(task.owner, task.taskId) };
    }
    const report = (task: TaskRecord & { key: string }, fields: Omit<ProgressReport, 'at'>) =>
      fixture.progress.record(task.key, task.executionArn, { at: now(), ...fields });
    const reread = async (task: TaskRecord) => (await fixture.tasks.get(task.owner, task.taskId))!;

    it('records a message, count and total that a read shows as the status message, and returns them', async () => {
      const task = await storedTask();
      fixture.clock.advance(1_000);
      const message = 'Analysed {progress} of {total} documents';
      const recorded = await report(task, { message, progress: 3, total: 5, deadline: now() + 30_000 });
      const expected = { message, progress: 3, total: 5, deadline: now() + 30_000, at: now() };
      expect(recorded).toEqual(expected);
      const stored = await reread(task);
      expect(stored.progress).toEqual(expected);
      expect(statusMessageOf(stored, now())).toBe('Analysed 3 of 5 documents');
      expect(stored.lastUpdatedAt).toBe(now());
    });

    it('adds up increments that reporters send concurrently, losing none', async () => {
      const task = await storedTask();
      const reports = Array.from({ length: 20 }, () =>
        report(task, { message: '{progress} of {total}', increment: 1 }),
      );
      expect((await Promise.all(reports)).every((recorded) => recorded !== null)).toBe(true);
      expect((await reread(task)).progress?.progress).toBe(20);
    });

    it('keeps what a report leaves out', async () => {
      const task = await storedTask();
      await report(task, { message: 'Counting', progress: 1, total: 4 });
      fixture.clock.advance(1);
      expect(await report(task, { progress: 2 })).toMatchObject({ message: 'Counting', progress: 2, total: 4 });
    });

    it('drops a count that arrives after a higher one', async () => {
      const task = await storedTask();
      await report(task, { progress: 4, total: 5 });
      expect(await report(task, { progress: 2, total: 5 })).toBeNull();
      expect((await reread(task)).progress).toMatchObject({ progress: 4, total: 5 });
    });

    it('drops the same count reported earlier, and takes it reported later', async () => {
      const task = await storedTask();
      await report(task, { message: 'Second', progress: 2 });
      expect(await fixture.progress.record(task.key, task.executionArn, { message: 'First', progress: 2, at: 1 })).toBe(
        null,
      );
      fixture.clock.advance(1);
      expect(await report(task, { message: 'Third', progress: 2 })).toMatchObject({ message: 'Third' });
    });

    it('drops a message older than the one stored', async () => {
      const task = await storedTask();
      await report(task, { message: 'Waiting for review' });
      const older = { message: 'Analysing', at: now() - 5_000 };
      expect(await fixture.progress.record(task.key, task.executionArn, older)).toBeNull();
      expect(statusMessageOf(await reread(task))).toBe('Waiting for review');
    });

    it('ignores a report once the task is finished, and a finished task shows no progress as its status', async () => {
      const task = await storedTask();
      await report(task, { message: 'Half way', progress: 1, total: 2 });
      await fixture.tasks.update(task, { status: TaskStatus.Completed, output: '{}', at: now() });
      fixture.clock.advance(1);
      expect(await report(task, { message: 'Too late', progress: 2, total: 2 })).toBeNull();
      const stored = await reread(task);
      expect(stored.progress?.message).toBe('Half way');
      expect(statusMessageOf(stored)).toBeUndefined();
    });

    it('ignores a report for a task past its retention', async () => {
      const task = await storedTask();
      fixture.clock.advance(60_000);
      expect(await report(task, { message: 'Too late' })).toBeNull();
    });

    it('ignores reports of another execution, and for no task at all', async () => {
      const task = await storedTask();
      const otherRun = { ...task, executionArn: task.executionArn.replace(/-[0-9a-f]{10}$/, '-0000000000') };
      expect(await report(otherRun, { message: 'Not mine' })).toBeNull();
      expect(await report({ ...task, key: taskKey('nobody', 'nothing') }, { message: 'Nowhere' })).toBeNull();
      expect((await reread(task)).progress).toBeUndefined();
    });
  });
}
