// TaskStore in memory, for fast unit tests: the same guarantees as the DynamoDB store (read-time expiry, owner-scoped
// keys, conditional status moves, the request-ID mapping, owner-bound list cursors), held by one contract suite
// (test/contract/task-store-contract.ts). Every write and read copies, so a caller never shares state with the store.
// Not for production: one process's memory, nothing swept (an expired task stays, reading as expired, until replaced
// or deleted).
import { SYSTEM_CLOCK, type Clock } from '../core/clock.js';
import {
  IllegalTransitionError,
  InvalidCursorError,
  TaskAlreadyExistsError,
  TaskExpiredError,
  TaskNotFoundError,
} from '../core/errors.js';
import type { InputRequest } from '../core/input-request.js';
import { isExpired, TaskOrigin, type TaskRecord, type TaskSummary } from '../core/task.js';
import { isTerminal, statusesExecutionNewsMayMove } from '../core/task-status.js';
import { taskKey } from '../core/task-key.js';
import type { TaskChange, TaskPage, TaskStore } from './task-store.js';
import { ANY_OWNER, judge, live } from './task-visibility.js';

export interface InMemoryTaskStoreOptions {
  /** @default SYSTEM_CLOCK */
  readonly clock?: Pick<Clock, 'now'>;
}

/** The fields of a task a listing shows (core/task TaskSummary): what DynamoDB's owner index holds. */
const SUMMARY_FIELDS = [
  'taskId',
  'owner',
  'toolName',
  'origin',
  'executionArn',
  'status',
  'statusMessage',
  'createdAt',
  'lastUpdatedAt',
  'lastCheckedAt',
  'completedAt',
  'retention',
  'pollIntervalMs',
  'toolError',
] as const satisfies readonly (keyof TaskSummary)[];

/** Where a list page ended: the last task shown, by the order of the listing (newest first, then key). */
interface ListPosition {
  readonly owner: string;
  readonly createdAt: number;
  readonly key: string;
}

export class InMemoryTaskStore implements TaskStore {
  private readonly clock: Pick<Clock, 'now'>;
  /** Task records by task key (core/task-key), as stored: their input requests keep the sibling store's fields. */
  private readonly tasks = new Map<string, TaskRecord>();
  /** Task ID by taskKey(owner, request ID): the (owner, request ID) mapping, overwritten by the latest task. */
  private readonly requests = new Map<string, string>();

  constructor(options: InMemoryTaskStoreOptions = {}) {
    this.clock = options.clock ?? SYSTEM_CLOCK;
  }

  async create(task: TaskRecord): Promise<void> {
    const key = taskKey(task.owner, task.taskId);
    const existing = this.tasks.get(key);
    // An expired task may be replaced; a live one never.
    if (existing !== undefined && !isExpired(existing, this.clock.now())) throw new TaskAlreadyExistsError(task.taskId);
    this.tasks.set(key, structuredClone(task));
    if (task.requestId !== undefined) this.requests.set(taskKey(task.owner, task.requestId), task.taskId);
  }

  async get(owner: string, taskId: string): Promise<TaskRecord | null> {
    const lookup = judge(this.tasks.get(taskKey(owner, taskId)), owner, this.clock.now());
    if (lookup.kind === 'expired') throw new TaskExpiredError(taskId, { task: shown(lookup.task) });
    return lookup.kind === 'found' ? shown(lookup.task) : null;
  }

  async findByRequest(owner: string, requestId: string): Promise<TaskRecord | null> {
    const taskId = this.requests.get(taskKey(owner, requestId));
    if (taskId === undefined) return null;
    const task = live(judge(this.tasks.get(taskKey(owner, taskId)), owner, this.clock.now()));
    // A mapping left behind by a replaced task must not reach a later task that reuses its ID.
    return task?.requestId === requestId ? shown(task) : null;
  }

  async getByKey(key: string): Promise<TaskRecord | null> {
    const task = live(judge(this.tasks.get(key), ANY_OWNER, this.clock.now()));
    return task === null ? null : shown(task);
  }

  async update(task: TaskRecord, change: TaskChange): Promise<TaskRecord> {
    const key = taskKey(task.owner, task.taskId);
    const stored = live(judge(this.tasks.get(key), task.owner, this.clock.now()));
    // executionArn pins the very task read: a task created anew under the same ID is another task.
    if (stored === null || stored.executionArn !== task.executionArn) throw new TaskNotFoundError(task.taskId);
    // Execution news never takes a task out of input_required: only the answer path does (in-memory-input-requests).
    if (!statusesExecutionNewsMayMove(change.status).includes(stored.status))
      throw new IllegalTransitionError(task.taskId, stored.status, change.status);
    const { statusMessage: _replaced, nextCheckAt, ...rest } = stored;
    const next: TaskRecord = {
      ...rest,
      // A terminal task has no execution left to check.
      ...(nextCheckAt !== undefined && !isTerminal(change.status) ? { nextCheckAt } : {}),
      status: change.status,
      lastUpdatedAt: change.at,
      ...(change.statusMessage !== undefined ? { statusMessage: change.statusMessage } : {}),
      ...(change.output !== undefined ? { output: change.output } : {}),
      ...(change.toolError === true ? { toolError: true } : {}),
      ...(change.currentStep !== undefined ? { currentStep: change.currentStep } : {}),
      ...(isTerminal(change.status) ? { completedAt: change.at } : {}),
    };
    this.tasks.set(key, next);
    return shown(next);
  }

  async findCheckDue(now: number, limit: number): Promise<string[]> {
    return [...this.tasks]
      .filter(([, task]) => !isTerminal(task.status) && task.nextCheckAt !== undefined && task.nextCheckAt <= now)
      .sort(([, a], [, b]) => a.nextCheckAt! - b.nextCheckAt!)
      .slice(0, limit)
      .map(([key]) => key);
  }

