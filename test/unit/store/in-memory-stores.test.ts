// The in-memory stores held to the same contract suites as the DynamoDB stores, on a clock the tests move by hand; and
// what only an in-memory store could get wrong: sharing its state with a caller.
import { describe, expect, it } from 'vitest';
import { inputKeyFor } from '../../../lambda/core/input-request.js';
import type { TaskRecord } from '../../../lambda/core/task.js';
import { taskKey } from '../../../lambda/core/task-key.js';
import { TaskStatus } from '../../../lambda/core/task-status.js';
import { InMemoryInputRequests } from '../../../lambda/store/in-memory-input-requests.js';
import { InMemoryOwnerQuotas } from '../../../lambda/store/in-memory-owner-quotas.js';
import { InMemoryProgressStore } from '../../../lambda/store/in-memory-progress-store.js';
import { InMemoryTaskStore } from '../../../lambda/store/in-memory-task-store.js';
import { inputRequestStoreContract } from '../../contract/input-request-store-contract.js';
import { ownerQuotasContract } from '../../contract/owner-quotas-contract.js';
import { progressStoreContract } from '../../contract/progress-store-contract.js';
import { ManualClock, newTask } from '../../contract/task-fixtures.js';
import { taskStoreContract } from '../../contract/task-store-contract.js';

/** A fixed start, far from the real time: nothing here may depend on it. */
const START = Date.UTC(2030, 0, 1);

function stores() {
  const clock = new ManualClock(START);
  const tasks = new InMemoryTaskStore({ clock });
  return { clock, tasks };
}

taskStoreContract('InMemoryTaskStore', () => {
  const { clock, tasks } = stores();
  return { store: tasks, clock };
});

ownerQuotasContract('InMemoryOwnerQuotas', () => {
  const { clock, tasks } = stores();
  return { quotas: new InMemoryOwnerQuotas({ tasks }), tasks, clock };
});

inputRequestStoreContract('InMemoryInputRequests', () => {
  const { clock, tasks } = stores();
  return { inputs: new InMemoryInputRequests(tasks), tasks, clock };
});

progressStoreContract('InMemoryProgressStore', () => {
  const { clock, tasks } = stores();
  return { progress: new InMemoryProgressStore(tasks), tasks, clock };
});

describe('InMemoryTaskStore copies', () => {
  /** A record's fields, writable: what a careless caller might do to a record it holds. */
  type Writable = { -readonly [K in keyof TaskRecord]: TaskRecord[K] };

  it('keeps what was created, whatever the caller then does to the record it passed', async () => {
    const { clock, tasks } = stores();
    const task = newTask(clock);
    await tasks.create(task);
    (task as Writable).status = TaskStatus.Failed;
    (task.retention as { ms: number | null }).ms = 1;
    expect(await tasks.get(task.owner, task.taskId)).toMatchObject({ status: 'working', retention: { ms: 60_000 } });
  });

  it('hands out copies: changing a task read, updated, listed or found changes nothing stored', async () => {
    const { clock, tasks } = stores();
    const task = newTask(clock, { requestId: '1' });
    await tasks.create(task);
    const reads = [
      await tasks.get(task.owner, task.taskId),
      await tasks.getByKey(taskKey(task.owner, task.taskId)),
      await tasks.findByRequest(task.owner, '1'),
      await tasks.update(task, { status: TaskStatus.Completed, output: '{}', at: clock.now() }),
    ];
    for (const read of reads) {
      (read as Writable).toolName = 'tampered';
      (read!.retention as { ms: number | null }).ms = 1;
    }
    const [listed] = (await tasks.list(task.owner, { limit: 1 })).tasks;
    (listed!.retention as { ms: number | null }).ms = 1;
    expect(await tasks.get(task.owner, task.taskId)).toMatchObject({
      toolName: 'text_stats',
      retention: { ms: 60_000 },
    });
  });

  it('shows input requests without the token the input-request store keeps on the same record', async () => {
    const { clock, tasks } = stores();
    const task = newTask(clock);
    await tasks.create(task);
    const key = taskKey(task.owner, task.taskId);
    const request = { method: 'roots/list', params: {} } as const;
    const ask = { key: inputKeyFor('secret-token'), request, taskToken: 'secret-token', askedAt: clock.now() };
    await new InMemoryInputRequests(tasks).record(key, task.executionArn, ask);
    for (const read of [await tasks.get(task.owner, task.taskId), await tasks.getByKey(key)])
      expect(JSON.stringify(read)).not.toContain('secret-token');
  });
});
