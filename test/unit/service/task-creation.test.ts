// Creating a task on in-memory parts: the record first, then exactly one execution; refusals, lost answers, crashes
// between the two writes, and client-made task IDs (SEP-1686) racing a cancel or retried.
import { describe, expect, it, vi } from 'vitest';
import {
  ExecutionStartError,
  InvalidToolArgumentsError,
  TaskAlreadyExistsError,
  ToolNotFoundError,
} from '../../../lambda/core/errors.js';
import { FIRST_CHECK_AFTER_MS, TaskOrigin } from '../../../lambda/core/task.js';
import type { TaskExecutor } from '../../../lambda/executor/task-executor.js';
import type { TaskStore } from '../../../lambda/store/task-store.js';
import { bind } from '../../support/bind-methods.js';
import {
  analyze,
  executionOf,
  hugeDocuments,
  inMemoryBackend,
  settle,
  useFakeTime,
  type InMemoryBackend,
} from '../../support/in-memory-backend.js';

useFakeTime();

/** The executor with a start that never reaches Step Functions (the process died, or the network). */
const crashing = (b: InMemoryBackend): TaskExecutor => ({
  ...bind<TaskExecutor>(b.executor),
  start: async () => Promise.reject(new Error('process crashed')),
});

/** The executor with a start that lands but whose answer is lost. */
const lossy = (b: InMemoryBackend): TaskExecutor => ({
  ...bind<TaskExecutor>(b.executor),
  start: async (request) => (await b.executor.start(request), Promise.reject(new Error('socket hang up'))),
});

