// Plain tool calls on in-memory parts: answered inline within the plain-call bound, handed off as a task when the bound
// passes, their execution stopped when the caller goes away or the store fails, so nothing runs on unseen; and, for a
// caller that can answer questions, rounds of input requests (SEP-2322).
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { StartOutcomeUnknownError } from '../../../lambda/core/errors.js';
import type { TaskRecord } from '../../../lambda/core/task.js';
import type { TaskExecutor } from '../../../lambda/executor/task-executor.js';
import type { TaskStore } from '../../../lambda/store/task-store.js';
import { bind } from '../../support/bind-methods.js';
import {
  ask,
  hugeDocuments,
  inMemoryBackend,
  lastExecution,
  plainResult,
  settle,
  useFakeTime,
  type InMemoryBackend,
} from '../../support/in-memory-backend.js';

useFakeTime();

const slow = { documents: ['x'], reviewSeconds: 60 };

/** The store, keeping each task it is asked to create. */
function keepingCreated(b: InMemoryBackend): { store: TaskStore; created: TaskRecord[] } {
  const created: TaskRecord[] = [];
  return {
    store: { ...bind<TaskStore>(b.store), create: (task) => (created.push(task), b.store.create(task)) },
    created,
  };
}

/** The store, failing every read from the `healthyReads`+1st on. */
function storeDyingAfter(b: InMemoryBackend, healthyReads: number): TaskStore {
  let reads = 0;
  return {
    ...bind<TaskStore>(b.store),
    get: async (owner, taskId) =>
      ++reads > healthyReads ? Promise.reject(new Error('ServiceUnavailable')) : b.store.get(owner, taskId),
  };
}

// A process's first argument check loads Ajv's 2020-12 dialect (tool-registry.ts), a real import that these tests' fake
// clock does not wait for: loaded before them, as a warm instance has it.
beforeAll(async () => {
  await import('ajv/dist/2020.js');
});

