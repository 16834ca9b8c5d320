// The local stand-in for status events: it keeps reading an unfinished task through a store outage, and stops only
// when the task is finished or gone.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TaskNotFoundError } from '../../../lambda/core/errors.js';
import type { TaskStatus } from '../../../lambda/core/task-status.js';
import { startExecutionStatusWatcher } from '../../../local/execution-status-watcher.js';

const INTERVAL_MS = 100;

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A watcher over reads that answer, in turn, each of `answers` (the last one over and over). */
function watcherOver(answers: readonly (TaskStatus | Error)[]) {
  let reads = 0;
  const watcher = startExecutionStatusWatcher({
    read: async () => {
      const answer = answers[Math.min(reads++, answers.length - 1)]!;
      if (answer instanceof Error) throw answer;
      return { status: answer };
    },
    intervalMs: INTERVAL_MS,
  });
  watcher.watch('alice', 'task-1');
  return { watcher, reads: () => reads };
}

describe('the execution status watcher', () => {
  it('keeps watching a task while its reads fail, and reads it to its end', async () => {
    const outage = new Error('ProvisionedThroughputExceededException');
    const { watcher, reads } = watcherOver(['working', outage, outage, outage, 'completed']);
    await vi.advanceTimersByTimeAsync(INTERVAL_MS * 5);
    expect(reads()).toBe(5);
    await vi.advanceTimersByTimeAsync(INTERVAL_MS * 3);
    expect(reads()).toBe(5);
    watcher.stop();
  });

  it('stops watching a task that is gone', async () => {
    const { watcher, reads } = watcherOver(['working', new TaskNotFoundError('task-1'), 'working']);
    await vi.advanceTimersByTimeAsync(INTERVAL_MS * 5);
    expect(reads()).toBe(2);
    watcher.stop();
  });
});
