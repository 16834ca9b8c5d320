import { describe, expect, it } from 'vitest';
import { canTransition, expiresAt, FIRST_WAIT_STEP_MS, isExpired, isRefreshDue, isTerminal, nextWaitStepMs, pollRefreshIntervalMs, RetentionClock, statusesThatMayBecome, TaskStatus } from '../../../lambda/core/task.js';

const ALL = Object.values(TaskStatus);
const LEGAL: Record<TaskStatus, TaskStatus[]> = {
  submitted: ['working', 'input_required', 'completed', 'failed', 'cancelled', 'unknown'],
  working: ['input_required', 'completed', 'failed', 'cancelled', 'unknown'],
  input_required: ['working', 'completed', 'failed', 'cancelled', 'unknown'],
  completed: [],
  failed: [],
  cancelled: [],
  unknown: [],
};

describe('task status transitions', () => {
  for (const from of ALL) {
    for (const to of ALL) {
      const legal = LEGAL[from].includes(to);
      it(`${from} -> ${to} is ${legal ? 'legal' : 'illegal'}`, () => {
        expect(canTransition(from, to)).toBe(legal);
      });
    }
  }

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
    expect(isExpired({ createdAt: created, completedAt: created, retention: { ms: null, clock: RetentionClock.FromCreation } }, Number.MAX_SAFE_INTEGER)).toBe(false);
  });
});

describe('refresh scheduling', () => {
  const base = { status: TaskStatus.Working, createdAt: 0 };

  it('is due once the interval has passed since the last check', () => {
    expect(isRefreshDue({ ...base, lastCheckedAt: 500 }, 1_499, 1_000)).toBe(false);
    expect(isRefreshDue({ ...base, lastCheckedAt: 500 }, 1_500, 1_000)).toBe(true);
  });

  it('is due at once when the execution was never checked', () => {
    expect(isRefreshDue(base, 0, 1_000)).toBe(true);
  });

  it('lets a poll refresh a quarter interval early, so a client polling at the interval never skips one', () => {
    expect(pollRefreshIntervalMs(2_000)).toBe(1_500);
  });

  it('waits in pauses that start short and grow to the cap', () => {
    const steps = [FIRST_WAIT_STEP_MS];
    while (steps.length < 20) steps.push(nextWaitStepMs(steps.at(-1)!, 2_000));
    expect(steps[0]).toBeLessThanOrEqual(50);
    expect(steps.every((step, index) => index === 0 || step >= steps[index - 1]!)).toBe(true);
    expect(steps.at(-1)).toBe(2_000);
  });

  it('is never due for a terminal task', () => {
    expect(isRefreshDue({ ...base, status: TaskStatus.Completed }, 10 ** 9, 1_000)).toBe(false);
  });
});
