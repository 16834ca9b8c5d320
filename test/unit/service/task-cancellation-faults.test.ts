// A cancel whose stop fails, on in-memory parts: a fault is sent again within the cancel's bounds, one that outlasts
// them leaves the task as it was with an error the client may retry on, and a refusal is not sent again.
import { describe, expect, it, vi } from 'vitest';
import { ExecutionStopError, ServiceBusyError } from '../../../lambda/core/errors.js';
import type { TaskExecutor } from '../../../lambda/executor/task-executor.js';
import { bind } from '../../support/bind-methods.js';
import {
  analyze,
  executionOf,
  inMemoryBackend,
  useFakeTime,
  type InMemoryBackend,
} from '../../support/in-memory-backend.js';

useFakeTime();

/** A 500 as the AWS SDK throws it once its own retries are spent. */
const serverFault = (): Error =>
  Object.assign(new Error('UnknownError'), { name: 'Unknown', $fault: 'server', $metadata: { httpStatusCode: 500 } });

/** The executor whose stop fails with `fault()` the first `failures` times, then stops; counts the attempts. */
function stopFailing(
  b: InMemoryBackend,
  failures: number,
  fault: () => Error = serverFault,
): { executor: TaskExecutor; attempts: () => number } {
  let attempts = 0;
  const executor: TaskExecutor = {
    ...bind<TaskExecutor>(b.executor),
    stop: async (arn, reason) => {
      attempts += 1;
      if (attempts <= failures) throw fault();
      return b.executor.stop(arn, reason);
    },
  };
  return { executor, attempts: () => attempts };
}

/** The cancel's outcome once every pause between its attempts has passed on the fake clock. */
async function settled<T>(pending: Promise<T>): Promise<T | unknown> {
  const outcome = pending.catch((error: unknown) => error);
  await vi.runAllTimersAsync();
  return outcome;
}

describe('a cancel whose stop fails', () => {
  it('sends the stop again after a fault, and the cancel succeeds', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(analyze('once'));
    const faulty = stopFailing(b, 1);
    const cancelled = await settled(b.service({ executor: faulty.executor }).cancelTask('once', task.taskId));
    expect(cancelled).toMatchObject({ status: 'cancelled' });
    expect(faulty.attempts()).toBe(2);
    expect(executionOf(b, task)).toMatchObject({ status: 'ABORTED', error: 'TaskCancelled' });
  });

  it('leaves the task as it was when the stop keeps failing, and says when to retry; a later cancel succeeds', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(analyze('always'));
    const faulty = stopFailing(b, Infinity);
    const error = await settled(b.service({ executor: faulty.executor }).cancelTask('always', task.taskId));
    expect(error).toBeInstanceOf(ExecutionStopError);
    expect(error).toMatchObject({ taskId: task.taskId, retryAfterSeconds: 2 });
    // The first try and a retry after each of the three pauses.
    expect(faulty.attempts()).toBe(4);
    expect((await b.store.get('always', task.taskId))?.status).toBe('submitted');
    expect(executionOf(b, task).status).toBe('RUNNING');
    expect((await b.service().cancelTask('always', task.taskId)).status).toBe('cancelled');
  });

  it('stops sending once its time budget is spent, as when each attempt hangs to its timeout', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(analyze('hung'));
    let attempts = 0;
    const hanging: TaskExecutor = {
      ...bind<TaskExecutor>(b.executor),
      stop: async () => {
        attempts += 1;
        await new Promise((resolve) => setTimeout(resolve, 10_000));
        throw Object.assign(new Error('Request timed out'), { name: 'TimeoutError' });
      },
    };
    const error = await settled(b.service({ executor: hanging }).cancelTask('hung', task.taskId));
    expect(error).toBeInstanceOf(ExecutionStopError);
    expect(attempts).toBe(1);
  });

  it('answers a throttle that outlasts the retries as the throttle it is', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(analyze('busy'));
    const busy = stopFailing(b, Infinity, () => new ServiceBusyError('Step Functions', 'StopExecution', 1));
    const error = await settled(b.service({ executor: busy.executor }).cancelTask('busy', task.taskId));
    expect(error).toBeInstanceOf(ServiceBusyError);
    expect(busy.attempts()).toBe(4);
    expect((await b.store.get('busy', task.taskId))?.status).toBe('submitted');
  });

  it('does not send a refused stop again, and passes the refusal on', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(analyze('refused'));
    const refusal = () =>
      Object.assign(new Error('not authorized'), { name: 'AccessDeniedException', $fault: 'client' });
    const refused = stopFailing(b, Infinity, refusal);
    const error = await settled(b.service({ executor: refused.executor }).cancelTask('refused', task.taskId));
    expect(error).toMatchObject({ name: 'AccessDeniedException' });
    expect(refused.attempts()).toBe(1);
    expect((await b.store.get('refused', task.taskId))?.status).toBe('submitted');
  });
});