  async claimCheck(task: TaskRecord, now: number, next: number): Promise<boolean> {
    return this.updateActive(task, (stored) =>
      stored.nextCheckAt === task.nextCheckAt ? { ...stored, lastCheckedAt: now, nextCheckAt: next } : undefined,
    );
  }

  async recordCurrentStep(task: TaskRecord, step: string): Promise<void> {
    this.updateActive(task, (stored) => ({ ...stored, currentStep: step }));
  }

  async handOff(task: TaskRecord): Promise<boolean> {
    return this.updateActive(task, (stored) =>
      stored.origin === TaskOrigin.Direct ? { ...stored, origin: TaskOrigin.Handoff } : undefined,
    );
  }

  /** Writes what `write` makes of the very task read (same execution) while it is active; false when refused. */
  private updateActive(task: TaskRecord, write: (stored: TaskRecord) => TaskRecord | undefined): boolean {
    const key = taskKey(task.owner, task.taskId);
    const stored = this.tasks.get(key);
    if (stored === undefined || stored.executionArn !== task.executionArn || isTerminal(stored.status)) return false;
    const next = write(stored);
    if (next === undefined) return false;
    this.tasks.set(key, next);
    return true;
  }

  async list(owner: string, options: { cursor?: string; limit: number }): Promise<TaskPage> {
    const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor, owner);
    const now = this.clock.now();
    // Plain calls' tasks are not listed, as they stay out of DynamoDB's owner index.
    const listed = [...this.tasks]
      .map(([key, task]) => ({ owner: task.owner, createdAt: task.createdAt, key, task }))
      .filter(({ task }) => task.owner === owner && task.origin !== TaskOrigin.Direct && !isExpired(task, now))
      .sort((a, b) => b.createdAt - a.createdAt || (a.key < b.key ? 1 : a.key > b.key ? -1 : 0))
      .filter((position) => after === undefined || comesAfter(position, after));
    const page = listed.slice(0, options.limit);
    const tasks = page.map(({ task }) => summaryOf(task));
    const last = page.at(-1);
    return listed.length > page.length && last !== undefined
      ? { tasks, nextCursor: encodeCursor({ owner, createdAt: last.createdAt, key: last.key }) }
      : { tasks };
  }

  async delete(owner: string, taskId: string): Promise<boolean> {
    const key = taskKey(owner, taskId);
    const deleted = live(judge(this.tasks.get(key), owner, this.clock.now()));
    this.tasks.delete(key);
    if (deleted?.requestId !== undefined && this.requests.get(taskKey(owner, deleted.requestId)) === taskId)
      this.requests.delete(taskKey(owner, deleted.requestId));
    return deleted !== null;
  }

  /**
   * For the sibling in-memory stores only (input requests, progress), which keep their state on the task record as
   * the DynamoDB stores keep theirs on the task item; never for other callers. `write` gets a copy of the record stored
   * under `key` (whoever owns it, expired or not; `undefined` when none) and the store's time, and returns the record
   * to store, or `undefined` to write nothing. It runs synchronously, so its check and its write are one atomic step,
   * as a conditional UpdateItem is. Input requests on the records it sees and returns may carry fields no read shows
   * (the input-request store's token and claim). Returns a copy of the record written, or `undefined`.
   */
  mutate(
    key: string,
    write: (stored: TaskRecord | undefined, now: number) => TaskRecord | undefined,
  ): TaskRecord | undefined {
    const stored = this.tasks.get(key);
    const next = write(stored === undefined ? undefined : structuredClone(stored), this.clock.now());
    if (next === undefined) return undefined;
    this.tasks.set(key, structuredClone(next));
    return structuredClone(next);
  }
}

/** A copy of a stored record as a read shows it: each input request with its own fields only (no token, no claim). */
function shown(task: TaskRecord): TaskRecord {
  const copy = structuredClone(task);
  if (copy.inputRequests === undefined) return copy;
  const inputRequests = Object.fromEntries(
    Object.entries(copy.inputRequests).map(([key, request]): [string, InputRequest] => [
      key,
      {
        key: request.key,
        request: request.request,
        state: request.state,
        askedAt: request.askedAt,
        ...(request.deadlineAt !== undefined ? { deadlineAt: request.deadlineAt } : {}),
      },
    ]),
  );
  return { ...copy, inputRequests };
}

function summaryOf(task: TaskRecord): TaskSummary {
  const fields = SUMMARY_FIELDS.filter((field) => task[field] !== undefined).map((field) => [field, task[field]]);
  return structuredClone(Object.fromEntries(fields) as TaskSummary);
}

/** Whether `position` comes after `cursor` in a listing: older, or as old with a lower key. */
function comesAfter(position: ListPosition, cursor: ListPosition): boolean {
  return (
    position.createdAt < cursor.createdAt || (position.createdAt === cursor.createdAt && position.key < cursor.key)
  );
}

function encodeCursor(position: ListPosition): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/** The position a cursor holds; throws `InvalidCursorError` unless it is one this owner's listing made. */
function decodeCursor(cursor: string, owner: string): ListPosition {
  let position: unknown;
  try {
    position = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch (error) {
    throw new InvalidCursorError({ cause: error });
  }
  const candidate = position as Partial<ListPosition> | null;
  const valid =
    typeof candidate === 'object' &&
    candidate !== null &&
    Object.keys(candidate).length === 3 &&
    candidate.owner === owner &&
    Number.isSafeInteger(candidate.createdAt) &&
    typeof candidate.key === 'string';
  if (!valid) throw new InvalidCursorError();
  return candidate as ListPosition;
}