describe('creating a task', () => {
  it('stores the task and starts exactly one execution for it, with the arguments as input', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(analyze('creator'));
    // Submitted until a poll or a status event sees the execution running.
    expect(task.status).toBe('submitted');
    expect(await b.store.get('creator', task.taskId)).toMatchObject({ executionArn: task.executionArn });
    expect(b.executor.executions()).toHaveLength(1);
    expect(JSON.parse(executionOf(b, task).input)).toEqual({ documents: ['one two three'], reviewSeconds: 60 });
  });

  it('makes task IDs of at least 128 random bits', async () => {
    const b = inMemoryBackend();
    const ids = await Promise.all([1, 2, 3].map(async () => (await b.service().createTask(analyze('ids'))).taskId));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(3);
  });

  it('refuses an unknown tool, or arguments its schema refuses, storing and starting nothing', async () => {
    const b = inMemoryBackend();
    await expect(b.service().createTask({ ...analyze('picky'), toolName: 'nope' })).rejects.toBeInstanceOf(
      ToolNotFoundError,
    );
    await expect(b.service().createTask({ ...analyze('picky'), arguments: { documents: [] } })).rejects.toBeInstanceOf(
      InvalidToolArgumentsError,
    );
    expect((await b.store.list('picky', { limit: 10 })).tasks).toEqual([]);
    expect(b.executor.calls.start).toBe(0);
  });

  it('keeps the retention asked for within the least and the most allowed, counted as the dialect counts it', async () => {
    const b = inMemoryBackend({ settings: { minTtlMs: 1_000, maxTtlMs: 3_600_000, defaultTtlMs: 60_000 } });
    const retention = async (extra: Parameters<typeof analyze>[1]) =>
      (await b.service().createTask(analyze('ttl', extra))).retention;
    expect(await retention({ requestedRetentionMs: 10 })).toEqual({ ms: 1_000, clock: 'creation' });
    expect(await retention({ requestedRetentionMs: 1e12 })).toEqual({ ms: 3_600_000, clock: 'creation' });
    expect(await retention({})).toEqual({ ms: 60_000, clock: 'creation' });
    expect(await retention({ requestedRetentionMs: 1_500.2 })).toEqual({ ms: 1_501, clock: 'creation' });
    expect(await retention({ origin: TaskOrigin.Sep1686, taskId: 'kept', requestedRetentionMs: 5_000 })).toEqual({
      ms: 5_000,
      clock: 'completion',
    });
  });

  it('starts nothing when the task cannot be stored', async () => {
    const b = inMemoryBackend();
    const failingStore: TaskStore = {
      ...bind<TaskStore>(b.store),
      create: async () => Promise.reject(new Error('ProvisionedThroughputExceededException')),
    };
    await expect(b.service({ store: failingStore }).createTask(analyze('no-store'))).rejects.toThrow(
      'ProvisionedThroughputExceeded',
    );
    expect(b.executor.calls.start).toBe(0);
  });

  it('removes the task and frees its slot when Step Functions refuses the start for good', async () => {
    const b = inMemoryBackend({ executor: { stateMachineArns: [] }, settings: { maxActiveTasksPerOwner: 1 } });
    await expect(b.service().createTask(analyze('refused'))).rejects.toMatchObject({
      name: 'ExecutionStartError',
      fault: 'configuration',
    });
    expect((await b.store.list('refused', { limit: 10 })).tasks).toEqual([]);
    // Refused for the same reason, not for the limit: the first refusal gave its slot back.
    await expect(b.service().createTask(analyze('refused'))).rejects.toBeInstanceOf(ExecutionStartError);
  });

  it('refuses at once an input Step Functions will not take, and keeps no task', async () => {
    const b = inMemoryBackend();
    const create = b.service().createTask(analyze('too-big', { arguments: { documents: hugeDocuments() } }));
    await expect(create).rejects.toMatchObject({ name: 'ExecutionStartError', fault: 'input' });
    expect((await b.store.list('too-big', { limit: 10 })).tasks).toEqual([]);
  });

  it('stops an execution an earlier attempt may have started when the start is refused for capacity', async () => {
    const b = inMemoryBackend();
    const crowded: TaskExecutor = {
      ...bind<TaskExecutor>(b.executor),
      start: async (request) => {
        await b.executor.start(request);
        throw new ExecutionStartError('ExecutionLimitExceeded', 'capacity');
      },
    };
    await expect(b.service({ executor: crowded }).createTask(analyze('crowded'))).rejects.toMatchObject({
      fault: 'capacity',
    });
    expect(b.executor.executions()).toMatchObject([{ status: 'ABORTED', error: 'TaskAbandoned' }]);
    expect((await b.store.list('crowded', { limit: 10 })).tasks).toEqual([]);
  });

  it('keeps the task when the start answer is lost after the execution started, and the task then completes', async () => {
    const b = inMemoryBackend();
    const task = await b.service({ executor: lossy(b) }).createTask(analyze('lossy'));
    expect(b.logger.warnings()).toContain(
      'Execution start outcome unknown; the status events or the reconciler settle the task',
    );
    b.executor.succeed(task.executionArn, { words: 3 });
    await b.statusEvent(task);
    const finished = await settle(b.service().waitForTerminal('lossy', task.taskId, { timeoutMs: 60_000 }));
    expect(finished.status).toBe('completed');
    expect(b.executor.executions()).toHaveLength(1);
  });

  it('fails a task whose execution never started once the start grace period has passed', async () => {
    // A crash between the task write and the start looks the same: a task whose execution does not exist.
    const b = inMemoryBackend({ settings: { startGraceMs: 30_000 } });
    const task = await b.service({ executor: crashing(b) }).createTask(analyze('crashed'));
    const withinGrace = await settle(b.service().waitForTerminal('crashed', task.taskId, { timeoutMs: 20_000 }));
    expect(withinGrace.status).toBe('submitted');
    // The reconciler's first check, past the grace: the execution is not there.
    await vi.advanceTimersByTimeAsync(FIRST_CHECK_AFTER_MS);
    await b.service().reconcileDue({ maxChecks: 10 });
    expect(await b.service().getTask('crashed', task.taskId)).toMatchObject({
      status: 'failed',
      statusMessage: expect.stringMatching(/was not found/),
    });
  });
});

