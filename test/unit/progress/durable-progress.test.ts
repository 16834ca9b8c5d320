// The progress helper of a durable function, run by the durable execution SDK itself (its testing library's local
// runner): a report shows on the task as its status message, is recorded once however often the function's code is
// replayed, never fails the workflow when the store does, and fails it when the report itself is malformed.
import { withDurableExecution, type DurableContext } from '@aws/durable-execution-sdk-js';
import { LocalDurableTestRunner } from '@aws/durable-execution-sdk-js-testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusMessageOf } from '../../../lambda/core/task-progress.js';
import type { DurableToolEvent } from '../../../lambda/contract/durable-tool-event.js';
import { createDurableProgress, type DurableProgressReport } from '../../../lambda/progress/durable-progress.js';
import { InMemoryProgressStore } from '../../../lambda/store/in-memory-progress-store.js';
import type { ProgressStore } from '../../../lambda/store/progress-store.js';
import { storedDurableTask } from '../../support/durable-test-task.js';

beforeAll(() => LocalDurableTestRunner.setupTestEnvironment());
afterAll(() => LocalDurableTestRunner.teardownTestEnvironment());

/** A durable function that reports, then waits (so its code runs again from the start), then finishes. */
function reporting(store: ProgressStore, report: DurableProgressReport, onError?: (error: unknown) => void) {
  const progress = createDurableProgress({ store, ...(onError ? { onError } : {}) });
  return new LocalDurableTestRunner({
    handlerFunction: withDurableExecution(async (event: DurableToolEvent, context: DurableContext) => {
      const outcome = await progress(context, event, report, 'reviewing');
      await context.wait('pause', { seconds: 1 });
      return outcome;
    }),
  });
}

/** `store`, counting its writes. */
function counting(store: ProgressStore): ProgressStore & { writes: number } {
  const counted = {
    writes: 0,
    record: (...args: Parameters<ProgressStore['record']>) => (counted.writes++, store.record(...args)),
  };
  return counted;
}

describe('createDurableProgress', () => {
  it('records the report on the task, where it reads as the status message', async () => {
    const { store, event, read } = await storedDurableTask();
    const result = await reporting(new InMemoryProgressStore(store), {
      message: 'Reviewed {progress} of {total} documents',
      progress: 2,
      total: 3,
    }).run({ payload: event });
    expect(result.getResult()).toEqual({ recorded: true });
    expect(statusMessageOf((await read())!)).toBe('Reviewed 2 of 3 documents');
  });

  it('records a report once although the code before the wait runs again after it', async () => {
    const { store, event } = await storedDurableTask();
    const progress = counting(new InMemoryProgressStore(store));
    const result = await reporting(progress, { message: 'Reviewing' }).run({ payload: event });
    expect(result.getInvocations().length).toBeGreaterThan(1);
    expect(progress.writes).toBe(1);
  });

  it('drops a report the store fails to write, and the workflow goes on', async () => {
    const { event } = await storedDurableTask();
    const errors: unknown[] = [];
    const failing: ProgressStore = { record: () => Promise.reject(new Error('throttled')) };
    const result = await reporting(failing, { message: 'Reviewing' }, (error) => errors.push(error)).run({
      payload: event,
    });
    expect(result.getStatus()).toBe('SUCCEEDED');
    expect(result.getResult()).toEqual({ recorded: false });
    expect(errors).toHaveLength(1);
  });

  it('fails the workflow on a malformed report', async () => {
    const { store, event } = await storedDurableTask();
    const result = await reporting(new InMemoryProgressStore(store), { progress: 1, increment: 1 }).run({
      payload: event,
    });
    expect(result.getStatus()).toBe('FAILED');
    expect(result.getError().errorMessage).toMatch(/progress or increment, not both/);
  });
});
