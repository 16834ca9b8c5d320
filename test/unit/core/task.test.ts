import { describe, expect, it } from 'vitest';
import {
  expiresAt,
  FIRST_CHECK_AFTER_MS,
  FIRST_WAIT_STEP_MS,
  isExpired,
  MAX_CHECK_INTERVAL_MS,
  MAX_POLL_HINT_MS,
  MIN_POLL_HINT_MS,
  nextCheckAt,
  nextWaitStepMs,
  pollHintMs,
  RetentionClock,
} from '../../../lambda/core/task.js';
import { canTransition, isTerminal, statusesThatMayBecome, TaskStatus } from '../../../lambda/core/task-status.js';

const ALL = Object.values(TaskStatus);
const ACTIVE = ALL.filter((status) => !isTerminal(status));
const TERMINAL = ALL.filter(isTerminal);

// The rules of the task lifecycle (MCP 2025-11-25 basic/utilities/tasks, "Task Status Lifecycle"), each checked
// over every pair of statuses rather than against a copy of the table.
describe('task status transitions', () => {
  it('never lets a terminal task change again', () => {
    for (const from of TERMINAL) for (const to of ALL) expect(canTransition(from, to), `${from} -> ${to}`).toBe(false);
  });

  it('lets an active task reach every terminal status', () => {
    for (const from of ACTIVE)
      for (const to of TERMINAL) expect(canTransition(from, to), `${from} -> ${to}`).toBe(true);
  });

  it('never moves a task back to submitted, nor to the status it already has', () => {
    for (const from of ALL) expect(canTransition(from, TaskStatus.Submitted), `${from} -> submitted`).toBe(false);
    for (const status of ALL) expect(canTransition(status, status), `${status} -> ${status}`).toBe(false);
  });

  it('lets a running task ask for input and go back to work once answered', () => {
    expect(canTransition(TaskStatus.Submitted, TaskStatus.Working)).toBe(true);
    expect(canTransition(TaskStatus.Working, TaskStatus.InputRequired)).toBe(true);
    expect(canTransition(TaskStatus.InputRequired, TaskStatus.Working)).toBe(true);
  });

  it('treats exactly completed, failed, cancelled and unknown as terminal', () => {
    expect(ALL.filter(isTerminal)).toEqual(['completed', 'failed', 'cancelled', 'unknown']);
  });

  it('lists the statuses a conditional write may start from', () => {
    expect(statusesThatMayBecome('cancelled')).toEqual(['submitted', 'working', 'input_required']);
    expect(statusesThatMayBecome('working')).toEqual(['submitted', 'input_required']);
    expect(statusesThatMayBecome('submitted')).toEqual([]);
  });
});

describe('retention', () => {
  const created = 1_000_000;

  it('counts a creation-clock ttl from creation, whatever the status', () => {
    const task = { createdAt: created, retention: { ms: 5_000, clock: RetentionClock.FromCreation } };
    expect(expiresAt(task)).toBe(created + 5_000);
    expect(isExpired(task, created + 4_999)).toBe(false);
    expect(isExpired(task, created + 5_000)).toBe(true);
  });

  it('counts a completion-clock keep-alive from completion and never expires an unfinished task', () => {
    const unfinished = { createdAt: created, retention: { ms: 5_000, clock: RetentionClock.FromCompletion } };
    expect(expiresAt(unfinished)).toBeNull();
    expect(isExpired(unfinished, created + 10 ** 9)).toBe(false);
    const finished = { ...unfinished, completedAt: created + 60_000 };
    expect(expiresAt(finished)).toBe(created + 65_000);
    expect(isExpired(finished, created + 65_000)).toBe(true);
  });

  it('never expires a task with unlimited retention', () => {
    expect(
      isExpired(
        { createdAt: created, completedAt: created, retention: { ms: null, clock: RetentionClock.FromCreation } },
        Number.MAX_SAFE_INTEGER,
      ),
    ).toBe(false);
  });
});

