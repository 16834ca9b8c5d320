// The TaskStore contract, second half: listing, the lookups by request ID and by key, what a reader may see, and
// deletion. Declared inside taskStoreContract (task-store-contract.ts), on its fixture.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InvalidCursorError, TaskAlreadyExistsError, TaskExpiredError } from '../../lambda/core/errors.js';
import { RetentionClock, TaskOrigin, type TaskRecord } from '../../lambda/core/task.js';
import { taskKey } from '../../lambda/core/task-key.js';
import { TaskStatus } from '../../lambda/core/task-status.js';
import { newTask, type TaskStoreFixture } from './task-fixtures.js';

export function taskStoreReadContract(fixture: () => TaskStoreFixture): void {
  const store = () => fixture().store;
  const clock = () => fixture().clock;
  const task = (overrides: Partial<TaskRecord> = {}) => newTask(fixture().clock, overrides);

  describe('list', () => {
    async function createMany(owner: string, count: number, origin: TaskOrigin = TaskOrigin.Mcp20251125) {
      const tasks: TaskRecord[] = [];
      for (let index = 0; index < count; index++) {
        const at = clock().now() + index;
        const created = task({ owner, createdAt: at, lastUpdatedAt: at, origin });
        await store().create(created);
        tasks.push(created);
      }
      return tasks;
    }

    async function listAll(owner: string, limit: number): Promise<{ ids: string[]; pages: number }> {
      const ids: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store().list(owner, { limit, ...(cursor ? { cursor } : {}) });
        expect(page.tasks.length).toBeLessThanOrEqual(limit);
        ids.push(...page.tasks.map((listed) => listed.taskId));
        cursor = page.nextCursor;
        pages++;
      } while (cursor !== undefined);
      return { ids, pages };
    }

    it("pages through exactly the owner's tasks, newest first", async () => {
      const owner = `lister-${randomUUID()}`;
      const tasks = await createMany(owner, 7);
      await createMany(`other-${randomUUID()}`, 3);
      const { ids, pages } = await listAll(owner, 3);
      expect(ids).toEqual(tasks.map((created) => created.taskId).reverse());
      expect(pages).toBeGreaterThanOrEqual(3);
    });

    it('leaves out tasks made for plain tool calls', async () => {
      const owner = `direct-${randomUUID()}`;
      await createMany(owner, 2, TaskOrigin.Direct);
      const listed = await createMany(owner, 1);
      expect((await listAll(owner, 10)).ids).toEqual([listed[0]!.taskId]);
    });

    it('leaves out expired tasks', async () => {
      const owner = `expiring-${randomUUID()}`;
      await createMany(owner, 1);
      const long = task({ owner, retention: { ms: 10 ** 9, clock: RetentionClock.FromCreation } });
      await store().create(long);
      clock().advance(120_000);
      expect((await listAll(owner, 10)).ids).toEqual([long.taskId]);
    });

    it('lists a task as its summary: without output, input digest, request ID, step, progress or input requests', async () => {
      const { output, requestId, inputDigest, ...summary } = task({
        requestId: '"listed"',
        output: '{"ok":true}',
        lastCheckedAt: clock().now(),
        statusMessage: 'almost',
      });
      const created = { ...summary, output, requestId, inputDigest };
      await store().create(created);
      await store().recordCurrentStep(created, 'Review');
      expect((await store().get(created.owner, created.taskId))?.currentStep).toBe('Review');
      expect((await store().list(created.owner, { limit: 10 })).tasks).toEqual([summary]);
    });

    it('rejects a cursor that is not one of its own', async () => {
      await expect(store().list('someone', { limit: 5, cursor: 'not-a-cursor' })).rejects.toBeInstanceOf(
        InvalidCursorError,
      );
      const doctored = Buffer.from(JSON.stringify({ pk: 'x', createdAt: 1 })).toString('base64url');
      await expect(store().list('someone', { limit: 5, cursor: doctored })).rejects.toBeInstanceOf(InvalidCursorError);
    });

    it("rejects another owner's cursor", async () => {
      const owner = `cursor-${randomUUID()}`;
      await createMany(owner, 3);
      const { nextCursor } = await store().list(owner, { limit: 1 });
      expect(nextCursor).toBeDefined();
      await expect(store().list('thief', { limit: 1, cursor: nextCursor! })).rejects.toBeInstanceOf(InvalidCursorError);
    });
  });

  describe('findByRequest', () => {
    it('finds a task by the request ID that created it, for its owner only', async () => {
      const created = task({ requestId: '42' });
      await store().create(created);
      expect((await store().findByRequest(created.owner, '42'))?.taskId).toBe(created.taskId);
      expect(await store().findByRequest('intruder', '42')).toBeNull();
      expect(await store().findByRequest(created.owner, '43')).toBeNull();
    });

    it('finds the latest task the owner created with a reused request ID', async () => {
      const first = task({ requestId: '"again"' });
      const second = task({ owner: first.owner, requestId: '"again"' });
      await store().create(first);
      await store().create(second);
      expect((await store().findByRequest(first.owner, '"again"'))?.taskId).toBe(second.taskId);
    });

    it('keeps the later task findable when the earlier one with the same request ID is deleted', async () => {
      const first = task({ requestId: '"reused"' });
      const second = task({ owner: first.owner, requestId: '"reused"' });
      await store().create(first);
      await store().create(second);
      expect(await store().delete(first.owner, first.taskId)).toBe(true);
      expect((await store().findByRequest(first.owner, '"reused"'))?.taskId).toBe(second.taskId);
    });

    it('does not lead to a later task that reuses the ID of a deleted one', async () => {
      const first = task({ requestId: '"first"' });
      await store().create(first);
      await store().delete(first.owner, first.taskId);
      await store().create({ ...first, requestId: '"second"' });
      expect(await store().findByRequest(first.owner, '"first"')).toBeNull();
      expect((await store().findByRequest(first.owner, '"second"'))?.taskId).toBe(first.taskId);
    });

    it('writes no request mapping when the task itself is refused', async () => {
      const first = task({ requestId: '7' });
      await store().create(first);
      await expect(store().create({ ...first, requestId: '8' })).rejects.toBeInstanceOf(TaskAlreadyExistsError);
      expect(await store().findByRequest(first.owner, '8')).toBeNull();
    });
  });

  describe('getByKey', () => {
    it('finds a task by its key whoever owns it', async () => {
      const created = task();
      await store().create(created);
      expect(await store().getByKey(taskKey(created.owner, created.taskId))).toEqual(created);
      expect(await store().getByKey(taskKey('someone-else', created.taskId))).toBeNull();
    });

    it('finds no task past its retention, though nothing has swept it yet', async () => {
      const created = task({ retention: { ms: 10_000, clock: RetentionClock.FromCreation } });
      await store().create(created);
      clock().advance(10_000);
      expect(await store().getByKey(taskKey(created.owner, created.taskId))).toBeNull();
    });
  });

  describe('visibility', () => {
    it('shows an expired task to get alone, as expired; findByRequest, list and delete find none', async () => {
      const created = task({ requestId: '"soon-gone"', retention: { ms: 10_000, clock: RetentionClock.FromCreation } });
      await store().create(created);
      clock().advance(10_000);
      await expect(store().get(created.owner, created.taskId)).rejects.toBeInstanceOf(TaskExpiredError);
      expect(await store().findByRequest(created.owner, '"soon-gone"')).toBeNull();
      expect((await store().list(created.owner, { limit: 10 })).tasks).toEqual([]);
      expect(await store().delete(created.owner, created.taskId)).toBe(false);
    });
  });

  describe('delete', () => {
    it('removes the task and reports whether there was one', async () => {
      const created = task();
      await store().create(created);
      expect(await store().delete('intruder', created.taskId)).toBe(false);
      expect(await store().get(created.owner, created.taskId)).not.toBeNull();
      expect(await store().delete(created.owner, created.taskId)).toBe(true);
      expect(await store().get(created.owner, created.taskId)).toBeNull();
      expect(await store().delete(created.owner, created.taskId)).toBe(false);
    });

    it('removes a finished task and its result, and frees its ID for a new task', async () => {
      const created = task({ requestId: '"done"' });
      await store().create(created);
      await store().update(created, { status: TaskStatus.Completed, output: '{"ok":true}', at: clock().now() });
      expect(await store().delete(created.owner, created.taskId)).toBe(true);
      expect(await store().findByRequest(created.owner, '"done"')).toBeNull();
      await expect(store().create(created)).resolves.toBeUndefined();
      expect((await store().get(created.owner, created.taskId))?.output).toBeUndefined();
    });
  });
}