describe('a plain tool call', () => {
  it('returns the result when the execution finishes within the bound', async () => {
    const b = inMemoryBackend();
    const call = b.service().runToCompletion('plain', 'text_stats', { text: 'a b c' });
    await vi.advanceTimersByTimeAsync(1_000);
    b.executor.succeed(lastExecution(b).executionArn, { words: 3 });
    await b.statusEvent(lastExecution(b));
    expect(plainResult(await settle(call)).structuredContent).toEqual({ words: 3 });
  });

  it('returns a failed execution as a tool error', async () => {
    const b = inMemoryBackend();
    const call = b.service().runToCompletion('plain', 'text_stats', { text: 'a b c' });
    await vi.advanceTimersByTimeAsync(0);
    b.executor.fail(lastExecution(b).executionArn, 'Boom', 'It broke.');
    await b.statusEvent(lastExecution(b));
    expect(plainResult(await settle(call))).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Execution failed: Boom: It broke.' }],
    });
  });

  it('hands the call off as a listed task when the bound passes first, its execution going on', async () => {
    const b = inMemoryBackend({ settings: { directCallTimeoutMs: 25_000 } });
    const started = Date.now();
    const outcome = await settle(b.service().runToCompletion('bounded', 'analyze_documents', slow), 60_000, 10);
    // Fake time: exactly what the service waited, whatever the machine's load.
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(25_000);
    expect(waited).toBeLessThan(25_100);
    expect(outcome).toMatchObject({ kind: 'handoff', task: { origin: 'handoff', toolName: 'analyze_documents' } });
    const { taskId } = (outcome as { task: TaskRecord }).task;
    expect(lastExecution(b).status).toBe('RUNNING');
    expect((await b.service().listTasks('bounded')).tasks.map((task) => task.taskId)).toEqual([taskId]);
    b.executor.succeed(lastExecution(b).executionArn, { reviewed: true });
    await b.statusEvent(lastExecution(b));
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await b.service().getTask('bounded', taskId)).toMatchObject({ status: 'completed' });
  });

  it('answers the result of a task that ended as the call was handed off', async () => {
    const b = inMemoryBackend({ settings: { directCallTimeoutMs: 5_000 } });
    const store: TaskStore = {
      ...bind<TaskStore>(b.store),
      handOff: async () => {
        // The execution ends, and its status event lands, between the wait's last read and the hand-off.
        b.executor.succeed(lastExecution(b).executionArn, { words: 4 });
        await b.statusEvent(lastExecution(b));
        return false;
      },
    };
    const call = b.service({ store }).runToCompletion('photo-finish', 'text_stats', { text: 'a b c d' });
    expect(plainResult(await settle(call, 10_000, 10)).structuredContent).toEqual({ words: 4 });
  });

  it('stops the execution and says so when the bound passes first with hand-off turned off', async () => {
    const b = inMemoryBackend({ settings: { directCallTimeoutMs: 25_000, handOffPlainCalls: false } });
    const result = plainResult(
      await settle(b.service().runToCompletion('bounded', 'analyze_documents', slow), 60_000, 10),
    );
    expect(result).toMatchObject({
      isError: true,
      content: [
        { type: 'text', text: expect.stringMatching(/did not finish within 25 s, so its execution was stopped/) },
      ],
    });
    expect(lastExecution(b)).toMatchObject({ status: 'ABORTED', error: 'TaskCancelled' });
  });

  it('returns the result when the execution ended just as the bound passed, with hand-off turned off', async () => {
    const b = inMemoryBackend({ settings: { directCallTimeoutMs: 5_000, handOffPlainCalls: false } });
    // Every describe shows it running until the stop: the last poll before the bound missed the end.
    let stopped = false;
    const lagging: TaskExecutor = {
      ...bind<TaskExecutor>(b.executor),
      describe: async (arn) => (stopped ? b.executor.describe(arn) : { status: 'RUNNING' }),
      stop: async (arn, reason) => ((stopped = true), b.executor.stop(arn, reason)),
    };
    const call = b.service({ executor: lagging }).runToCompletion('just-in-time', 'text_stats', { text: 'a b' });
    await vi.advanceTimersByTimeAsync(4_000);
    b.executor.succeed(lastExecution(b).executionArn, { words: 2 });
    expect(plainResult(await settle(call)).structuredContent).toEqual({ words: 2 });
  });

  it('stops the execution when the caller goes away', async () => {
    const b = inMemoryBackend();
    const gone = new AbortController();
    const call = b.service().runToCompletion('leaver', 'analyze_documents', slow, gone.signal);
    await vi.advanceTimersByTimeAsync(300);
    gone.abort();
    expect(plainResult(await settle(call, 1_000, 1))).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/went away/) }],
    });
    expect(lastExecution(b)).toMatchObject({ status: 'ABORTED', error: 'TaskCancelled' });
  });

  it('stops the execution when the store fails while the call waits', async () => {
    const b = inMemoryBackend();
    const call = b.service({ store: storeDyingAfter(b, 0) }).runToCompletion('store-dies', 'analyze_documents', slow);
    await expect(settle(call)).rejects.toThrow('ServiceUnavailable');
    expect(lastExecution(b)).toMatchObject({ status: 'ABORTED', error: 'TaskAbandoned' });
  });

  it('stops the execution when the store fails as the bound passes, with hand-off turned off', async () => {
    // One read while waiting (the bound is zero), then the cancellation's read fails.
    const b = inMemoryBackend({ settings: { directCallTimeoutMs: 0, handOffPlainCalls: false } });
    const call = b
      .service({ store: storeDyingAfter(b, 1) })
      .runToCompletion('store-dies-late', 'analyze_documents', slow);
    await expect(settle(call)).rejects.toThrow('ServiceUnavailable');
    expect(lastExecution(b)).toMatchObject({ status: 'ABORTED', error: 'TaskAbandoned' });
  });

  it('answers at once with a tool error when the arguments break the tool’s schema, starting nothing', async () => {
    const b = inMemoryBackend();
    const result = plainResult(await b.service().runToCompletion('sloppy', 'text_stats', { words: 'a' }));
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/text/) }] });
    expect(b.executor.calls.start).toBe(0);
  });

  it('answers at once with a tool error when Step Functions refuses the input, and keeps no task', async () => {
    const b = inMemoryBackend();
    const { store, created } = keepingCreated(b);
    const result = plainResult(
      await b.service({ store }).runToCompletion('plain-too-big', 'analyze_documents', { documents: hugeDocuments() }),
    );
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringMatching(/refused the tool input/) }],
    });
    expect(created).toHaveLength(1);
    expect(await b.store.get('plain-too-big', created[0]!.taskId)).toBeNull();
  });

  it('answers at once when the start goes unanswered, with the execution stopped', async () => {
    const b = inMemoryBackend();
    const lossy: TaskExecutor = {
      ...bind<TaskExecutor>(b.executor),
      start: async (request) => (await b.executor.start(request), Promise.reject(new Error('socket hang up'))),
    };
    const call = b.service({ executor: lossy }).runToCompletion('plain-lossy', 'analyze_documents', slow);
    await expect(call).rejects.toMatchObject({ name: 'StartOutcomeUnknownError', stopped: true });
    expect(lastExecution(b).status).toBe('ABORTED');
  });

  it('answers at once when Step Functions is unreachable, and keeps the task for polls to reconcile', async () => {
    const b = inMemoryBackend();
    const unreachable: TaskExecutor = {
      ...bind<TaskExecutor>(b.executor),
      start: async () => Promise.reject(new Error('connect ECONNREFUSED')),
      stop: async () => Promise.reject(new Error('connect ECONNREFUSED')),
    };
    const error = await b
      .service({ executor: unreachable })
      .runToCompletion('plain-unreachable', 'text_stats', { text: 'a b' })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(StartOutcomeUnknownError);
    expect(error).toMatchObject({ stopped: false });
    expect(await b.store.get('plain-unreachable', (error as StartOutcomeUnknownError).taskId)).toMatchObject({
      status: 'submitted',
    });
  });

  it('keeps its task out of the owner’s listing', async () => {
    const b = inMemoryBackend();
    const call = b.service().runToCompletion('lister', 'text_stats', { text: 'a' });
    await vi.advanceTimersByTimeAsync(0);
    expect((await b.service().listTasks('lister')).tasks).toEqual([]);
    b.executor.succeed(lastExecution(b).executionArn, { words: 1 });
    await b.statusEvent(lastExecution(b));
    await settle(call);
  });
});

