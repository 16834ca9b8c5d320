// The expiry sweep's own logic, with the in-memory executor and quotas and a scripted sweep store (each test sets what
// it finds and answers; the DynamoDB sweep store's conditions are tested in test/integration/expiry-sweep.test.ts):
// claim, stop, finish, free the slot and audit, in that order; every other outcome counted and nothing more done.
import { describe, expect, it, vi } from 'vitest';
import type { TaskMetrics } from '../../../lambda/core/task-metrics.js';
import {
  EXPIRED_STATUS_MESSAGE,
  EXPIRED_STOP_REASON,
  ExpirySweep,
  type ExpirySweepSettings,
} from '../../../lambda/service/expiry-sweep-service.js';
import type { TaskExecutor } from '../../../lambda/executor/task-executor.js';
import { workflowOfTool } from '../../../lambda/contract/tool-definition.js';
import type { ExpiredTask, ExpirySweepStore } from '../../../lambda/store/expiry-sweep-store.js';
import { bind } from '../../support/bind-methods.js';
import { inMemoryBackend, TEST_TOOLS, useFakeTime, type InMemoryBackend } from '../../support/in-memory-backend.js';

useFakeTime();

/** A sweep store whose answers a test scripts: it finds `tasks`, and claims and finishes each unless told otherwise. */
function scriptedStore(
  tasks: readonly ExpiredTask[],
  answers: { claim?: (task: ExpiredTask) => boolean; finish?: (task: ExpiredTask) => Promise<boolean> | boolean } = {},
) {
  const calls = {
    find: [] as { now: number; limit: number }[],
    claim: [] as { taskId: string; now: number; until: number }[],
    finish: [] as { taskId: string; status: string; statusMessage: string; at: number }[],
  };
  const store: ExpirySweepStore = {
    findExpiredActive: async (now, limit) => (calls.find.push({ now, limit }), tasks.slice(0, limit)),
    claim: async (task, now, until) => (
      calls.claim.push({ taskId: task.taskId, now, until }),
      answers.claim?.(task) ?? true
    ),
    finish: async (task, change) => (
      calls.finish.push({ taskId: task.taskId, ...change }),
      answers.finish?.(task) ?? true
    ),
  };
  return { store, calls };
}

/** `count` running executions, each an expired task of `owner` that holds an active-task slot. */
async function expiredTasks(b: InMemoryBackend, count: number, owner = 'sleeper'): Promise<ExpiredTask[]> {
  const tool = TEST_TOOLS[1]!;
  return Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const taskId = `expired-${index}`;
      const { executionArn } = await b.executor.start({
        workflow: workflowOfTool(tool),
        executionName: taskId,
        input: '{}',
      });
      await b.quotas.holdActiveSlot(owner, taskId, 100);
      return { owner, taskId, toolName: tool.name, executionArn, status: 'working', expiredAt: Date.now() - 1 };
    }),
  );
}

const sweep = (
  b: InMemoryBackend,
  store: ExpirySweepStore,
  extra: { executor?: TaskExecutor; metrics?: TaskMetrics; settings?: Partial<ExpirySweepSettings> } = {},
) =>
  new ExpirySweep({
    store,
    slots: b.quotas,
    executor: extra.executor ?? b.executor,
    logger: b.logger,
    ...(extra.metrics ? { metrics: extra.metrics } : {}),
    ...(extra.settings ? { settings: extra.settings } : {}),
  });

