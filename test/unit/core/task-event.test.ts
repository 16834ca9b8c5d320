// What a task's write tells a watcher (taskEventOf, snapshotOf): which changes a write lists, and which writes are no
// news at all; and the subscription key's pure parts (canonicalJson, subscriptionIdOf, isLive).
import { describe, expect, it } from 'vitest';
import type { InputRequest, InputRequestState } from '../../../lambda/core/input-request.js';
import { RetentionClock, TaskOrigin, type TaskRecord } from '../../../lambda/core/task.js';
import { snapshotOf, TaskEventChange, taskEventId, taskEventOf } from '../../../lambda/core/task-event.js';
import type { TaskProgress } from '../../../lambda/core/task-progress.js';
import { TaskStatus } from '../../../lambda/core/task-status.js';
import { canonicalJson, isLive, subscriptionIdOf } from '../../../lambda/core/webhook-subscription.js';

/** A fixed time, far from the real one: nothing here may depend on it. */
const T0 = Date.UTC(2030, 0, 1);

/** A working task created at T0, nothing reported yet. */
function task(overrides: Partial<TaskRecord> = {}): TaskRecord {
  return {
    taskId: 'task-1',
    owner: 'alice',
    toolName: 'text_stats',
    origin: TaskOrigin.Mcp20251125,
    executionArn: 'arn:aws:states:us-east-1:000000000000:execution:text-stats:task-1',
    status: TaskStatus.Working,
    createdAt: T0,
    lastUpdatedAt: T0,
    retention: { ms: 60_000, clock: RetentionClock.FromCreation },
    pollIntervalMs: 1_000,
    inputDigest: 'digest',
    ...overrides,
  };
}

/** The same task after a write at `at` that changed `changes`. */
function written(before: TaskRecord, at: number, changes: Partial<TaskRecord>): TaskRecord {
  return { ...before, lastUpdatedAt: at, ...changes };
}

function request(key: string, state: InputRequestState = 'outstanding'): InputRequest {
  return { key, request: { method: 'roots/list' }, state, askedAt: T0 };
}

function requests(...each: InputRequest[]): Record<string, InputRequest> {
  return Object.fromEntries(each.map((one) => [one.key, one]));
}

function progress(at: number, extra: Partial<TaskProgress> = {}): TaskProgress {
  return { at, message: 'Analysing', progress: 1, total: 5, ...extra };
}

/** The changes a write from `before` to `after` lists, or null when it is no news. */
function changesOf(before: TaskRecord | undefined, after: TaskRecord, now = T0 + 10_000) {
  return taskEventOf(before, after, now)?.changes ?? null;
}