describe('a plain tool call that can answer questions (SEP-2322)', () => {
  it('stops at the workflow’s first questions, gathering those asked moments apart, and resumes once answered', async () => {
    const b = inMemoryBackend();
    const call = b.service().runUntilInput('asker', 'analyze_documents', slow);
    await vi.advanceTimersByTimeAsync(0);
    const { executionArn } = lastExecution(b);
    // Two branches of a Parallel state ask 200 ms apart: one round carries both.
    await ask(b, executionArn, 'approve');
    await vi.advanceTimersByTimeAsync(200);
    await ask(b, executionArn, 'confirm');
    const outcome = await settle(call);
    expect(outcome.kind).toBe('input');
    const task = (outcome as { task: TaskRecord }).task;
    expect(task.status).toBe('input_required');
    expect(Object.keys(task.inputRequests ?? {}).sort()).toEqual(['approve', 'confirm']);

    await b.inputService().answer('asker', task.taskId, {
      approve: { action: 'accept', content: { approve: true } },
      confirm: { action: 'decline' },
    });
    expect(lastExecution(b).answers).toHaveLength(2);
    const resumed = b.service().resumeDirect('asker', task.taskId);
    await vi.advanceTimersByTimeAsync(1_000);
    b.executor.succeed(executionArn, { refunded: true });
    await b.statusEvent(lastExecution(b));
    expect(await settle(resumed)).toEqual({
      kind: 'result',
      result: expect.objectContaining({ structuredContent: { refunded: true } }),
    });
  });

  it('answers with the result when the workflow asks nothing', async () => {
    const b = inMemoryBackend();
    const call = b.service().runUntilInput('no-questions', 'text_stats', { text: 'a' });
    await vi.advanceTimersByTimeAsync(0);
    b.executor.succeed(lastExecution(b).executionArn, { words: 1 });
    await b.statusEvent(lastExecution(b));
    expect(await settle(call)).toMatchObject({ kind: 'result', result: { structuredContent: { words: 1 } } });
  });

  it('stops the execution when the caller goes away while a question is open', async () => {
    const b = inMemoryBackend();
    const gone = new AbortController();
    const call = b.service().runUntilInput('leaver', 'analyze_documents', slow, { signal: gone.signal });
    await vi.advanceTimersByTimeAsync(0);
    await ask(b, lastExecution(b).executionArn, 'approve');
    gone.abort();
    expect(await settle(call)).toMatchObject({
      kind: 'result',
      result: { isError: true, content: [{ text: expect.stringMatching(/went away/) }] },
    });
    expect(lastExecution(b).status).toBe('ABORTED');
  });
});
