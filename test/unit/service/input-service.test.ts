// Answers to a workflow's questions through InputService, on in-memory parts: each answer checked, then delivered to
// the waiting execution once (claim, SendTaskSuccess, settle), a failed delivery leaving the question open.
import { describe, expect, it, vi } from 'vitest';
import { DELIVERY_LEASE_MS } from '../../../lambda/core/input-request.js';
import { InputDeliveryError, InvalidInputResponseError, TaskNotFoundError } from '../../../lambda/core/errors.js';
import { FIRST_CHECK_AFTER_MS, type TaskRecord } from '../../../lambda/core/task.js';
import type { TaskExecutor } from '../../../lambda/executor/task-executor.js';
import { bind } from '../../support/bind-methods.js';
import {
  analyze,
  ask,
  inMemoryBackend,
  settle,
  useFakeTime,
  type InMemoryBackend,
} from '../../support/in-memory-backend.js';

useFakeTime();

const accept = (approve = true) => ({ action: 'accept', content: { approve } });

/** A running task of `owner` whose workflow asks the questions `keys`. */
async function asking(b: InMemoryBackend, owner: string, ...keys: string[]): Promise<TaskRecord> {
  const task = await b.service().createTask(analyze(owner));
  for (const key of keys) await ask(b, task.executionArn, key);
  return task;
}

const stateOf = async (b: InMemoryBackend, task: TaskRecord, key: string) =>
  (await b.store.get(task.owner, task.taskId))?.inputRequests?.[key]?.state;

