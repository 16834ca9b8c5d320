// How a task's reported progress reads as a status message, and when it counts as news.
import { describe, expect, it } from 'vitest';
import { activityChanged, progressChanged, progressText, statusMessageOf } from '../../../lambda/core/task-progress.js';

describe('progressText', () => {
  it('fills {progress} and {total} into the message', () => {
    expect(progressText({ message: 'Analysed {progress} of {total} documents', progress: 3, total: 5, at: 1 })).toBe(
      'Analysed 3 of 5 documents',
    );
  });

  it('counts {secondsLeft} down to the deadline, never below zero', () => {
    const progress = { message: 'Waiting for review ({secondsLeft} s left)', deadline: 20_000, at: 0 };
    expect(progressText(progress, 8_000)).toBe('Waiting for review (12 s left)');
    expect(progressText(progress, 25_000)).toBe('Waiting for review (0 s left)');
  });

  it('shows the count alone when there is no message', () => {
    expect(progressText({ progress: 2, total: 4, at: 1 })).toBe('2 of 4');
    expect(progressText({ progress: 2, at: 1 })).toBe('2 done');
  });
});

describe('statusMessageOf', () => {
  const progress = { message: 'Half way', at: 1 };

  it('shows the progress of an active task', () => {
    expect(statusMessageOf({ status: 'working', progress })).toBe('Half way');
  });

  it('prefers the status’s own message, and shows no progress once the task is finished', () => {
    expect(statusMessageOf({ status: 'working', statusMessage: 'Retrying', progress })).toBe('Retrying');
    expect(statusMessageOf({ status: 'completed', progress })).toBeUndefined();
  });

  it('falls back to the execution’s current step when the workflow reported no progress, while active only', () => {
    expect(statusMessageOf({ status: 'working', currentStep: 'Compute' })).toBe('Running Compute');
    expect(statusMessageOf({ status: 'working', currentStep: 'Compute', progress })).toBe('Half way');
    expect(statusMessageOf({ status: 'completed', currentStep: 'Compute' })).toBeUndefined();
  });
});

describe('progressChanged', () => {
  it('is news when anything reported differs, and not when nothing is reported', () => {
    expect(progressChanged(undefined, { at: 1, progress: 1 })).toBe(true);
    expect(progressChanged({ at: 1, progress: 1 }, { at: 1, progress: 2 })).toBe(true);
    expect(progressChanged({ at: 1, progress: 1 }, { at: 1, progress: 1 })).toBe(false);
    expect(progressChanged({ at: 1 }, undefined)).toBe(false);
  });
});

describe('activityChanged', () => {
  it('is news when the reported progress or the current step differs, and not when the step is unknown', () => {
    expect(activityChanged(undefined, { currentStep: 'Fetch' })).toBe(true);
    expect(activityChanged({ currentStep: 'Fetch' }, { currentStep: 'Parse' })).toBe(true);
    expect(activityChanged({ currentStep: 'Fetch' }, { currentStep: 'Fetch' })).toBe(false);
    expect(activityChanged({ currentStep: 'Fetch' }, {})).toBe(false);
    expect(activityChanged({ currentStep: 'Fetch' }, { currentStep: 'Fetch', progress: { at: 1, progress: 1 } })).toBe(
      true,
    );
  });
});
