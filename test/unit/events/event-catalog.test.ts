// The event types this server offers and the checks on what a client names: the type, its delivery mode, its
// arguments and a cursor; and an event as the Events extension delivers it (its ID, timestamp and cursor).
import { describe, expect, it } from 'vitest';
import { TaskEventChange, type TaskEvent } from '../../../lambda/core/task-event.js';
import { TaskStatus } from '../../../lambda/core/task-status.js';
import {
  EVENT_TYPES,
  eventTypeNamed,
  filterOf,
  matches,
  occurrenceOf,
  requireMode,
  seqOfCursor,
  TASK_EVENTS,
  TASKS_UPDATED,
} from '../../../lambda/events/event-catalog.js';
import {
  DeliveryModeUnsupportedError,
  EventTypeNotFoundError,
  InvalidEventParamsError,
} from '../../../lambda/events/event-errors.js';

const tasksUpdated = eventTypeNamed(TASKS_UPDATED);
const taskEvents = eventTypeNamed(TASK_EVENTS);

/** What `run` throws (undefined when it returns). */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('the event types', () => {
  it('lists tasks.updated (webhook only), then task.events (poll, push, webhook)', () => {
    expect(EVENT_TYPES.map(({ name, delivery }) => ({ name, delivery }))).toEqual([
      { name: 'tasks.updated', delivery: ['webhook'] },
      { name: 'task.events', delivery: ['poll', 'push', 'webhook'] },
    ]);
  });

  it('requires taskId in task.events arguments only', () => {
    expect(taskEvents.inputSchema['required']).toEqual(['taskId']);
    expect(tasksUpdated.inputSchema['required']).toBeUndefined();
  });
});

describe('eventTypeNamed', () => {
  it('finds each type by its name', () => {
    expect(eventTypeNamed('tasks.updated').name).toBe('tasks.updated');
    expect(eventTypeNamed('task.events').name).toBe('task.events');
  });

  it.each(['task.updated', 'TASK.EVENTS', 'tasks.updated ', 'toString'])('answers %j with NotFound', (name) => {
    const thrown = thrownBy(() => eventTypeNamed(name));
    expect(thrown).toBeInstanceOf(EventTypeNotFoundError);
    expect(thrown).toMatchObject({ eventName: name });
  });

  it.each([undefined, null, '', 42, ['task.events']])(
    'answers a missing or non-string name %j as invalid params',
    (name) => {
      expect(() => eventTypeNamed(name)).toThrow(InvalidEventParamsError);
    },
  );
});

describe('requireMode', () => {
  it('allows the modes a type offers', () => {
    for (const mode of ['poll', 'push', 'webhook'] as const) expect(() => requireMode(taskEvents, mode)).not.toThrow();
    expect(() => requireMode(tasksUpdated, 'webhook')).not.toThrow();
  });

  it.each(['poll', 'push'] as const)('refuses %s for tasks.updated, naming what it offers', (mode) => {
    const thrown = thrownBy(() => requireMode(tasksUpdated, mode));
    expect(thrown).toBeInstanceOf(DeliveryModeUnsupportedError);
    expect(thrown).toMatchObject({ mode, message: expect.stringContaining('offers webhook') });
  });
});

describe('filterOf', () => {
  it('takes tasks.updated with no arguments, or with one task', () => {
    expect(filterOf(tasksUpdated, undefined)).toEqual({});
    expect(filterOf(tasksUpdated, null)).toEqual({});
    expect(filterOf(tasksUpdated, {})).toEqual({});
    expect(filterOf(tasksUpdated, { taskId: 't1' })).toEqual({ taskId: 't1' });
  });

  it('takes task.events with its task, and refuses it without one', () => {
    expect(filterOf(taskEvents, { taskId: 't1' })).toEqual({ taskId: 't1' });
    expect(() => filterOf(taskEvents, {})).toThrow(/needs arguments.taskId/);
    expect(() => filterOf(taskEvents, undefined)).toThrow(InvalidEventParamsError);
  });

  it.each([tasksUpdated, taskEvents])('refuses arguments $name does not take, naming them', (type) => {
    expect(() => filterOf(type, { taskId: 't1', status: 'working', since: 3 })).toThrow(
      /takes no argument 'status', 'since'; it takes taskId/,
    );
  });

  it.each([
    ['a number', 42],
    ['an empty string', ''],
    ['an array', ['t1']],
    ['null', null],
  ])('refuses a taskId that is %s', (_what, taskId) => {
    for (const type of [tasksUpdated, taskEvents])
      expect(() => filterOf(type, { taskId })).toThrow(/arguments.taskId must be a non-empty string/);
  });

  it.each([
    ['a string', 'taskId=t1'],
    ['an array', [{ taskId: 't1' }]],
    ['a number', 7],
  ])('refuses arguments that are %s', (_what, args) => {
    expect(() => filterOf(tasksUpdated, args)).toThrow(/params.arguments must be an object/);
  });
});

describe('matches', () => {
  it('lets every event of the principal through a filter without a task, and one task through its own', () => {
    expect(matches({}, { taskId: 't1' })).toBe(true);
    expect(matches({ taskId: 't1' }, { taskId: 't1' })).toBe(true);
    expect(matches({ taskId: 't1' }, { taskId: 't2' })).toBe(false);
  });
});

describe('occurrenceOf', () => {
  const event: TaskEvent = {
    owner: 'alice',
    taskId: 't1',
    seq: 7,
    at: Date.UTC(2030, 4, 6, 7, 8, 9, 123),
    changes: [TaskEventChange.Status, TaskEventChange.StatusMessage],
    task: { taskId: 't1', toolName: 'text_stats', status: TaskStatus.Completed },
    expiresAt: Date.UTC(2030, 5, 1),
  };

  it('delivers a task.events event with its number as the cursor', () => {
    expect(occurrenceOf(TASK_EVENTS, event)).toEqual({
      eventId: 'evt_t1_7',
      name: 'task.events',
      timestamp: '2030-05-06T07:08:09.123Z',
      data: { taskId: 't1', seq: 7, changes: ['status', 'statusMessage'], task: event.task },
      cursor: '7',
    });
  });

  it('delivers a tasks.updated event without a cursor (no replay), and nothing of the owner or expiry', () => {
    const occurrence = occurrenceOf(TASKS_UPDATED, event);
    expect(occurrence).toMatchObject({ eventId: 'evt_t1_7', name: 'tasks.updated', cursor: null });
    expect(JSON.stringify(occurrence)).not.toMatch(/alice|expiresAt|owner/);
  });
});

describe('seqOfCursor', () => {
  it('reads no cursor as from now', () => {
    expect(seqOfCursor(null)).toBeNull();
    expect(seqOfCursor(undefined)).toBeNull();
  });

  it('reads "0" as the start and a number as a position', () => {
    expect(seqOfCursor('0')).toBe(0);
    expect(seqOfCursor('12')).toBe(12);
    expect(seqOfCursor('999999999999')).toBe(999_999_999_999);
  });

  it.each(['01', '-1', '1.5', '1e3', ' 1', '1 ', '', 'abc', '0x10', '1000000000000', 12, 0, true, {}, ['1']])(
    'refuses %j as invalid params',
    (cursor) => {
      expect(() => seqOfCursor(cursor)).toThrow(InvalidEventParamsError);
    },
  );
});