describe('a client-made task ID (SEP-1686)', () => {
  const sepCall = (owner: string, taskId: string, text: string) => ({
    owner,
    toolName: 'text_stats',
    arguments: { text },
    origin: TaskOrigin.Sep1686,
    taskId,
  });
  const analyzeSep = (owner: string, taskId: string) => analyze(owner, { origin: TaskOrigin.Sep1686, taskId });

  it('repairs a first attempt that died between its two writes when the same call is retried, with one execution', async () => {
    const b = inMemoryBackend();
    const first = await b.service({ executor: crashing(b) }).createTask(sepCall('retrier', 'retry-1', 'same words'));
    expect(await b.executor.describe(first.executionArn)).toBeNull();
    await expect(b.service().createTask(sepCall('retrier', 'retry-1', 'same words'))).rejects.toBeInstanceOf(
      TaskAlreadyExistsError,
    );
    expect(await b.executor.describe(first.executionArn)).toMatchObject({ status: 'RUNNING' });
    expect(b.executor.executions()).toHaveLength(1);
  });

  it('never starts the work of a different call that reuses a task ID', async () => {
    const b = inMemoryBackend();
    const first = await b.service({ executor: crashing(b) }).createTask(sepCall('reuser', 'reused-1', 'original'));
    await expect(b.service().createTask(sepCall('reuser', 'reused-1', 'different'))).rejects.toBeInstanceOf(
      TaskAlreadyExistsError,
    );
    expect(await b.executor.describe(first.executionArn)).toBeNull();
    expect(b.executor.calls.start).toBe(0);
  });

  it('stops the execution when the task is cancelled before its start lands', async () => {
    const b = inMemoryBackend();
    // The client's cancellation wins the race against the start: it arrives while the start is in flight.
    const racing: TaskExecutor = {
      ...bind<TaskExecutor>(b.executor),
      start: async (request) => (await b.service().cancelTask('racer', 'race-1'), b.executor.start(request)),
    };
    const task = await b.service({ executor: racing }).createTask(analyzeSep('racer', 'race-1'));
    expect(executionOf(b, task)).toMatchObject({ status: 'ABORTED', error: 'TaskWithdrawn' });
  });

  it('stops the execution when the task is deleted before its start lands', async () => {
    const b = inMemoryBackend();
    const racing: TaskExecutor = {
      ...bind<TaskExecutor>(b.executor),
      start: async (request) => (await b.service().deleteTask('deleter', 'race-2'), b.executor.start(request)),
    };
    const task = await b.service({ executor: racing }).createTask(analyzeSep('deleter', 'race-2'));
    expect(executionOf(b, task)).toMatchObject({ status: 'ABORTED', error: 'TaskWithdrawn' });
  });

  /** The store with reads that fail `failures` times once the task is written (a brief DynamoDB outage). */
  function readsFailingAfterCreate(b: InMemoryBackend, failures: number): TaskStore & { failed: () => number } {
    let created = false;
    let failed = 0;
    return {
      ...bind<TaskStore>(b.store),
      create: async (task) => {
        await b.store.create(task);
        created = true;
      },
      get: async (owner, taskId) => {
        if (created && failed < failures) {
          failed++;
          throw new Error('ProvisionedThroughputExceededException');
        }
        return b.store.get(owner, taskId);
      },
      failed: () => failed,
    };
  }

  it('keeps the execution running when reading the task right after the start fails briefly', async () => {
    const b = inMemoryBackend();
    const flaky = readsFailingAfterCreate(b, 2);
    const task = await settle(b.service({ store: flaky }).createTask(analyzeSep('brief-outage', 'brief-1')));
    expect(executionOf(b, task).status).toBe('RUNNING');
    expect(flaky.failed()).toBe(2);
    expect((await b.store.get('brief-outage', 'brief-1'))?.status).toBe('submitted');
  });

  it('keeps the execution running when the task cannot be read at all after the start', async () => {
    const b = inMemoryBackend();
    const down = readsFailingAfterCreate(b, Number.POSITIVE_INFINITY);
    const task = await settle(b.service({ store: down }).createTask(analyzeSep('long-outage', 'long-1')));
    expect(executionOf(b, task).status).toBe('RUNNING');
    expect(down.failed()).toBe(4);
    expect(b.logger.warnings()).toContain(
      'Could not read the task after starting its execution; leaving the execution running',
    );
    expect((await b.store.get('long-outage', 'long-1'))?.status).toBe('submitted');
  });

  it('gives a task ID used again after deletion a new execution and its own result', async () => {
    const b = inMemoryBackend();
    const tasks = b.service();
    const first = await tasks.createTask(sepCall('reuse', 'again-1', 'one two three'));
    b.executor.succeed(first.executionArn, { words: 3 });
    await b.statusEvent(first);
    await settle(tasks.waitForTerminal('reuse', 'again-1', { timeoutMs: 30_000 }));
    await tasks.deleteTask('reuse', 'again-1');
    const second = await tasks.createTask(sepCall('reuse', 'again-1', 'four'));
    expect(second.executionArn).not.toBe(first.executionArn);
    b.executor.succeed(second.executionArn, { words: 1 });
    await b.statusEvent(second);
    const done = await settle(tasks.waitForTerminal('reuse', 'again-1', { timeoutMs: 30_000 }));
    expect((await tasks.resultOf(done))?.structuredContent).toEqual({ words: 1 });
  });
});
