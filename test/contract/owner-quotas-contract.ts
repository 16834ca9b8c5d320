// The OwnerQuotas contract (lambda/store/owner-quotas.ts) as one suite, run on every implementation: DynamoDB Local
// (test/integration/dynamodb-task-store.test.ts) and in memory (test/unit/store/in-memory-stores.test.ts).
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { RetentionClock } from '../../lambda/core/task.js';
import { TaskStatus } from '../../lambda/core/task-status.js';
import type { OwnerQuotas } from '../../lambda/store/owner-quotas.js';
import type { TaskStore } from '../../lambda/store/task-store.js';
import { newTask, type MakeFixture, type ManualClock } from './task-fixtures.js';

/** Quotas, and the task store their reconciliation reads (and the tests write tasks to). */
export interface OwnerQuotasFixture {
  readonly quotas: OwnerQuotas;
  readonly tasks: TaskStore;
  readonly clock: ManualClock;
}

export function ownerQuotasContract(name: string, make: MakeFixture<OwnerQuotasFixture>): void {
  describe(`${name} (OwnerQuotas contract)`, () => {
    let fixture: OwnerQuotasFixture;
    beforeEach(async () => {
      fixture = await make();
    });
    const quotas = () => fixture.quotas;
    const owner = () => `owner-${randomUUID()}`;

    describe('countCreation', () => {
      const window = { start: 1_700_000_040_000, ms: 60_000 };

      it('counts up to the limit in a window, atomically, and refuses past it', async () => {
        const counter = owner();
        const counted = await Promise.all([1, 2, 3, 4].map(() => quotas().countCreation(counter, window, 3)));
        expect(counted.filter(Boolean)).toHaveLength(3);
        expect(await quotas().countCreation(counter, window, 3)).toBe(false);
      });

      it('starts every window and every owner afresh', async () => {
        const counter = owner();
        expect(await quotas().countCreation(counter, window, 1)).toBe(true);
        expect(await quotas().countCreation(counter, window, 1)).toBe(false);
        expect(await quotas().countCreation(counter, { ...window, start: window.start + window.ms }, 1)).toBe(true);
        expect(await quotas().countCreation(owner(), window, 1)).toBe(true);
      });
    });

    describe('active-task slots', () => {
      it('holds at most the limit, atomically, for concurrent callers', async () => {
        const holder = owner();
        const held = await Promise.all([1, 2, 3, 4, 5].map((n) => quotas().holdActiveSlot(holder, `t${n}`, 3)));
        expect(held.filter(Boolean)).toHaveLength(3);
      });

      it('holds exactly the limit, however the tasks fall, and finds a released slot wherever it was held', async () => {
        const holder = owner();
        const ids = Array.from({ length: 20 }, (_, n) => `task-${n}`);
        for (const id of ids) expect(await quotas().holdActiveSlot(holder, id, 20)).toBe(true);
        expect(await quotas().holdActiveSlot(holder, 'one-too-many', 20)).toBe(false);
        for (const id of ids.slice(0, 5)) await quotas().releaseActiveSlot(holder, id);
        const more = Array.from({ length: 6 }, (_, n) => `later-${n}`);
        const held = await Promise.all(more.map((id) => quotas().holdActiveSlot(holder, id, 20)));
        expect(held.filter(Boolean)).toHaveLength(5);
      });

      it('counts a task once however often it holds its slot', async () => {
        const holder = owner();
        expect(await quotas().holdActiveSlot(holder, 'a', 2)).toBe(true);
        expect(await quotas().holdActiveSlot(holder, 'a', 2)).toBe(true);
        expect(await quotas().holdActiveSlot(holder, 'b', 2)).toBe(true);
        expect(await quotas().holdActiveSlot(holder, 'a', 2)).toBe(true);
        expect(await quotas().holdActiveSlot(holder, 'c', 2)).toBe(false);
      });

      it("keeps each owner's slots apart", async () => {
        const [first, second] = [owner(), owner()];
        expect(await quotas().holdActiveSlot(first, 'a', 1)).toBe(true);
        expect(await quotas().holdActiveSlot(second, 'a', 1)).toBe(true);
        await quotas().releaseActiveSlot(second, 'a');
        expect(await quotas().holdActiveSlot(first, 'b', 1)).toBe(false);
      });

      it('frees a slot on release, and a second release of it frees no other', async () => {
        const holder = owner();
        await quotas().holdActiveSlot(holder, 'a', 2);
        await quotas().holdActiveSlot(holder, 'b', 2);
        await quotas().releaseActiveSlot(holder, 'a');
        await quotas().releaseActiveSlot(holder, 'a');
        expect(await quotas().holdActiveSlot(holder, 'c', 2)).toBe(true);
        expect(await quotas().holdActiveSlot(holder, 'd', 2)).toBe(false);
      });

      it('releases harmlessly for an owner that holds nothing', async () => {
        await expect(quotas().releaseActiveSlot(owner(), 'none')).resolves.toBeUndefined();
      });

      it('reconciles by freeing the slots of terminal, deleted, expired and missing tasks, and keeps the active ones', async () => {
        const holder = owner();
        const { tasks, clock } = fixture;
        const active = newTask(clock, {
          owner: holder,
          retention: { ms: 600_000, clock: RetentionClock.FromCreation },
        });
        const [finished, deleted, expiring] = [1, 2, 3].map(() => newTask(clock, { owner: holder }));
        for (const task of [active, finished!, deleted!, expiring!]) {
          await tasks.create(task);
          expect(await quotas().holdActiveSlot(holder, task.taskId, 5)).toBe(true);
        }
        expect(await quotas().holdActiveSlot(holder, 'never-stored', 5)).toBe(true);
        await tasks.update(finished!, { status: TaskStatus.Completed, output: '{}', at: clock.now() });
        await tasks.delete(holder, deleted!.taskId);
        clock.advance(60_000);
        expect(await quotas().reconcileActiveSlots(holder)).toBe(4);
        for (const taskId of ['b', 'c', 'd', 'e']) expect(await quotas().holdActiveSlot(holder, taskId, 5)).toBe(true);
        expect(await quotas().holdActiveSlot(holder, 'f', 5)).toBe(false);
        expect(await quotas().reconcileActiveSlots(owner())).toBe(0);
      });
    });
  });
}
