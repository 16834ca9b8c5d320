// TaskEventStore in memory, for fast unit tests and the local stack's stand-ins: the same guarantees as the DynamoDB
// store, held by one contract suite (test/contract/task-event-store-contract.ts). Each append is one synchronous step,
// so appends never race; events past their expiry are kept (numbering goes on past them, as it does in DynamoDB until
// TTL removes them) but never read. Not for production.
import type { Clock } from '../core/clock.js';
import { taskKey } from '../core/task-key.js';
import type { NewTaskEvent, TaskEvent } from '../core/task-event.js';
import { streamPosition } from './event-table-keys.js';
import type { TaskEventStore } from './task-event-store.js';

export interface InMemoryTaskEventStoreOptions {
  /** Judges which events are past their expiry. */
  readonly clock: Pick<Clock, 'now'>;
}

/** An event as kept: with the change-stream position it was appended for. */
interface Entry {
  readonly event: TaskEvent;
  readonly source: string;
}

export class InMemoryTaskEventStore implements TaskEventStore {
  private readonly clock: Pick<Clock, 'now'>;
  /** Per task key (core/task-key), its events in order: the one numbered n at index n - 1. */
  private readonly logs = new Map<string, Entry[]>();

  constructor(options: InMemoryTaskEventStoreOptions) {
    this.clock = options.clock;
  }

  async append(event: NewTaskEvent, source: string): Promise<TaskEvent> {
    const position = streamPosition(source);
    const key = taskKey(event.owner, event.taskId);
    const log = this.logs.get(key) ?? [];
    this.logs.set(key, log);
    const newest = log.at(-1);
    if (newest !== undefined && streamPosition(newest.source) >= position) {
      // A change appended before: its own event, or (if it made none here) the newest.
      const same = log.findLast((entry) => entry.source === source) ?? newest;
      return structuredClone(same.event);
    }
    const appended: TaskEvent = { ...structuredClone(event), seq: log.length + 1 };
    log.push({ event: appended, source });
    return structuredClone(appended);
  }

  async readAfter(owner: string, taskId: string, afterSeq: number, limit: number): Promise<TaskEvent[]> {
    if (limit <= 0) return [];
    return this.liveEvents(owner, taskId)
      .filter((event) => event.seq > afterSeq)
      .slice(0, limit)
      .map((event) => structuredClone(event));
  }

  async lastSeq(owner: string, taskId: string): Promise<number> {
    return this.liveEvents(owner, taskId).at(-1)?.seq ?? 0;
  }

  private liveEvents(owner: string, taskId: string): TaskEvent[] {
    const now = this.clock.now();
    return (this.logs.get(taskKey(owner, taskId)) ?? [])
      .map((entry) => entry.event)
      .filter((event) => event.expiresAt === undefined || event.expiresAt > now);
  }
}