describe('answering input requests', () => {
  it('delivers the answer to the waiting execution, settles the request and moves the task back to working', async () => {
    const b = inMemoryBackend();
    const waits: number[] = [];
    const task = await asking(b, 'answerer', 'approve');
    expect((await b.store.get('answerer', task.taskId))?.status).toBe('input_required');
    await vi.advanceTimersByTimeAsync(7_000);
    const inputs = b.inputService({
      metrics: { taskEvent: () => {}, inputAnswered: (_tool, ms) => void waits.push(ms) },
    });
    await inputs.answer('answerer', task.taskId, { approve: accept() });
    expect(b.executor.execution(task.executionArn).answers).toEqual([JSON.stringify(accept())]);
    expect(await b.store.get('answerer', task.taskId)).toMatchObject({
      status: 'working',
      inputRequests: { approve: { state: 'answered' } },
    });
    expect(waits).toEqual([7_000]);
  });

  it('keeps the task input_required while a question is open, though its execution runs', async () => {
    const b = inMemoryBackend();
    const task = await asking(b, 'asked', 'approve');
    await b.statusEvent(task);
    await vi.advanceTimersByTimeAsync(FIRST_CHECK_AFTER_MS);
    await b.service().reconcileDue({ maxChecks: 10 });
    expect((await b.service().getTask('asked', task.taskId)).status).toBe('input_required');
  });

  it('refuses an answer that does not fit its request, and delivers none of the call’s answers', async () => {
    const b = inMemoryBackend();
    const task = await asking(b, 'sloppy', 'approve', 'confirm');
    const answering = b.inputService().answer('sloppy', task.taskId, {
      approve: accept(),
      confirm: { action: 'accept', content: { amount: 11 } },
    });
    await expect(answering).rejects.toBeInstanceOf(InvalidInputResponseError);
    await expect(answering).rejects.toMatchObject({ key: 'confirm' });
    expect(b.executor.calls.resume).toBe(0);
    expect(await stateOf(b, task, 'approve')).toBe('outstanding');
  });

  it('ignores answers to unknown or answered requests, and every answer to a finished task', async () => {
    const b = inMemoryBackend();
    const task = await asking(b, 'late', 'approve', 'confirm');
    await b.inputService().answer('late', task.taskId, { approve: accept() });
    await b.inputService().answer('late', task.taskId, { approve: accept(false), unknown: { anything: 1 } });
    expect(b.executor.calls.resume).toBe(1);
    b.executor.succeed(task.executionArn, {});
    await b.service().recordExecutionEvent(task.executionArn, 'describe');
    await b.inputService().answer('late', task.taskId, { confirm: accept() });
    expect(b.executor.calls.resume).toBe(1);
  });

  it('throws TaskNotFoundError for another owner’s task', async () => {
    const b = inMemoryBackend();
    const task = await asking(b, 'owner-a', 'approve');
    await expect(b.inputService().answer('owner-b', task.taskId, { approve: accept() })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
  });

  it('delivers a duplicate answer arriving at the same time once', async () => {
    const b = inMemoryBackend();
    const task = await asking(b, 'twice', 'approve');
    const slow: TaskExecutor = {
      ...bind<TaskExecutor>(b.executor),
      resume: async (arn, token, output) => {
        await new Promise((resolve) => setTimeout(resolve, 500));
        return b.executor.resume(arn, token, output);
      },
    };
    const inputs = b.inputService({ executor: slow });
    const both = Promise.all([
      inputs.answer('twice', task.taskId, { approve: accept() }),
      inputs.answer('twice', task.taskId, { approve: accept() }),
    ]);
    await settle(both);
    expect(b.executor.calls.resume).toBe(1);
    expect(await stateOf(b, task, 'approve')).toBe('answered');
  });

  it('records an answer Step Functions no longer waits for as expired, without an error', async () => {
    const b = inMemoryBackend();
    const task = await asking(b, 'too-late', 'approve');
    // Its token is spent: the state timed out and the workflow went on (or another server delivered and died).
    const [token] = b.executor.execution(task.executionArn).waitingTokens;
    await b.executor.resume(task.executionArn, token!, '{}');
    await b.inputService().answer('too-late', task.taskId, { approve: accept() });
    expect(await stateOf(b, task, 'approve')).toBe('expired');
  });

  it('keeps the request open when the delivery fails, after trying the other answers; a retry delivers it', async () => {
    const b = inMemoryBackend();
    const task = await asking(b, 'flaky', 'approve', 'confirm');
    const [approveToken] = b.executor.execution(task.executionArn).waitingTokens;
    const failingOne: TaskExecutor = {
      ...bind<TaskExecutor>(b.executor),
      resume: async (arn, token, output) =>
        token === approveToken
          ? Promise.reject(new Error('ServiceUnavailable'))
          : b.executor.resume(arn, token, output),
    };
    const answers = { approve: accept(), confirm: accept() };
    const answering = b.inputService({ executor: failingOne }).answer('flaky', task.taskId, answers);
    await expect(answering).rejects.toBeInstanceOf(InputDeliveryError);
    await expect(answering).rejects.toMatchObject({ key: 'approve' });
    expect(await stateOf(b, task, 'approve')).toBe('outstanding');
    expect(await stateOf(b, task, 'confirm')).toBe('answered');
    await b.inputService().answer('flaky', task.taskId, answers);
    expect(await b.store.get('flaky', task.taskId)).toMatchObject({
      status: 'working',
      inputRequests: { approve: { state: 'answered' }, confirm: { state: 'answered' } },
    });
  });

  it('waits out a claim whose holder died mid-delivery, then delivers once the claim lapses', async () => {
    const b = inMemoryBackend();
    const task = await asking(b, 'orphaned', 'approve');
    const stored = (await b.store.get('orphaned', task.taskId))!;
    expect(await b.inputs.claim(stored, 'approve', 'dead-server', Date.now())).toMatchObject({ kind: 'claimed' });
    // About 3 s of backing off while the claim looks live, then a retryable error.
    const early = b.inputService().answer('orphaned', task.taskId, { approve: accept() });
    await expect(settle(early)).rejects.toBeInstanceOf(InputDeliveryError);
    expect(b.executor.calls.resume).toBe(0);
    await vi.advanceTimersByTimeAsync(DELIVERY_LEASE_MS);
    await b.inputService().answer('orphaned', task.taskId, { approve: accept() });
    expect(await stateOf(b, task, 'approve')).toBe('answered');
  });

  it('delivers a client’s error in place of an answer, for the workflow to branch on', async () => {
    const b = inMemoryBackend();
    const task = await asking(b, 'incapable', 'approve');
    await b.inputService().refuse('incapable', task.taskId, 'approve', { code: -32601, message: 'Method not found' });
    expect(b.executor.execution(task.executionArn).answers).toEqual([
      JSON.stringify({ error: { code: -32601, message: 'Method not found' } }),
    ]);
    await b.inputService().refuse('incapable', task.taskId, 'approve', { code: -32601, message: 'again' });
    expect(b.executor.calls.resume).toBe(1);
  });

  it('fails the task saying the input never came when the execution times out waiting for it', async () => {
    const b = inMemoryBackend();
    const task = await asking(b, 'silent', 'approve');
    b.executor.timeOut(task.executionArn, 'States.Timeout');
    await b.statusEvent(task);
    expect(await b.service().getTask('silent', task.taskId)).toMatchObject({
      status: 'failed',
      statusMessage: expect.stringMatching(/^The input requested \("Refund\?"\) never came before its deadline/),
    });
  });
});
