// The TaskStore contract, held against DynamoDB Local through the real AWS SDK.
import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  IllegalTransitionError,
  InvalidCursorError,
  TaskAlreadyExistsError,
  TaskExpiredError,
  TaskNotFoundError,
} from '../../lambda/core/errors.js';
import { RetentionClock, TaskOrigin, TaskStatus, type TaskRecord } from '../../lambda/core/task.js';
import { taskKey } from '../../lambda/core/task-key.js';
import { DynamoDbTaskStore } from '../../lambda/store/dynamodb-task-store.js';
import {
  ACTIVE_EXPIRY_PARTITION_KEY,
  ACTIVE_EXPIRY_TTL_GRACE_MS,
  OWNER_INDEX_PARTITION_KEY,
  PARTITION_KEY,
} from '../../lambda/store/table-schema.js';
import { createTestTable, localAwsClients } from '../support/local-backend.js';

let tableName: string;
let clock = Date.now();
const now = (): number => clock;
const documentClient = () => DynamoDBDocumentClient.from(localAwsClients().dynamoDb);
const store = (): DynamoDbTaskStore => new DynamoDbTaskStore({ client: documentClient(), tableName, now });

function newTask(overrides: Partial<TaskRecord> = {}): TaskRecord {
  return {
    taskId: randomUUID(),
    owner: `owner-${randomUUID()}`,
    toolName: 'text_stats',
    origin: TaskOrigin.Mcp20251125,
    executionArn: 'arn:aws:states:us-east-1:000000000000:execution:text-stats:x',
    status: TaskStatus.Working,
    createdAt: clock,
    lastUpdatedAt: clock,
    retention: { ms: 60_000, clock: RetentionClock.FromCreation },
    pollIntervalMs: 1_000,
    inputDigest: 'digest',
    ...overrides,
  };
}

beforeAll(async () => {
  tableName = await createTestTable();
});