describe('taskEventOf', () => {
  it('makes a created task a status event, whatever else it already shows, stamped with its last update', () => {
    const created = task({ statusMessage: 'Queued', currentStep: 'Start', lastUpdatedAt: T0 + 5 });
    expect(taskEventOf(undefined, created, T0 + 10)).toEqual({
      owner: 'alice',
      taskId: 'task-1',
      at: T0 + 5,
      changes: [TaskEventChange.Status],
      task: snapshotOf(created, T0 + 10),
    });
  });

  it('finds no news in a refresh that only moved lastCheckedAt, or in a write of the same values', () => {
    const before = task({ currentStep: 'Analyse', progress: progress(T0 + 1), inputRequests: requests(request('a')) });
    expect(taskEventOf(before, { ...before, lastCheckedAt: T0 + 5_000 }, T0 + 6_000)).toBeNull();
    expect(taskEventOf(before, written(before, T0 + 5_000, {}), T0 + 6_000)).toBeNull();
    expect(taskEventOf(before, { ...before, inputRequests: requests(request('a', 'delivering')) }, T0)).toBeNull();
  });

  it('lists a status change, the event taking the write time and the task after it', () => {
    const before = task({ status: TaskStatus.Submitted });
    const after = written(before, T0 + 2_000, { status: TaskStatus.Working });
    const event = taskEventOf(before, after, T0 + 3_000);
    expect(event).toMatchObject({ at: T0 + 2_000, changes: [TaskEventChange.Status] });
    expect(event?.task.status).toBe(TaskStatus.Working);
  });

  it('lists a change of the status message alone', () => {
    const before = task({ statusMessage: 'one' });
    expect(changesOf(before, written(before, T0 + 1, { statusMessage: 'two' }))).toEqual([
      TaskEventChange.StatusMessage,
    ]);
    expect(changesOf(before, written(before, T0 + 1, { statusMessage: undefined }))).toEqual([
      TaskEventChange.StatusMessage,
    ]);
  });

  it('lists a progress report that keeps the message as progress alone', () => {
    const before = task({ progress: progress(T0 + 1, { progress: 1 }) });
    const after = written(before, T0 + 2, { progress: progress(T0 + 2, { progress: 2 }) });
    expect(changesOf(before, after)).toEqual([TaskEventChange.Progress]);
    expect(taskEventOf(before, after, T0 + 3)?.task.progress).toEqual({ progress: 2, total: 5 });
  });

  it('lists the first progress report as a new message and progress', () => {
    const before = task();
    const after = written(before, T0 + 2, { progress: progress(T0 + 2, { message: undefined }) });
    expect(changesOf(before, after)).toEqual([TaskEventChange.StatusMessage, TaskEventChange.Progress]);
    expect(taskEventOf(before, after, T0 + 3)?.task.statusMessage).toBe('1 of 5');
  });

  it('lists no progress once the task is terminal: a late report on a finished task is no news', () => {
    const before = task({ progress: progress(T0 + 1) });
    const finished = written(before, T0 + 2, {
      status: TaskStatus.Completed,
      completedAt: T0 + 2,
      progress: progress(T0 + 2, { progress: 5 }),
    });
    const changes = changesOf(before, finished);
    expect(changes).toEqual([TaskEventChange.Status, TaskEventChange.StatusMessage]);
    const late = written(finished, T0 + 3, { progress: progress(T0 + 3, { progress: 6 }) });
    expect(changesOf(finished, late)).toBeNull();
  });

  it('lists a new current step, with the message it reads as when nothing else gives one', () => {
    const reporting = task({ currentStep: 'Analyse', progress: progress(T0 + 1) });
    expect(changesOf(reporting, written(reporting, T0 + 2, { currentStep: 'Review' }))).toEqual([
      TaskEventChange.CurrentStep,
    ]);
    const silent = task({ currentStep: 'Analyse' });
    const event = taskEventOf(silent, written(silent, T0 + 2, { currentStep: 'Review' }), T0 + 3);
    expect(event?.changes).toEqual([TaskEventChange.StatusMessage, TaskEventChange.CurrentStep]);
    expect(event?.task).toMatchObject({ statusMessage: 'Running Review', currentStep: 'Review' });
  });

  it('does not list a current step that went away (the message that read it does change)', () => {
    const before = task({ currentStep: 'Analyse' });
    expect(changesOf(before, written(before, T0 + 2, { currentStep: undefined }))).toEqual([
      TaskEventChange.StatusMessage,
    ]);
  });

  it('lists input requests opening and closing, but not an answered one arriving', () => {
    const before = task({ status: TaskStatus.InputRequired, statusMessage: 'Waiting' });
    const opened = written(before, T0 + 1, { inputRequests: requests(request('a')) });
    expect(changesOf(before, opened)).toEqual([TaskEventChange.InputRequests]);
    const another = written(opened, T0 + 2, { inputRequests: requests(request('a'), request('b')) });
    expect(changesOf(opened, another)).toEqual([TaskEventChange.InputRequests]);
    const closed = written(another, T0 + 3, { inputRequests: requests(request('a', 'answered'), request('b')) });
    const event = taskEventOf(another, closed, T0 + 4);
    expect(event?.changes).toEqual([TaskEventChange.InputRequests]);
    expect(event?.task.openInputRequests).toEqual(['b']);
    const expired = written(closed, T0 + 5, {
      inputRequests: requests(request('a', 'answered'), request('b', 'expired')),
    });
    expect(taskEventOf(closed, expired, T0 + 6)?.task.openInputRequests).toBeUndefined();
    expect(changesOf(expired, written(expired, T0 + 7, { inputRequests: requests(request('c', 'answered')) }))).toBe(
      null,
    );
  });

  it('lists every change one write made, in a fixed order', () => {
    const before = task({ progress: progress(T0 + 1), currentStep: 'Analyse' });
    const after = written(before, T0 + 2, {
      status: TaskStatus.InputRequired,
      statusMessage: 'Needs an answer',
      progress: progress(T0 + 2, { progress: 3 }),
      currentStep: 'Ask',
      inputRequests: requests(request('a')),
    });
    expect(changesOf(before, after)).toEqual([
      TaskEventChange.Status,
      TaskEventChange.StatusMessage,
      TaskEventChange.Progress,
      TaskEventChange.CurrentStep,
      TaskEventChange.InputRequests,
    ]);
  });
});

