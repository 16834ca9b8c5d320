// The event types this server offers through the Events extension, and what they deliver. Two, in the order
// events/list shows them:
// - `tasks.updated`: every change of any task of the principal, optionally of one task; webhook only, no replay (a
//   principal's tasks have no one order, so there is no position to resume from).
// - `task.events`: one task's event log, in order, resumable from a cursor; poll, push and webhook.
import { taskEventId, type TaskEvent, TaskEventChange } from '../core/task-event.js';
import { TaskStatus } from '../core/task-status.js';
import {
  DeliveryModeUnsupportedError,
  EventTypeNotFoundError,
  InvalidEventParamsError,
  type DeliveryMode,
} from './event-errors.js';

export const TASKS_UPDATED = 'tasks.updated';
export const TASK_EVENTS = 'task.events';

type JsonSchema = Readonly<Record<string, unknown>>;

export interface EventTypeDescriptor {
  readonly name: string;
  readonly description: string;
  readonly delivery: readonly DeliveryMode[];
  readonly inputSchema: JsonSchema;
  readonly payloadSchema: JsonSchema;
}

const TASK_ID = { type: 'string', minLength: 1, description: 'A task ID, as tools/call returned it' } as const;

const PAYLOAD_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['taskId', 'seq', 'changes', 'task'],
  properties: {
    taskId: { type: 'string' },
    seq: { type: 'integer', minimum: 1, description: "The event's position in its task's log: 1, 2, 3, …" },
    changes: { type: 'array', items: { enum: Object.values(TaskEventChange) } },
    task: {
      type: 'object',
      required: ['taskId', 'toolName', 'status'],
      properties: {
        taskId: { type: 'string' },
        toolName: { type: 'string' },
        status: { enum: Object.values(TaskStatus) },
        statusMessage: { type: 'string' },
        progress: {
          type: 'object',
          properties: { progress: { type: 'number' }, total: { type: 'number' } },
        },
        currentStep: { type: 'string' },
        openInputRequests: { type: 'array', items: { type: 'string' } },
      },
    },
  },
};

export const EVENT_TYPES: readonly EventTypeDescriptor[] = [
  {
    name: TASKS_UPDATED,
    description:
      "Fires on every change of the caller's tasks (status, message, progress, current step, input requests). " +
      'Give taskId to hear of one task only.',
    delivery: ['webhook'],
    inputSchema: { type: 'object', properties: { taskId: TASK_ID }, additionalProperties: false },
    payloadSchema: PAYLOAD_SCHEMA,
  },
  {
    name: TASK_EVENTS,
    description:
      "One task's events, in order, each numbered (seq): resume from the last cursor and nothing is missed or " +
      'repeated. Cursor "0" replays the log from its start.',
    delivery: ['poll', 'push', 'webhook'],
    inputSchema: { type: 'object', required: ['taskId'], properties: { taskId: TASK_ID }, additionalProperties: false },
    payloadSchema: PAYLOAD_SCHEMA,
  },
];

/** The event type by name; an unknown one is NotFound. */
export function eventTypeNamed(name: unknown): EventTypeDescriptor {
  if (typeof name !== 'string' || name === '')
    throw new InvalidEventParamsError('params.name must be the name of an event type (see events/list)');
  const type = EVENT_TYPES.find((each) => each.name === name);
  if (type === undefined) throw new EventTypeNotFoundError(name);
  return type;
}

export function requireMode(type: EventTypeDescriptor, mode: DeliveryMode): void {
  if (!type.delivery.includes(mode))
    throw new DeliveryModeUnsupportedError(
      mode,
      `Event type '${type.name}' is not delivered by ${mode}; it offers ${type.delivery.join(', ')}`,
    );
}

/** What a subscription's arguments select: one task's events, or all of the principal's. */
export interface EventFilter {
  readonly taskId?: string;
}

/** The arguments checked against the type's input schema (both are this small, so checked by hand). */
export function filterOf(type: EventTypeDescriptor, args: unknown): EventFilter {
  const given = args ?? {};
  if (typeof given !== 'object' || Array.isArray(given))
    throw new InvalidEventParamsError('params.arguments must be an object');
  const { taskId, ...rest } = given as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0)
    throw new InvalidEventParamsError(
      `Event type '${type.name}' takes no argument ${unknown.map((each) => `'${each}'`).join(', ')}; it takes taskId`,
    );
  if (taskId === undefined) {
    if (type.name === TASK_EVENTS)
      throw new InvalidEventParamsError(`Event type '${TASK_EVENTS}' needs arguments.taskId: the task to follow`);
    return {};
  }
  if (typeof taskId !== 'string' || taskId === '')
    throw new InvalidEventParamsError('arguments.taskId must be a non-empty string');
  return { taskId };
}

/** Whether an event of the principal's task belongs to a subscription with this filter. */
export function matches(filter: EventFilter, event: Pick<TaskEvent, 'taskId'>): boolean {
  return filter.taskId === undefined || filter.taskId === event.taskId;
}

/** An event as the Events extension delivers it (poll item, push notification, webhook body). */
export interface EventOccurrence {
  readonly eventId: string;
  readonly name: string;
  readonly timestamp: string;
  readonly data: {
    readonly taskId: string;
    readonly seq: number;
    readonly changes: TaskEvent['changes'];
    readonly task: TaskEvent['task'];
  };
  /** The position after this event in `task.events`; `null` for `tasks.updated`, which has no replay. */
  readonly cursor: string | null;
}

export function occurrenceOf(name: string, event: TaskEvent): EventOccurrence {
  return {
    eventId: taskEventId(event),
    name,
    timestamp: new Date(event.at).toISOString(),
    data: { taskId: event.taskId, seq: event.seq, changes: event.changes, task: event.task },
    cursor: name === TASK_EVENTS ? cursorOf(event.seq) : null,
  };
}

export function cursorOf(seq: number): string {
  return String(seq);
}

/** The position a client's cursor names: `null` (or absent) means from now; a bad cursor is InvalidParams. */
export function seqOfCursor(cursor: unknown): number | null {
  if (cursor === null || cursor === undefined) return null;
  if (typeof cursor === 'string' && /^(0|[1-9][0-9]{0,11})$/.test(cursor)) return Number(cursor);
  throw new InvalidEventParamsError(
    'cursor must be null (from now), "0" (from the start) or a cursor this server returned',
  );
}
