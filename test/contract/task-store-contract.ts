// The TaskStore contract (lambda/store/task-store.ts) as one suite, run on every implementation: DynamoDB Local
// (test/integration/dynamodb-task-store.test.ts) and in memory (test/unit/store/in-memory-stores.test.ts). Writes and
// the reads that judge them here; listing, lookups and deletion in task-store-read-contract.ts.
import { beforeEach, describe, expect, it } from 'vitest';
import {
  IllegalTransitionError,
  TaskAlreadyExistsError,
  TaskExpiredError,
  TaskNotFoundError,
} from '../../lambda/core/errors.js';
import { RetentionClock, TaskOrigin, type TaskRecord } from '../../lambda/core/task.js';
import { TaskStatus } from '../../lambda/core/task-status.js';
import { taskKey } from '../../lambda/core/task-key.js';
import { newTask, type MakeFixture, type TaskStoreFixture } from './task-fixtures.js';
import { taskStoreReadContract } from './task-store-read-contract.js';

export function taskStoreContract(name: string, make: MakeFixture<TaskStoreFixture>): void {
  describe(`${name} (TaskStore contract)`, () => {
    let fixture: TaskStoreFixture;
    beforeEach(async () => {
      fixture = await make();
    });
    const store = () => fixture.store;
    const clock = () => fixture.clock;
    const task = (overrides: Partial<TaskRecord> = {}) => newTask(fixture.clock, overrides);

    describe('create', () => {
      it('stores a task that get returns unchanged', async () => {
        const created = task();
        await store().create(created);
        expect(await store().get(created.owner, created.taskId)).toEqual(created);
      });

      it('never overwrites a live task with the same owner and ID', async () => {
        const created = task();
        await store().create(created);
        await expect(store().create({ ...created, toolName: 'other' })).rejects.toBeInstanceOf(TaskAlreadyExistsError);
        expect((await store().get(created.owner, created.taskId))?.toolName).toBe('text_stats');
      });

      it('lets two owners use the same task ID independently', async () => {
        const mine = task({ taskId: 'shared-id' });
        const theirs = task({ taskId: 'shared-id', toolName: 'analyze_documents' });
        await store().create(mine);
        await store().create(theirs);
        expect((await store().get(mine.owner, 'shared-id'))?.toolName).toBe('text_stats');
        expect((await store().get(theirs.owner, 'shared-id'))?.toolName).toBe('analyze_documents');
      });

      it('replaces a task the very millisecond a read first finds it expired, not a second later', async () => {
        // Within one whole second of a TTL in seconds: only the millisecond expiry tells the two moments apart.
        clock().set(Math.ceil(clock().now() / 1000) * 1000 + 10_000);
        for (const retention of [
          { ms: 1_500, clock: RetentionClock.FromCreation },
          { ms: 500, clock: RetentionClock.FromCompletion },
        ]) {
          const created = task({ retention });
          await store().create(created);
          if (retention.clock === RetentionClock.FromCompletion)
            await store().update(created, { status: TaskStatus.Completed, at: clock().now() + 1_000 });
          clock().advance(1_499);
          const again = () => ({ ...created, createdAt: clock().now(), lastUpdatedAt: clock().now() });
          await expect(store().create(again())).rejects.toBeInstanceOf(TaskAlreadyExistsError);
          clock().advance(1);
          await expect(store().get(created.owner, created.taskId)).rejects.toBeInstanceOf(TaskExpiredError);
          await expect(store().create(again())).resolves.toBeUndefined();
          expect((await store().get(created.owner, created.taskId))?.createdAt).toBe(clock().now());
          clock().advance(10_000);
        }
      });
    });

    describe('get', () => {
      it('returns null for an unknown task', async () => {
        expect(await store().get('nobody', 'missing')).toBeNull();
      });

      it("returns null for another owner's task", async () => {
        const created = task();
        await store().create(created);
        expect(await store().get('intruder', created.taskId)).toBeNull();
      });

      it('reports a task expired the moment the retention passes, before any sweep, and carries it', async () => {
        const created = task({ retention: { ms: 10_000, clock: RetentionClock.FromCreation } });
        await store().create(created);
        clock().advance(9_999);
        expect(await store().get(created.owner, created.taskId)).not.toBeNull();
        clock().advance(1);
        await expect(store().get(created.owner, created.taskId)).rejects.toMatchObject({
          name: TaskExpiredError.name,
          task: created,
        });
        expect(await store().get('intruder', created.taskId)).toBeNull();
      });

      it('keeps a completion-clock task until its keep-alive after completion passes', async () => {
        const created = task({ retention: { ms: 5_000, clock: RetentionClock.FromCompletion } });
        await store().create(created);
        clock().advance(60_000);
        expect(await store().get(created.owner, created.taskId)).not.toBeNull();
        await store().update(created, { status: TaskStatus.Completed, at: clock().now() });
        clock().advance(4_999);
        expect(await store().get(created.owner, created.taskId)).not.toBeNull();
        clock().advance(1);
        await expect(store().get(created.owner, created.taskId)).rejects.toBeInstanceOf(TaskExpiredError);
      });
    });

    describe('update', () => {
      it('moves a working task to completed with its output and completion time', async () => {
        const created = task();
        await store().create(created);
        const output = JSON.stringify({ ok: true });
        const at = clock().now() + 5;
        const updated = await store().update(created, { status: TaskStatus.Completed, output, toolError: true, at });
        expect(updated).toMatchObject({
          status: 'completed',
          output,
          toolError: true,
          completedAt: at,
          lastUpdatedAt: at,
        });
        expect(await store().get(created.owner, created.taskId)).toEqual(updated);
      });

      it('stores the current step that comes with a change', async () => {
        const created = task({ status: TaskStatus.Submitted });
        await store().create(created);
        const at = clock().now();
        const updated = await store().update(created, { status: TaskStatus.Working, currentStep: 'Review', at });
        expect(updated.currentStep).toBe('Review');
        expect((await store().get(created.owner, created.taskId))?.currentStep).toBe('Review');
      });

      it('never overwrites a terminal status: a late completed cannot undo cancelled', async () => {
        const created = task();
        await store().create(created);
        await store().update(created, { status: TaskStatus.Cancelled, statusMessage: 'stop', at: clock().now() });
        const late = store().update(created, { status: TaskStatus.Completed, at: clock().now() + 1 });
        await expect(late).rejects.toBeInstanceOf(IllegalTransitionError);
        await expect(late).rejects.toMatchObject({ from: 'cancelled', to: 'completed' });
        expect((await store().get(created.owner, created.taskId))?.status).toBe('cancelled');
      });

      it('lets exactly one of two racing terminal writes win', async () => {
        const created = task();
        await store().create(created);
        const outcomes = await Promise.allSettled([
          store().update(created, { status: TaskStatus.Completed, at: clock().now() }),
          store().update(created, { status: TaskStatus.Cancelled, at: clock().now() }),
        ]);
        const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
        expect(won).toHaveLength(1);
        const stored = await store().get(created.owner, created.taskId);
        expect(stored?.status).toBe((won[0] as PromiseFulfilledResult<TaskRecord>).value.status);
      });

      it('refuses to update a task past its retention, though nothing has swept it yet', async () => {
        const created = task({ retention: { ms: 10_000, clock: RetentionClock.FromCreation } });
        await store().create(created);
        clock().advance(10_000);
        await expect(
          store().update(created, { status: TaskStatus.Completed, at: clock().now() }),
        ).rejects.toBeInstanceOf(TaskNotFoundError);
      });

      it('refuses to update a newer task created under the same ID', async () => {
        const old = task({ retention: { ms: 1_000, clock: RetentionClock.FromCreation } });
        await store().create(old);
        clock().advance(5_000);
        const now = clock().now();
        await store().create({
          ...old,
          executionArn: `${old.executionArn}-renewed`,
          createdAt: now,
          lastUpdatedAt: now,
        });
        await expect(store().update(old, { status: TaskStatus.Failed, at: now })).rejects.toBeInstanceOf(
          TaskNotFoundError,
        );
        expect(await store().claimCheck(old, now + 10_000, now + 70_000)).toBe(false);
        expect((await store().get(old.owner, old.taskId))?.status).toBe('working');
      });

      it('throws TaskNotFoundError for a task that is gone', async () => {
        await expect(store().update(task(), { status: TaskStatus.Failed, at: clock().now() })).rejects.toBeInstanceOf(
          TaskNotFoundError,
        );
      });

      it('clears a stale status message when the new status has none', async () => {
        // (input_required -> working is the answer path's alone, see the input-request store; submitted -> working is
        // not.)
        const created = task({ status: TaskStatus.Submitted, statusMessage: 'starting' });
        await store().create(created);
        const back = await store().update(created, { status: TaskStatus.Working, at: clock().now() });
        expect(back.statusMessage).toBeUndefined();
        expect((await store().get(created.owner, created.taskId))?.statusMessage).toBeUndefined();
      });
    });

    describe('findCheckDue and claimCheck', () => {
      // The table may hold other tests' tasks: each test looks only at its own.
      const keyOf = (each: TaskRecord) => taskKey(each.owner, each.taskId);
      const dueOf = async (mine: TaskRecord[], now: number, limit = 1_000) => {
        const keys = new Set(mine.map(keyOf));
        return (await store().findCheckDue(now, limit)).filter((key) => keys.has(key));
      };

      it('finds the active tasks whose check is due, most overdue first, and no other', async () => {
        const now = clock().now();
        const later = task({ nextCheckAt: now - 1_000 });
        const earliest = task({ nextCheckAt: now - 5_000 });
        const notYet = task({ nextCheckAt: now + 1_000 });
        const unchecked = task();
        const ended = task({ nextCheckAt: now - 9_000 });
        const mine = [later, earliest, notYet, unchecked, ended];
        for (const each of mine) await store().create(each);
        await store().update(ended, { status: TaskStatus.Completed, output: '{}', at: now });
        expect(await dueOf(mine, now)).toEqual([keyOf(earliest), keyOf(later)]);
        expect(await store().findCheckDue(now, 1)).toHaveLength(1);
        expect((await store().get(ended.owner, ended.taskId))?.nextCheckAt).toBeUndefined();
      });

      it('grants each due check to one caller, and moves the task to its next check', async () => {
        const now = clock().now();
        const created = task({ nextCheckAt: now - 1 });
        await store().create(created);
        const claims = await Promise.all([1, 2, 3].map(() => store().claimCheck(created, now, now + 60_000)));
        expect(claims.filter(Boolean)).toHaveLength(1);
        expect(await store().get(created.owner, created.taskId)).toMatchObject({
          lastCheckedAt: now,
          nextCheckAt: now + 60_000,
        });
        expect(await dueOf([created], now)).toEqual([]);
        expect(await dueOf([created], now + 60_000)).toEqual([keyOf(created)]);
      });

      it('grants none for a terminal task, or a newer task under the same ID', async () => {
        const now = clock().now();
        const finished = task({ nextCheckAt: now - 1 });
        await store().create(finished);
        await store().update(finished, { status: TaskStatus.Failed, at: now });
        expect(await store().claimCheck(finished, now, now + 60_000)).toBe(false);
        const replaced = task({ nextCheckAt: now - 1 });
        await store().create(replaced);
        expect(
          await store().claimCheck({ ...replaced, executionArn: `${replaced.executionArn}-old` }, now, now + 1),
        ).toBe(false);
      });
    });

    describe('recordCurrentStep', () => {
      it('records the step of an active task, which a read shows', async () => {
        const created = task();
        await store().create(created);
        await store().recordCurrentStep(created, 'Review');
        expect((await store().get(created.owner, created.taskId))?.currentStep).toBe('Review');
      });

      it('leaves a finished task, or a newer task under the same ID, as it was, and does not throw', async () => {
        const finished = task();
        await store().create(finished);
        await store().update(finished, { status: TaskStatus.Completed, output: '{}', at: clock().now() });
        await expect(store().recordCurrentStep(finished, 'Late')).resolves.toBeUndefined();
        expect((await store().get(finished.owner, finished.taskId))?.currentStep).toBeUndefined();
        const other = task();
        await store().create(other);
        await store().recordCurrentStep({ ...other, executionArn: `${other.executionArn}-old` }, 'Stale');
        expect((await store().get(other.owner, other.taskId))?.currentStep).toBeUndefined();
        await expect(store().recordCurrentStep(task(), 'Nowhere')).resolves.toBeUndefined();
      });
    });

    describe('handOff', () => {
      const listed = async (owner: string) =>
        (await store().list(owner, { limit: 50 })).tasks.map((summary) => summary.taskId);

      it('makes an active plain call’s task an ordinary listed task of its owner, and nothing else about it', async () => {
        const plain = task({ origin: TaskOrigin.Direct });
        await store().create(plain);
        expect(await listed(plain.owner)).not.toContain(plain.taskId);
        await expect(store().handOff(plain)).resolves.toBe(true);
        expect(await store().get(plain.owner, plain.taskId)).toEqual({ ...plain, origin: TaskOrigin.Handoff });
        expect(await listed(plain.owner)).toContain(plain.taskId);
      });

      it('refuses a finished task, a newer task under the same ID, and a task that is no plain call’s', async () => {
        const finished = task({ origin: TaskOrigin.Direct });
        await store().create(finished);
        await store().update(finished, { status: TaskStatus.Completed, output: '{}', at: clock().now() });
        await expect(store().handOff(finished)).resolves.toBe(false);
        expect(await listed(finished.owner)).not.toContain(finished.taskId);
        const other = task({ origin: TaskOrigin.Direct });
        await store().create(other);
        await expect(store().handOff({ ...other, executionArn: `${other.executionArn}-old` })).resolves.toBe(false);
        const asTask = task();
        await store().create(asTask);
        await expect(store().handOff(asTask)).resolves.toBe(false);
        expect((await store().get(asTask.owner, asTask.taskId))?.origin).toBe(TaskOrigin.Mcp20251125);
        await expect(store().handOff(task({ origin: TaskOrigin.Direct }))).resolves.toBe(false);
      });
    });

    taskStoreReadContract(() => fixture);
  });
}