describe('DynamoDbTaskStore', () => {
  describe('create', () => {
    it('stores a task that get returns unchanged', async () => {
      const task = newTask();
      await store().create(task);
      expect(await store().get(task.owner, task.taskId)).toEqual(task);
    });

    it('never overwrites a live task with the same owner and ID', async () => {
      const task = newTask();
      await store().create(task);
      await expect(store().create({ ...task, toolName: 'other' })).rejects.toBeInstanceOf(TaskAlreadyExistsError);
      expect((await store().get(task.owner, task.taskId))?.toolName).toBe('text_stats');
    });

    it('lets two owners use the same task ID independently', async () => {
      const mine = newTask({ taskId: 'shared-id' });
      const theirs = newTask({ taskId: 'shared-id', toolName: 'analyze_documents' });
      await store().create(mine);
      await store().create(theirs);
      expect((await store().get(mine.owner, 'shared-id'))?.toolName).toBe('text_stats');
      expect((await store().get(theirs.owner, 'shared-id'))?.toolName).toBe('analyze_documents');
    });

    it('replaces a task the very millisecond a read first finds it expired, not a second later', async () => {
      // Within one whole second of the TTL attribute: only the millisecond expiry tells the two moments apart.
      clock = Math.ceil(clock / 1000) * 1000 + 10_000;
      for (const retention of [
        { ms: 1_500, clock: RetentionClock.FromCreation },
        { ms: 500, clock: RetentionClock.FromCompletion },
      ]) {
        const task = newTask({ retention, createdAt: clock, lastUpdatedAt: clock });
        await store().create(task);
        if (retention.clock === RetentionClock.FromCompletion)
          await store().update(task, { status: TaskStatus.Completed, at: clock + 1_000 });
        clock += 1_499;
        await expect(store().create({ ...task, createdAt: clock, lastUpdatedAt: clock })).rejects.toBeInstanceOf(
          TaskAlreadyExistsError,
        );
        clock += 1;
        await expect(store().get(task.owner, task.taskId)).rejects.toBeInstanceOf(TaskExpiredError);
        await expect(store().create({ ...task, createdAt: clock, lastUpdatedAt: clock })).resolves.toBeUndefined();
        clock += 10_000;
      }
    });

    it('replaces an expired task that DynamoDB has not swept yet', async () => {
      const task = newTask({ retention: { ms: 1_000, clock: RetentionClock.FromCreation } });
      await store().create(task);
      clock += 5_000;
      await expect(store().create({ ...task, createdAt: clock, lastUpdatedAt: clock })).resolves.toBeUndefined();
    });
  });

  describe('the TTL attribute', () => {
    it('is epoch seconds, rounded up, as DynamoDB TTL requires', async () => {
      const task = newTask({
        createdAt: 1_700_000_000_123,
        lastUpdatedAt: 1_700_000_000_123,
        retention: { ms: 10 ** 12, clock: RetentionClock.FromCreation },
      });
      await store().create(task);
      const { Item } = await documentClient().send(
        new GetCommand({ TableName: tableName, Key: { pk: taskKey(task.owner, task.taskId) } }),
      );
      // Active, so kept past its end for the expiry sweep (see the next test).
      expect(Item?.['expiresAt']).toBe(Math.ceil((1_700_000_000_123 + 10 ** 12 + ACTIVE_EXPIRY_TTL_GRACE_MS) / 1000));
    });

    it('keeps an active task past its end until the expiry sweep has had it, and a terminal one only until its end', async () => {
      const task = newTask({ retention: { ms: 60_000, clock: RetentionClock.FromCreation } });
      await store().create(task);
      const item = async () =>
        (
          await documentClient().send(
            new GetCommand({ TableName: tableName, Key: { pk: taskKey(task.owner, task.taskId) } }),
          )
        ).Item;
      expect(await item()).toMatchObject({
        expiresAt: Math.ceil((task.createdAt + 60_000 + ACTIVE_EXPIRY_TTL_GRACE_MS) / 1000),
        [ACTIVE_EXPIRY_PARTITION_KEY]: expect.any(String),
      });
      await store().update(task, { status: TaskStatus.Completed, at: clock + 1_000 });
      const finished = await item();
      expect(finished?.['expiresAt']).toBe(Math.ceil((task.createdAt + 60_000) / 1000));
      expect(finished?.[ACTIVE_EXPIRY_PARTITION_KEY]).toBeUndefined();
    });

    it('is set at completion for a keep-alive counted from completion', async () => {
      const task = newTask({ retention: { ms: 60_000, clock: RetentionClock.FromCompletion } });
      await store().create(task);
      await store().update(task, { status: TaskStatus.Completed, at: clock + 1_000 });
      const { Item } = await documentClient().send(
        new GetCommand({ TableName: tableName, Key: { pk: taskKey(task.owner, task.taskId) } }),
      );
      expect(Item?.['expiresAt']).toBe(Math.ceil((clock + 61_000) / 1000));
    });
  });

  describe('get', () => {
    it('returns null for an unknown task', async () => {
      expect(await store().get('nobody', 'missing')).toBeNull();
    });

    it("returns null for another owner's task", async () => {
      const task = newTask();
      await store().create(task);
      expect(await store().get('intruder', task.taskId)).toBeNull();
    });

    it('reports a task expired the moment the retention passes, before any sweep', async () => {
      const task = newTask({ retention: { ms: 10_000, clock: RetentionClock.FromCreation } });
      await store().create(task);
      clock += 9_999;
      expect(await store().get(task.owner, task.taskId)).not.toBeNull();
      clock += 1;
      await expect(store().get(task.owner, task.taskId)).rejects.toBeInstanceOf(TaskExpiredError);
      expect(await store().get('intruder', task.taskId)).toBeNull();
    });

    it('keeps a completion-clock task until its keep-alive after completion passes', async () => {
      const task = newTask({ retention: { ms: 5_000, clock: RetentionClock.FromCompletion } });
      await store().create(task);
      clock += 60_000;
      expect(await store().get(task.owner, task.taskId)).not.toBeNull();
      await store().update(task, { status: TaskStatus.Completed, at: clock });
      clock += 4_999;
      expect(await store().get(task.owner, task.taskId)).not.toBeNull();
      clock += 1;
      await expect(store().get(task.owner, task.taskId)).rejects.toBeInstanceOf(TaskExpiredError);
    });
  });

  describe('update', () => {
    it('moves a working task to completed with its output and completion time', async () => {
      const task = newTask();
      await store().create(task);
      const output = JSON.stringify({ ok: true });
      const updated = await store().update(task, {
        status: TaskStatus.Completed,
        output,
        toolError: true,
        at: clock + 5,
      });
      expect(updated).toMatchObject({
        status: 'completed',
        output,
        toolError: true,
        completedAt: clock + 5,
        lastUpdatedAt: clock + 5,
      });
      expect(await store().get(task.owner, task.taskId)).toEqual(updated);
    });

    it('never overwrites a terminal status: a late completed cannot undo cancelled', async () => {
      const task = newTask();
      await store().create(task);
      await store().update(task, { status: TaskStatus.Cancelled, statusMessage: 'stop', at: clock });
      const late = store().update(task, { status: TaskStatus.Completed, at: clock + 1 });
      await expect(late).rejects.toBeInstanceOf(IllegalTransitionError);
      await expect(late).rejects.toMatchObject({ from: 'cancelled', to: 'completed' });
      expect((await store().get(task.owner, task.taskId))?.status).toBe('cancelled');
    });

    it('refuses to update a task past its end, though its item is kept for the expiry sweep', async () => {
      const task = newTask({ retention: { ms: 10_000, clock: RetentionClock.FromCreation } });
      await store().create(task);
      clock += 10_000;
      await expect(store().update(task, { status: TaskStatus.Completed, at: clock })).rejects.toBeInstanceOf(
        TaskNotFoundError,
      );
    });

    it('lets exactly one of two racing terminal writes win', async () => {
      const task = newTask();
      await store().create(task);
      const outcomes = await Promise.allSettled([
        store().update(task, { status: TaskStatus.Completed, at: clock }),
        store().update(task, { status: TaskStatus.Cancelled, at: clock }),
      ]);
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      const stored = await store().get(task.owner, task.taskId);
      const winner = outcomes.find((outcome) => outcome.status === 'fulfilled') as PromiseFulfilledResult<TaskRecord>;
      expect(stored?.status).toBe(winner.value.status);
    });

    it('refuses to update a task past its retention that DynamoDB has not swept yet', async () => {
      const task = newTask({ retention: { ms: 1_000, clock: RetentionClock.FromCreation } });
      await store().create(task);
      clock += 5_000;
      await expect(store().update(task, { status: TaskStatus.Completed, at: clock })).rejects.toBeInstanceOf(
        TaskNotFoundError,
      );
    });

    it('refuses to update a newer task created under the same ID', async () => {
      const old = newTask({ retention: { ms: 1_000, clock: RetentionClock.FromCreation } });
      await store().create(old);
      clock += 5_000;
      const renewed = { ...old, executionArn: `${old.executionArn}-renewed`, createdAt: clock, lastUpdatedAt: clock };
      await store().create(renewed);
      await expect(store().update(old, { status: TaskStatus.Failed, at: clock })).rejects.toBeInstanceOf(
        TaskNotFoundError,
      );
      expect(await store().claimRefresh(old, clock + 10_000, 1_000)).toBe(false);
      expect((await store().get(old.owner, old.taskId))?.status).toBe('working');
    });

    it('throws TaskNotFoundError for a task that is gone', async () => {
      await expect(store().update(newTask(), { status: TaskStatus.Failed, at: clock })).rejects.toBeInstanceOf(
        TaskNotFoundError,
      );
    });

    it('clears a stale status message when the new status has none', async () => {
      // (input_required -> working is the answer path's alone, see the input-request store; submitted -> working is
      // not.)
      const task = newTask({ status: TaskStatus.Submitted, statusMessage: 'starting' });
      await store().create(task);
      const back = await store().update(task, { status: TaskStatus.Working, at: clock });
      expect(back.statusMessage).toBeUndefined();
    });
  });

  describe('claimRefresh', () => {
    it('grants one refresh per interval across concurrent callers', async () => {
      const task = newTask();
      await store().create(task);
      const claims = await Promise.all([1, 2, 3, 4].map(() => store().claimRefresh(task, clock + 1_000, 1_000)));
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await store().claimRefresh(task, clock + 1_500, 1_000)).toBe(false);
      expect(await store().claimRefresh(task, clock + 2_000, 1_000)).toBe(true);
    });

    it('grants none for a terminal task', async () => {
      const task = newTask();
      await store().create(task);
      await store().update(task, { status: TaskStatus.Failed, at: clock });
      expect(await store().claimRefresh(task, clock + 10_000, 1_000)).toBe(false);
    });
  });

  describe('list', () => {
    async function createMany(
      owner: string,
      count: number,
      origin: TaskRecord['origin'] = TaskOrigin.Mcp20251125,
    ): Promise<TaskRecord[]> {
      const tasks: TaskRecord[] = [];
      for (let index = 0; index < count; index++) {
        const task = newTask({ owner, createdAt: clock + index, lastUpdatedAt: clock + index, origin });
        await store().create(task);
        tasks.push(task);
      }
      return tasks;
    }

    async function listAll(owner: string, limit: number): Promise<{ ids: string[]; pages: number }> {
      const ids: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store().list(owner, { limit, ...(cursor ? { cursor } : {}) });
        ids.push(...page.tasks.map((task) => task.taskId));
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
      expect(ids).toEqual(tasks.map((task) => task.taskId).reverse());
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
      const long = newTask({ owner, retention: { ms: 10 ** 9, clock: RetentionClock.FromCreation } });
      await store().create(long);
      clock += 120_000;
      expect((await listAll(owner, 10)).ids).toEqual([long.taskId]);
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
      const task = newTask({ requestId: '42' });
      await store().create(task);
      expect((await store().findByRequest(task.owner, '42'))?.taskId).toBe(task.taskId);
      expect(await store().findByRequest('intruder', '42')).toBeNull();
      expect(await store().findByRequest(task.owner, '43')).toBeNull();
    });

    it('does not lead to a later task that reuses the ID of a deleted one', async () => {
      const first = newTask({ requestId: '"first"' });
      await store().create(first);
      await store().delete(first.owner, first.taskId);
      await store().create({ ...first, requestId: '"second"' });
      expect(await store().findByRequest(first.owner, '"first"')).toBeNull();
      expect((await store().findByRequest(first.owner, '"second"'))?.taskId).toBe(first.taskId);
    });

    it('writes no request mapping when the task itself is refused', async () => {
      const first = newTask({ requestId: '7' });
      await store().create(first);
      await expect(store().create({ ...first, requestId: '8' })).rejects.toBeInstanceOf(TaskAlreadyExistsError);
      expect(await store().findByRequest(first.owner, '8')).toBeNull();
    });
  });

  describe('getByKey', () => {
    it('finds a task by its key whoever owns it', async () => {
      const task = newTask();
      await store().create(task);
      expect(await store().getByKey(taskKey(task.owner, task.taskId))).toEqual(task);
      expect(await store().getByKey(taskKey('someone-else', task.taskId))).toBeNull();
    });

    it('finds no task past its retention, though its item is still there', async () => {
      const task = newTask({ retention: { ms: 10_000, clock: RetentionClock.FromCreation } });
      await store().create(task);
      clock += 10_000;
      expect(await store().getByKey(taskKey(task.owner, task.taskId))).toBeNull();
    });
  });

  // What every read shows its reader: the owner's live task; nothing of another owner's task, even when its item sits
  // under the reader's own key; an expired task only to get, as expired.
  describe('visibility', () => {
    /** A task item of `owner` planted under `reader`'s key and in `reader`'s listing: the fault injected. */
    async function plantForeignItem(reader: string, owner: string): Promise<TaskRecord> {
      const task = newTask({ owner, requestId: '"planted"' });
      await store().create(task);
      const { Item } = await documentClient().send(
        new GetCommand({
          TableName: tableName,
          Key: { [PARTITION_KEY]: taskKey(owner, task.taskId) },
          ConsistentRead: true,
        }),
      );
      const planted = { ...Item, [PARTITION_KEY]: taskKey(reader, task.taskId), [OWNER_INDEX_PARTITION_KEY]: reader };
      await documentClient().send(new PutCommand({ TableName: tableName, Item: planted }));
      return task;
    }

    it("shows a reader no task of another owner's, even one under the reader's own key: get, list and delete find none", async () => {
      const reader = `reader-${randomUUID()}`;
      const task = await plantForeignItem(reader, `owner-${randomUUID()}`);
      expect(await store().get(reader, task.taskId)).toBeNull();
      expect((await store().list(reader, { limit: 10 })).tasks).toEqual([]);
      expect(await store().delete(reader, task.taskId)).toBe(false);
      // The owner's own task is untouched by all of it.
      expect(await store().get(task.owner, task.taskId)).toEqual(task);
    });

    it('shows an expired task to get alone, as expired; findByRequest, list and delete find none', async () => {
      const task = newTask({ requestId: '"soon-gone"', retention: { ms: 10_000, clock: RetentionClock.FromCreation } });
      await store().create(task);
      clock += 10_000;
      await expect(store().get(task.owner, task.taskId)).rejects.toMatchObject({ name: TaskExpiredError.name, task });
      expect(await store().findByRequest(task.owner, '"soon-gone"')).toBeNull();
      expect((await store().list(task.owner, { limit: 10 })).tasks).toEqual([]);
      expect(await store().delete(task.owner, task.taskId)).toBe(false);
    });

    it('lists a task as its summary: what the owner index holds, without output, input digest, request ID or step', async () => {
      const { output, requestId, inputDigest, ...summary } = newTask({
        requestId: '"listed"',
        output: '{"ok":true}',
        lastCheckedAt: clock,
        statusMessage: 'almost',
      });
      const task = { ...summary, output, requestId, inputDigest };
      await store().create(task);
      await store().recordCurrentStep(task, 'Review');
      expect((await store().get(task.owner, task.taskId))?.currentStep).toBe('Review');
      expect((await store().list(task.owner, { limit: 10 })).tasks).toEqual([summary]);
    });
  });

  describe('delete', () => {
    it('removes the task and reports whether there was one', async () => {
      const task = newTask();
      await store().create(task);
      expect(await store().delete('intruder', task.taskId)).toBe(false);
      expect(await store().delete(task.owner, task.taskId)).toBe(true);
      expect(await store().get(task.owner, task.taskId)).toBeNull();
      expect(await store().delete(task.owner, task.taskId)).toBe(false);
    });
  });

  describe('countCreation', () => {
    const window = { start: 1_700_000_040_000, ms: 60_000 };

    it('counts up to the limit in a window and refuses past it', async () => {
      const owner = `owner-${randomUUID()}`;
      const counted = await Promise.all([1, 2, 3, 4].map(() => store().countCreation(owner, window, 3)));
      expect(counted.filter(Boolean)).toHaveLength(3);
      expect(await store().countCreation(owner, window, 3)).toBe(false);
    });

    it('starts every window and every owner afresh', async () => {
      const owner = `owner-${randomUUID()}`;
      expect(await store().countCreation(owner, window, 1)).toBe(true);
      expect(await store().countCreation(owner, window, 1)).toBe(false);
      expect(await store().countCreation(owner, { ...window, start: window.start + window.ms }, 1)).toBe(true);
      expect(await store().countCreation(`owner-${randomUUID()}`, window, 1)).toBe(true);
    });
  });

  describe('active-task slots', () => {
    it('holds at most the limit, atomically, across store instances', async () => {
      const owner = `owner-${randomUUID()}`;
      const held = await Promise.all([1, 2, 3, 4, 5].map((n) => store().holdActiveSlot(owner, `t${n}`, 3)));
      expect(held.filter(Boolean)).toHaveLength(3);
    });

    it('counts a task once however often it holds its slot', async () => {
      const owner = `owner-${randomUUID()}`;
      expect(await store().holdActiveSlot(owner, 'a', 2)).toBe(true);
      expect(await store().holdActiveSlot(owner, 'a', 2)).toBe(true);
      expect(await store().holdActiveSlot(owner, 'b', 2)).toBe(true);
      expect(await store().holdActiveSlot(owner, 'a', 2)).toBe(true);
      expect(await store().holdActiveSlot(owner, 'c', 2)).toBe(false);
    });

    it('frees a slot on release, and a second release of it frees no other', async () => {
      const owner = `owner-${randomUUID()}`;
      await store().holdActiveSlot(owner, 'a', 2);
      await store().holdActiveSlot(owner, 'b', 2);
      await store().releaseActiveSlot(owner, 'a');
      await store().releaseActiveSlot(owner, 'a');
      expect(await store().holdActiveSlot(owner, 'c', 2)).toBe(true);
      expect(await store().holdActiveSlot(owner, 'd', 2)).toBe(false);
    });

    it('releases harmlessly for an owner that holds nothing', async () => {
      await expect(store().releaseActiveSlot(`owner-${randomUUID()}`, 'none')).resolves.toBeUndefined();
    });

    it('reconciles by freeing the slots of terminal, deleted and missing tasks, and keeps the active ones', async () => {
      const owner = `owner-${randomUUID()}`;
      const active = newTask({ owner });
      const finished = newTask({ owner });
      const deleted = newTask({ owner });
      for (const task of [active, finished, deleted]) {
        await store().create(task);
        expect(await store().holdActiveSlot(owner, task.taskId, 4)).toBe(true);
      }
      expect(await store().holdActiveSlot(owner, 'never-stored', 4)).toBe(true);
      await store().update(finished, { status: TaskStatus.Completed, output: '{}', at: clock });
      await store().delete(owner, deleted.taskId);
      expect(await store().reconcileActiveSlots(owner)).toBe(3);
      expect(await store().holdActiveSlot(owner, 'b', 4)).toBe(true);
      expect(await store().holdActiveSlot(owner, 'c', 4)).toBe(true);
      expect(await store().holdActiveSlot(owner, 'd', 4)).toBe(true);
      expect(await store().holdActiveSlot(owner, 'e', 4)).toBe(false);
      expect(await store().reconcileActiveSlots(`owner-${randomUUID()}`)).toBe(0);
    });
  });
});
