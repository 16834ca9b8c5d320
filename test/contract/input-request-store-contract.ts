// The InputRequestStore contract (lambda/store/input-request-store.ts) as one suite, run on every implementation:
// DynamoDB Local (test/integration/dynamodb-input-requests.test.ts) and in memory (test/unit/store/
// in-memory-stores.test.ts). The requests live on the task, so the suite reads them back through the task store.
import { beforeEach, describe, expect, it } from 'vitest';
import { DELIVERY_LEASE_MS, inputKeyFor, type InputRequestMessage } from '../../lambda/core/input-request.js';
import { RetentionClock, TaskOrigin, type TaskRecord } from '../../lambda/core/task.js';
import { taskKey } from '../../lambda/core/task-key.js';
import { TaskStatus } from '../../lambda/core/task-status.js';
import type { InputRequestStore } from '../../lambda/store/input-request-store.js';
import type { TaskStore } from '../../lambda/store/task-store.js';
import { newTask, type MakeFixture, type ManualClock } from './task-fixtures.js';

/** The input-request store, and the task store whose tasks carry its requests. */
export interface InputRequestStoreFixture {
  readonly inputs: InputRequestStore;
  readonly tasks: TaskStore;
  readonly clock: ManualClock;
}

const APPROVE: InputRequestMessage = {
  method: 'elicitation/create',
  params: { message: 'Approve?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } },
};

export function inputRequestStoreContract(name: string, make: MakeFixture<InputRequestStoreFixture>): void {
  describe(`${name} (InputRequestStore contract)`, () => {
    let fixture: InputRequestStoreFixture;
    beforeEach(async () => {
      fixture = await make();
    });
    const inputs = () => fixture.inputs;
    const now = () => fixture.clock.now();

    async function storedTask(status: TaskStatus = TaskStatus.Working): Promise<TaskRecord & { key: string }> {
      const task = newTask(fixture.clock, {
        toolName: 'refund_order',
        origin: TaskOrigin.TasksExtension,
        status,
        retention: { ms: 600_000, clock: RetentionClock.FromCreation },
      });
      await fixture.tasks.create(task);
      return { ...task, key: taskKey(task.owner, task.taskId) };
    }
    const ask = (token: string) => ({
      key: inputKeyFor(token),
      request: APPROVE,
      taskToken: token,
      askedAt: now(),
      deadlineAt: now() + 60_000,
    });
    const read = async (task: TaskRecord) => (await fixture.tasks.get(task.owner, task.taskId))!;

    it('records a request on the task and moves it to input_required; a read shows it without the token', async () => {
      const task = await storedTask();
      expect(await inputs().record(task.key, task.executionArn, ask('token-1'))).toBe(true);
      const stored = await read(task);
      expect(stored.status).toBe(TaskStatus.InputRequired);
      expect(stored.inputRequests).toEqual({
        [inputKeyFor('token-1')]: {
          key: inputKeyFor('token-1'),
          request: APPROVE,
          state: 'outstanding',
          askedAt: now(),
          deadlineAt: now() + 60_000,
        },
      });
      expect(JSON.stringify(stored)).not.toContain('token-1');
    });

    it('keeps several requests at once (Parallel, Map), and a retried ask records nothing twice', async () => {
      const task = await storedTask();
      await Promise.all(['a', 'b', 'c'].map((token) => inputs().record(task.key, task.executionArn, ask(token))));
      expect(await inputs().record(task.key, task.executionArn, ask('a'))).toBe(true);
      expect(Object.keys((await read(task)).inputRequests!)).toHaveLength(3);
    });

    it('refuses to record on a finished task, for another execution, or for no task at all', async () => {
      const task = await storedTask(TaskStatus.Completed);
      expect(await inputs().record(task.key, task.executionArn, ask('x'))).toBe(false);
      expect((await read(task)).inputRequests).toBeUndefined();
      const live = await storedTask();
      expect(await inputs().record(live.key, `${live.executionArn}-other`, ask('x'))).toBe(false);
      expect(await inputs().record(taskKey('nobody', 'nothing'), live.executionArn, ask('x'))).toBe(false);
      expect(await read(live)).toMatchObject({ status: TaskStatus.Working });
    });

    it('hands the token to one claim at a time; a settled request is never claimed again', async () => {
      const task = await storedTask();
      const key = inputKeyFor('t');
      await inputs().record(task.key, task.executionArn, ask('t'));
      const claims = await Promise.all([
        inputs().claim(task, key, 'c1', now()),
        inputs().claim(task, key, 'c2', now()),
      ]);
      expect(claims.filter((claim) => claim.kind === 'claimed')).toEqual([{ kind: 'claimed', taskToken: 't' }]);
      expect(claims.filter((claim) => claim.kind === 'busy')).toHaveLength(1);
      expect((await read(task)).inputRequests![key]!.state).toBe('delivering');
      const holder = claims[0]!.kind === 'claimed' ? 'c1' : 'c2';
      await inputs().settle(task, key, holder, 'answered', now());
      expect(await inputs().claim(task, key, 'c3', now())).toEqual({ kind: 'settled' });
      expect(await inputs().claim(task, 'unknown-key', 'c4', now())).toEqual({ kind: 'unknown' });
    });

    it('knows no request of another execution, or of a task that is gone', async () => {
      const task = await storedTask();
      const key = inputKeyFor('t');
      await inputs().record(task.key, task.executionArn, ask('t'));
      const otherRun = { ...task, executionArn: `${task.executionArn}-other` };
      expect(await inputs().claim(otherRun, key, 'c1', now())).toEqual({ kind: 'unknown' });
      await fixture.tasks.delete(task.owner, task.taskId);
      expect(await inputs().claim(task, key, 'c1', now())).toEqual({ kind: 'unknown' });
    });

    it('reopens a released claim, and lets a lapsed claim be taken over', async () => {
      const task = await storedTask();
      const key = inputKeyFor('t');
      await inputs().record(task.key, task.executionArn, ask('t'));
      const at = now();
      expect((await inputs().claim(task, key, 'c1', at)).kind).toBe('claimed');
      await inputs().release(task, key, 'c1');
      expect((await read(task)).inputRequests![key]!.state).toBe('outstanding');
      expect((await inputs().claim(task, key, 'c2', at)).kind).toBe('claimed');
      expect((await inputs().claim(task, key, 'c3', at + 1)).kind).toBe('busy');
      expect((await inputs().claim(task, key, 'c3', at + DELIVERY_LEASE_MS)).kind).toBe('claimed');
      // The lapsed holder's late settle and release change nothing: its claim is gone.
      await inputs().settle(task, key, 'c2', 'answered', at);
      await inputs().release(task, key, 'c2');
      expect((await read(task)).inputRequests![key]!.state).toBe('delivering');
    });

    it('goes back to working only when the last open request is settled; answered ones stay, marked', async () => {
      const task = await storedTask();
      await inputs().record(task.key, task.executionArn, ask('a'));
      await inputs().record(task.key, task.executionArn, ask('b'));
      await inputs().claim(task, inputKeyFor('a'), 'ca', now());
      await inputs().settle(task, inputKeyFor('a'), 'ca', 'answered', now());
      expect((await read(task)).status).toBe(TaskStatus.InputRequired);
      await inputs().claim(task, inputKeyFor('b'), 'cb', now());
      await inputs().settle(task, inputKeyFor('b'), 'cb', 'expired', now() + 1);
      const stored = await read(task);
      expect(stored).toMatchObject({ status: TaskStatus.Working, lastUpdatedAt: now() + 1 });
      expect(
        Object.values(stored.inputRequests!)
          .map((request) => request.state)
          .sort(),
      ).toEqual(['answered', 'expired']);
    });

    it('settles a request of a finished task without moving the task', async () => {
      const task = await storedTask();
      const key = inputKeyFor('t');
      await inputs().record(task.key, task.executionArn, ask('t'));
      await inputs().claim(task, key, 'c1', now());
      await fixture.tasks.update(task, { status: TaskStatus.Cancelled, at: now() });
      await inputs().settle(task, key, 'c1', 'expired', now());
      expect(await read(task)).toMatchObject({ status: TaskStatus.Cancelled });
      expect((await read(task)).inputRequests![key]!.state).toBe('expired');
    });

    it('is never moved from input_required to working by execution news', async () => {
      const task = await storedTask();
      await inputs().record(task.key, task.executionArn, ask('a'));
      await expect(fixture.tasks.update(task, { status: TaskStatus.Working, at: now() })).rejects.toMatchObject({
        name: 'IllegalTransitionError',
        from: TaskStatus.InputRequired,
      });
      expect((await fixture.tasks.update(task, { status: TaskStatus.Cancelled, at: now() })).status).toBe(
        TaskStatus.Cancelled,
      );
    });
  });
}
