// What the contract suites share: a clock the test moves by hand (no test waits on the real one) and new task records.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../lambda/core/clock.js';
import { RetentionClock, TaskOrigin, type TaskRecord } from '../../lambda/core/task.js';
import { executionNameFor, newExecutionNonce, taskKey } from '../../lambda/core/task-key.js';
import { TaskStatus } from '../../lambda/core/task-status.js';
import type { TaskStore } from '../../lambda/store/task-store.js';

/** A clock that stands still until the test moves it. */
export class ManualClock implements Pick<Clock, 'now'> {
  constructor(private time: number = Date.now()) {}

  now(): number {
    return this.time;
  }

  /** Moves the time on by `ms`. */
  advance(ms: number): void {
    this.time += ms;
  }

  /** Sets the time to `epochMs`. */
  set(epochMs: number): void {
    this.time = epochMs;
  }
}

/**
 * A working task of a fresh owner, created now by `clock`, kept a minute from creation; its execution name carries its
 * key, as the task service makes it.
 */
export function newTask(clock: Pick<Clock, 'now'>, overrides: Partial<TaskRecord> = {}): TaskRecord {
  const owner = overrides.owner ?? `owner-${randomUUID()}`;
  const taskId = overrides.taskId ?? randomUUID();
  const name = executionNameFor(taskKey(owner, taskId), newExecutionNonce());
  return {
    taskId,
    owner,
    toolName: 'text_stats',
    origin: TaskOrigin.Mcp20251125,
    executionArn: `arn:aws:states:us-east-1:000000000000:execution:text-stats:${name}`,
    status: TaskStatus.Working,
    createdAt: clock.now(),
    lastUpdatedAt: clock.now(),
    retention: { ms: 60_000, clock: RetentionClock.FromCreation },
    pollIntervalMs: 1_000,
    inputDigest: 'digest',
    ...overrides,
  };
}

/** What the task store contract runs on: a store, and the clock it reads. */
export interface TaskStoreFixture {
  readonly store: TaskStore;
  readonly clock: ManualClock;
}

/** Makes a fixture for each test: a fresh store, or a fresh view of a shared one (tasks of fresh owners keep apart). */
export type MakeFixture<T> = () => T | Promise<T>;
