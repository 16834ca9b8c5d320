// The TaskEventStore contract (lambda/store/task-event-store.ts) as one suite, run on every implementation: DynamoDB
// Local (test/integration/dynamodb-event-stores.test.ts) and in memory
// (test/unit/store/in-memory-event-stores.test.ts).
// What only DynamoDB has (the item layout, the TTL attribute, racing appends) is tested beside it.
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { TaskEventChange, type NewTaskEvent, type TaskEvent } from '../../lambda/core/task-event.js';
import { TaskStatus } from '../../lambda/core/task-status.js';
import type { TaskEventStore } from '../../lambda/store/task-event-store.js';
import type { MakeFixture, ManualClock } from './task-fixtures.js';

export interface TaskEventStoreFixture {
  readonly events: TaskEventStore;
  readonly clock: ManualClock;
}

/** A change-stream position past any other in the suite: longer than a number holds, as DynamoDB's are. */
const BASE_SOURCE = 10n ** 30n;
const sourceAt = (n: number): string => String(BASE_SOURCE + BigInt(n));

export function taskEventStoreContract(name: string, make: MakeFixture<TaskEventStoreFixture>): void {
  describe(`${name} (TaskEventStore contract)`, () => {
    let fixture: TaskEventStoreFixture;
    beforeEach(async () => {
      fixture = await make();
    });
    const events = () => fixture.events;
    const now = () => fixture.clock.now();

    /** A task of a fresh owner. */
    const newTaskRef = () => ({ owner: `owner-${randomUUID()}`, taskId: randomUUID() });

    function eventOf(task: { owner: string; taskId: string }, overrides: Partial<NewTaskEvent> = {}): NewTaskEvent {
      return {
        owner: task.owner,
        taskId: task.taskId,
        at: now(),
        changes: [TaskEventChange.Status],
        task: { taskId: task.taskId, toolName: 'text_stats', status: TaskStatus.Working },
        ...overrides,
      };
    }

    /** Appends `count` events of the task for sources 1..count, a millisecond apart. */
    async function appendMany(task: { owner: string; taskId: string }, count: number): Promise<TaskEvent[]> {
      const appended: TaskEvent[] = [];
      for (let n = 1; n <= count; n++) {
        appended.push(await events().append(eventOf(task, { at: now() + n }), sourceAt(n)));
      }
      return appended;
    }

    const readAll = (task: { owner: string; taskId: string }) => events().readAfter(task.owner, task.taskId, 0, 100);

    it("numbers a task's events from 1, one past the newest, and reads them back oldest first as appended", async () => {
      const task = newTaskRef();
      const appended = await appendMany(task, 3);
      expect(appended.map((event) => event.seq)).toEqual([1, 2, 3]);
      expect(appended[0]).toEqual({ ...eventOf(task, { at: now() + 1 }), seq: 1 });
      expect(await readAll(task)).toEqual(appended);
      expect(await events().lastSeq(task.owner, task.taskId)).toBe(3);
    });

    it('keeps every field of the event: each change, the whole snapshot and the expiry', async () => {
      const task = newTaskRef();
      const event = eventOf(task, {
        changes: [TaskEventChange.Progress, TaskEventChange.StatusMessage, TaskEventChange.InputRequests],
        task: {
          taskId: task.taskId,
          toolName: 'refund_order',
          status: TaskStatus.InputRequired,
          statusMessage: 'Analysed 3 of 5 documents',
          progress: { progress: 3, total: 5 },
          currentStep: 'Review',
          openInputRequests: ['a', 'b'],
        },
        expiresAt: now() + 60_000,
      });
      const appended = await events().append(event, sourceAt(1));
      expect(appended).toEqual({ ...event, seq: 1 });
      expect(await readAll(task)).toEqual([appended]);
    });

    it('appends a change once: the same source again returns the event stored for it, unchanged', async () => {
      const task = newTaskRef();
      const first = await events().append(eventOf(task), sourceAt(1));
      fixture.clock.advance(1_000);
      const again = await events().append(eventOf(task, { changes: [TaskEventChange.Progress] }), sourceAt(1));
      expect(again).toEqual(first);
      expect(await readAll(task)).toEqual([first]);
      expect(await events().lastSeq(task.owner, task.taskId)).toBe(1);
    });

    it('makes one event of the same change appended concurrently', async () => {
      const task = newTaskRef();
      const appends = await Promise.all(Array.from({ length: 5 }, () => events().append(eventOf(task), sourceAt(1))));
      for (const appended of appends) expect(appended).toEqual(appends[0]);
      expect(await readAll(task)).toHaveLength(1);
    });

    it('does not append an older change after a newer one; a redelivered one returns its own event', async () => {
      const task = newTaskRef();
      const [first, second] = await appendMany(task, 2);
      expect(await events().append(eventOf(task), sourceAt(1))).toEqual(first);
      expect(await readAll(task)).toEqual([first, second]);
      // An older change never appended (out of order) makes no event either.
      await events().append(eventOf(task), sourceAt(0));
      expect(await events().lastSeq(task.owner, task.taskId)).toBe(2);
    });

    it('orders sources as numbers, not as text', async () => {
      const task = newTaskRef();
      await events().append(eventOf(task), '9');
      await events().append(eventOf(task), '10');
      await events().append(eventOf(task), '9');
      expect((await readAll(task)).map((event) => event.seq)).toEqual([1, 2]);
    });

    it('refuses a source that is not a string of digits', async () => {
      const task = newTaskRef();
      await expect(events().append(eventOf(task), '0x1f')).rejects.toThrow(/digits/);
      expect(await readAll(task)).toEqual([]);
    });

    it('reads a page of up to `limit` events after `afterSeq`', async () => {
      const task = newTaskRef();
      await appendMany(task, 5);
      const seqs = async (after: number, limit: number) =>
        (await events().readAfter(task.owner, task.taskId, after, limit)).map((event) => event.seq);
      expect(await seqs(0, 2)).toEqual([1, 2]);
      expect(await seqs(2, 2)).toEqual([3, 4]);
      expect(await seqs(4, 2)).toEqual([5]);
      expect(await seqs(5, 2)).toEqual([]);
      expect(await seqs(1, 100)).toEqual([2, 3, 4, 5]);
    });

    it("numbers each task's events apart", async () => {
      const task = newTaskRef();
      const other = { owner: task.owner, taskId: randomUUID() };
      await appendMany(task, 2);
      expect((await events().append(eventOf(other), sourceAt(3))).seq).toBe(1);
      expect((await readAll(other)).map((event) => event.taskId)).toEqual([other.taskId]);
    });

    it("shows no owner another owner's events, even of a task with the same ID", async () => {
      const task = newTaskRef();
      await appendMany(task, 2);
      const stranger = { owner: `owner-${randomUUID()}`, taskId: task.taskId };
      expect(await readAll(stranger)).toEqual([]);
      expect(await events().lastSeq(stranger.owner, stranger.taskId)).toBe(0);
      expect((await events().append(eventOf(stranger), sourceAt(9))).seq).toBe(1);
      expect(await events().lastSeq(task.owner, task.taskId)).toBe(2);
    });

    it('reads an unknown task as having no events', async () => {
      const task = newTaskRef();
      expect(await readAll(task)).toEqual([]);
      expect(await events().lastSeq(task.owner, task.taskId)).toBe(0);
    });

    it('forgets events at their expiry, and keeps those without one', async () => {
      const task = newTaskRef();
      const kept = await events().append(eventOf(task), sourceAt(1));
      await events().append(eventOf(task, { expiresAt: now() + 60_000 }), sourceAt(2));
      expect(await events().lastSeq(task.owner, task.taskId)).toBe(2);
      fixture.clock.advance(59_999);
      expect(await readAll(task)).toHaveLength(2);
      fixture.clock.advance(1);
      expect(await readAll(task)).toEqual([kept]);
      expect(await events().lastSeq(task.owner, task.taskId)).toBe(1);
    });

    it('fills a page from the events still live', async () => {
      const task = newTaskRef();
      await events().append(eventOf(task, { expiresAt: now() + 1_000 }), sourceAt(1));
      await events().append(eventOf(task, { expiresAt: now() + 1_000 }), sourceAt(2));
      await events().append(eventOf(task), sourceAt(3));
      fixture.clock.advance(1_000);
      expect((await events().readAfter(task.owner, task.taskId, 0, 1)).map((event) => event.seq)).toEqual([3]);
    });
  });
}