describe('ExpirySweep', () => {
  it('stops the execution of each expired task, finishes it cancelled, frees its slot and audits it once', async () => {
    const b = inMemoryBackend();
    const tasks = await expiredTasks(b, 2);
    const { store, calls } = scriptedStore(tasks);
    const counted: string[] = [];
    const metrics: TaskMetrics = {
      taskEvent: (event, tool) => void counted.push(`${event} ${tool}`),
      inputAnswered: () => {},
    };

    expect(await sweep(b, store, { metrics }).run()).toEqual({
      found: 2,
      expired: 2,
      skipped: 0,
      failed: 0,
      deferred: 0,
    });

    for (const task of tasks)
      expect(b.executor.execution(task.executionArn)).toMatchObject({ status: 'ABORTED', ...EXPIRED_STOP_REASON });
    expect(calls.claim).toEqual(
      tasks.map((task) => ({ taskId: task.taskId, now: Date.now(), until: Date.now() + 60_000 })),
    );
    expect(calls.finish).toEqual(
      tasks.map((task) => ({
        taskId: task.taskId,
        status: 'cancelled',
        statusMessage: EXPIRED_STATUS_MESSAGE,
        at: Date.now(),
      })),
    );
    expect(await b.quotas.reconcileActiveSlots('sleeper')).toBe(0);
    expect(await b.quotas.holdActiveSlot('sleeper', 'new', 1)).toBe(true);
    expect(b.logger.audits()).toEqual(
      tasks.map((task) => ({
        event: 'task.expired',
        owner: 'sleeper',
        taskId: task.taskId,
        tool: 'analyze_documents',
        outcome: 'cancelled',
      })),
    );
    expect(counted).toEqual(['task.expired analyze_documents', 'task.expired analyze_documents']);
  });

  it('asks the store for at most maxTasksPerRun tasks expired by now, and logs nothing when it finds none', async () => {
    const b = inMemoryBackend();
    const { store, calls } = scriptedStore([]);
    expect(await sweep(b, store, { settings: { maxTasksPerRun: 7 } }).run()).toMatchObject({ found: 0 });
    expect(calls.find).toEqual([{ now: Date.now(), limit: 7 }]);
    expect(b.logger.records).toEqual([]);
  });

  it('leaves a task another sweep holds alone: no stop, no write, no audit', async () => {
    const b = inMemoryBackend();
    const [held] = await expiredTasks(b, 1);
    const { store, calls } = scriptedStore([held!], { claim: () => false });
    expect(await sweep(b, store).run()).toMatchObject({ found: 1, expired: 0, skipped: 1 });
    expect(b.executor.calls.stop).toBe(0);
    expect(calls.finish).toEqual([]);
    expect(b.logger.audits()).toEqual([]);
  });

  it('counts a task that ended meanwhile as skipped, without auditing it or freeing its slot', async () => {
    const b = inMemoryBackend();
    const [ended] = await expiredTasks(b, 1);
    const { store } = scriptedStore([ended!], { finish: () => false });
    expect(await sweep(b, store).run()).toMatchObject({ found: 1, expired: 0, skipped: 1 });
    expect(b.logger.audits()).toEqual([]);
    expect(await b.quotas.holdActiveSlot('sleeper', 'new', 1)).toBe(false);
  });

  it('goes on with the other tasks when one fails, logging it; the failed one was stopped first', async () => {
    const b = inMemoryBackend();
    const [failing, other] = await expiredTasks(b, 2);
    const { store } = scriptedStore([failing!, other!], {
      finish: (task) => (task.taskId === failing!.taskId ? Promise.reject(new Error('Throttled')) : true),
    });
    expect(await sweep(b, store).run()).toMatchObject({ found: 2, expired: 1, failed: 1 });
    expect(b.logger.warnings()).toContain('Could not stop an expired task');
    expect(b.executor.execution(failing!.executionArn).status).toBe('ABORTED');
    expect(b.logger.audits().map((record) => record.taskId)).toEqual([other!.taskId]);
  });

  it('writes nothing for a task whose stop fails, leaving it to a later run', async () => {
    const b = inMemoryBackend();
    const [task] = await expiredTasks(b, 1);
    const { store, calls } = scriptedStore([task!]);
    const down: TaskExecutor = {
      ...bind<TaskExecutor>(b.executor),
      stop: async () => Promise.reject(new Error('Down')),
    };
    expect(await sweep(b, store, { executor: down }).run()).toMatchObject({ found: 1, failed: 1 });
    expect(calls.finish).toEqual([]);
  });

  it('fails nothing when the slot cannot be freed: the task still expired, the lost release logged', async () => {
    const b = inMemoryBackend();
    const [task] = await expiredTasks(b, 1);
    const { store } = scriptedStore([task!]);
    const expirySweep = new ExpirySweep({
      store,
      slots: { releaseActiveSlot: async () => Promise.reject(new Error('Throttled')) },
      executor: b.executor,
      logger: b.logger,
    });
    expect(await expirySweep.run()).toMatchObject({ expired: 1, failed: 0 });
    expect(b.logger.warnings()).toEqual(["Could not free an expired task's active-task slot"]);
    expect(b.logger.audits()).toHaveLength(1);
  });

  it('starts no task once its deadline has passed, leaving them for the next run', async () => {
    const b = inMemoryBackend();
    const tasks = await expiredTasks(b, 3);
    const slowStops: TaskExecutor = {
      ...bind<TaskExecutor>(b.executor),
      stop: async (arn, reason) => (
        await new Promise((resolve) => setTimeout(resolve, 1_000)),
        b.executor.stop(arn, reason)
      ),
    };
    const run = sweep(b, scriptedStore(tasks).store, { executor: slowStops, settings: { concurrency: 1 } }).run({
      deadline: Date.now() + 1_500,
    });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await run).toMatchObject({ found: 3, expired: 2, deferred: 1 });
  });

  it('handles at most `concurrency` tasks at once', async () => {
    const b = inMemoryBackend();
    const tasks = await expiredTasks(b, 7);
    let inFlight = 0;
    let most = 0;
    const counting: TaskExecutor = {
      ...bind<TaskExecutor>(b.executor),
      stop: async (arn, reason) => {
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 100));
        inFlight--;
        return b.executor.stop(arn, reason);
      },
    };
    const run = sweep(b, scriptedStore(tasks).store, { executor: counting, settings: { concurrency: 3 } }).run();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await run).toMatchObject({ found: 7, expired: 7 });
    expect(most).toBe(3);
  });
});