describe("the reconciler's checks", () => {
  it("come half the task's age apart, from a minute to an hour", () => {
    expect(nextCheckAt({ createdAt: 0 }, FIRST_CHECK_AFTER_MS)).toBe(2 * FIRST_CHECK_AFTER_MS);
    expect(nextCheckAt({ createdAt: 0 }, 10 * 60_000)).toBe(15 * 60_000);
    expect(nextCheckAt({ createdAt: 0 }, 5 * 3_600_000)).toBe(5 * 3_600_000 + MAX_CHECK_INTERVAL_MS);
  });

  it("come about ten times in a task's first hour, then hourly", () => {
    const checks = [FIRST_CHECK_AFTER_MS];
    while (checks.at(-1)! < 3 * 3_600_000) checks.push(nextCheckAt({ createdAt: 0 }, checks.at(-1)!));
    expect(checks.filter((at) => at <= 3_600_000).length).toBeLessThanOrEqual(10);
    expect(checks.at(-1)! - checks.at(-2)!).toBe(MAX_CHECK_INTERVAL_MS);
  });
});

describe('a wait for a terminal status', () => {
  it('pauses in steps that start short and grow to the cap', () => {
    const steps = [FIRST_WAIT_STEP_MS];
    while (steps.length < 20) steps.push(nextWaitStepMs(steps.at(-1)!, 2_000));
    expect(steps[0]).toBeLessThanOrEqual(50);
    expect(steps.every((step, index) => index === 0 || step >= steps[index - 1]!)).toBe(true);
    expect(steps.at(-1)).toBe(2_000);
  });
});

describe('the poll interval hinted to clients', () => {
  const task = (status: TaskStatus, ageMs: number) => ({ status, createdAt: 1_000_000 - ageMs, pollIntervalMs: 2_000 });

  it('starts short and doubles to the stored interval over the task’s first seconds', () => {
    expect(pollHintMs(task(TaskStatus.Working, 0), 1_000_000)).toBe(MIN_POLL_HINT_MS);
    expect(pollHintMs(task(TaskStatus.Working, 150), 1_000_000)).toBe(MIN_POLL_HINT_MS);
    expect(pollHintMs(task(TaskStatus.Working, 1_000), 1_000_000)).toBe(500);
    expect(pollHintMs(task(TaskStatus.InputRequired, 3_000), 1_000_000)).toBe(1_500);
    expect(pollHintMs(task(TaskStatus.Working, 4_000), 1_000_000)).toBe(2_000);
  });

  it('is the stored interval from then until the task is 40 s old', () => {
    expect(pollHintMs(task(TaskStatus.Working, 10_000), 1_000_000)).toBe(2_000);
    expect(pollHintMs(task(TaskStatus.Working, 40_000), 1_000_000)).toBe(2_000);
  });

  it('never hints below a stored interval shorter than the floor', () => {
    const fast = { status: TaskStatus.Working, createdAt: 1_000_000, pollIntervalMs: 50 };
    expect(pollHintMs(fast, 1_000_000)).toBe(50);
  });

  it('costs a task polled as hinted for an hour at most ten polls more than the stored interval from its start', () => {
    // Counted on the task's age alone, advanced by each hint in turn: no clock is read.
    const pollsUntilAge = (taskAgeMs: number, hintAtAge: (ageMs: number) => number) => {
      let polls = 0;
      for (let age = 0; age < taskAgeMs; age += hintAtAge(age)) polls++;
      return polls;
    };
    const hinted = (ageMs: number) => pollHintMs(task(TaskStatus.Working, ageMs), 1_000_000);
    const storedFromStart = (ageMs: number) => Math.max(2_000, hinted(ageMs));
    for (const taskAgeMs of [60_000, 3_600_000]) {
      expect(pollsUntilAge(taskAgeMs, hinted) - pollsUntilAge(taskAgeMs, storedFromStart)).toBeLessThanOrEqual(10);
    }
    expect(pollsUntilAge(1_000, hinted)).toBeGreaterThanOrEqual(4);
  });

  it('then grows with the task’s age, to at most half a minute', () => {
    expect(pollHintMs(task(TaskStatus.Working, 120_000), 1_000_000)).toBe(6_000);
    expect(pollHintMs(task(TaskStatus.InputRequired, 300_000), 1_000_000)).toBe(15_000);
    expect(pollHintMs(task(TaskStatus.Working, 6 * 3_600_000), 1_000_000)).toBe(MAX_POLL_HINT_MS);
  });

  it('stays the stored interval once the task has ended', () => {
    for (const status of TERMINAL) expect(pollHintMs(task(status, 3_600_000), 1_000_000)).toBe(2_000);
  });
});