describe('snapshotOf', () => {
  it('shows an active task with its message, count, step and open requests in key order', () => {
    const active = task({
      status: TaskStatus.InputRequired,
      progress: progress(T0 + 1, { message: 'Analysed {progress} of {total}', progress: 2 }),
      currentStep: 'Ask',
      inputRequests: requests(request('b'), request('c', 'delivering'), request('a'), request('z', 'answered')),
    });
    expect(snapshotOf(active, T0 + 2)).toEqual({
      taskId: 'task-1',
      toolName: 'text_stats',
      status: TaskStatus.InputRequired,
      statusMessage: 'Analysed 2 of 5',
      progress: { progress: 2, total: 5 },
      currentStep: 'Ask',
      openInputRequests: ['a', 'b', 'c'],
    });
  });

  it('shows no progress and no current step on a terminal task, only its own message', () => {
    const failed = task({
      status: TaskStatus.Failed,
      statusMessage: 'Boom',
      completedAt: T0 + 1,
      progress: progress(T0 + 1),
      currentStep: 'Analyse',
    });
    expect(snapshotOf(failed, T0 + 2)).toEqual({
      taskId: 'task-1',
      toolName: 'text_stats',
      status: TaskStatus.Failed,
      statusMessage: 'Boom',
    });
    expect(snapshotOf({ ...failed, status: TaskStatus.Completed, statusMessage: undefined }, T0 + 2)).toEqual({
      taskId: 'task-1',
      toolName: 'text_stats',
      status: TaskStatus.Completed,
    });
  });

  it('shows only the parts of a count that were reported, none for a message alone', () => {
    expect(snapshotOf(task({ progress: { at: T0, total: 9 } }), T0).progress).toEqual({ total: 9 });
    expect(snapshotOf(task({ progress: { at: T0, progress: 0 } }), T0).progress).toEqual({ progress: 0 });
    expect(snapshotOf(task({ progress: { at: T0, message: 'Thinking' } }), T0)).not.toHaveProperty('progress');
  });

  it('fills in a countdown from `now`', () => {
    const waiting = task({ progress: { at: T0, message: '{secondsLeft} s left', deadline: T0 + 30_000 } });
    expect(snapshotOf(waiting, T0 + 10_000).statusMessage).toBe('20 s left');
  });
});

describe('taskEventId', () => {
  it('names an event by its task and number', () => {
    expect(taskEventId({ taskId: 'task-1', seq: 12 })).toBe('evt_task-1_12');
  });
});

describe('canonicalJson', () => {
  it('sorts object keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('writes equal values alike, whatever order their keys came in', () => {
    expect(canonicalJson({ x: { q: 1, p: [true] }, w: 'v' })).toBe(canonicalJson({ w: 'v', x: { p: [true], q: 1 } }));
  });

  it('leaves out undefined properties, as JSON does, and escapes keys and strings', () => {
    expect(canonicalJson({ a: undefined, b: 'say "hi"', 'c"d': 1 })).toBe('{"b":"say \\"hi\\"","c\\"d":1}');
    expect(canonicalJson([undefined, 'x'])).toBe('[null,"x"]');
    expect(canonicalJson(undefined)).toBe('null');
  });

  it('sorts keys by code unit, not by locale', () => {
    expect(canonicalJson({ b: 1, B: 2, a: 3, _: 4 })).toBe('{"B":2,"_":4,"a":3,"b":1}');
  });
});

describe('subscriptionIdOf', () => {
  const key = {
    owner: 'alice',
    url: 'https://hooks.example.com/mcp',
    name: 'task.events',
    arguments: { taskId: 'task-1', filter: { b: 1, a: 2 } },
  };

  it('is sub_ and 32 hex digits, the same every time and whatever order the arguments came in', () => {
    const id = subscriptionIdOf(key);
    expect(id).toMatch(/^sub_[0-9a-f]{32}$/);
    expect(subscriptionIdOf({ ...key })).toBe(id);
    expect(subscriptionIdOf({ ...key, arguments: { filter: { a: 2, b: 1 }, taskId: 'task-1' } })).toBe(id);
  });

  it.each([
    ['owner', { owner: 'bob' }],
    ['url', { url: 'https://hooks.example.com/mcp2' }],
    ['name', { name: 'tasks.updated' }],
    ['arguments', { arguments: { taskId: 'task-2', filter: { b: 1, a: 2 } } }],
    ['nested argument', { arguments: { taskId: 'task-1', filter: { b: 1, a: 3 } } }],
  ])('differs when the %s differs', (_part, change) => {
    expect(subscriptionIdOf({ ...key, ...change })).not.toBe(subscriptionIdOf(key));
  });

  it('does not let one part run into the next', () => {
    const a = { ...key, owner: 'alice', url: 'https://hooks.example.com/x' };
    const b = { ...key, owner: 'alice","https://hooks.example.com/x', url: '' };
    expect(subscriptionIdOf(a)).not.toBe(subscriptionIdOf(b));
  });
});

describe('isLive', () => {
  it('holds before its grant ends, never from the end on, and always without an end', () => {
    expect(isLive({ refreshBefore: T0 + 1 }, T0)).toBe(true);
    expect(isLive({ refreshBefore: T0 }, T0)).toBe(false);
    expect(isLive({ refreshBefore: T0 - 1 }, T0)).toBe(false);
    expect(isLive({ refreshBefore: null }, T0)).toBe(true);
  });
});
