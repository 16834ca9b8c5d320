// Reading one task's event log for a client: a page after a position (events/poll, and each look of an open
// events/stream), and where "from now" starts. The owner is part of every read, so another principal's task reads as
// an empty log; the protocol checks first that the task is the caller's, so the empty log never answers for it.
import type { TaskEvent } from '../core/task-event.js';
import type { TaskEventStore } from '../store/task-event-store.js';

/** The most events one page holds. */
export const MAX_PAGE_EVENTS = 100;

export interface TaskEventPage {
  readonly events: readonly TaskEvent[];
  /** The position after the page: the last event's number, or where the read started when there was none. */
  readonly after: number;
  /** More events wait after this page. */
  readonly hasMore: boolean;
}

export class TaskEventFeed {
  constructor(private readonly store: TaskEventStore) {}

  /** The position of the task's newest event: where a reader that wants only what comes next starts. */
  now(owner: string, taskId: string): Promise<number> {
    return this.store.lastSeq(owner, taskId);
  }

  /** Up to `limit` (at most {@link MAX_PAGE_EVENTS}) events after `after`, oldest first. */
  async page(owner: string, taskId: string, after: number, limit = MAX_PAGE_EVENTS): Promise<TaskEventPage> {
    const size = Math.min(limit, MAX_PAGE_EVENTS);
    const read = await this.store.readAfter(owner, taskId, after, size + 1);
    const events = read.slice(0, size);
    return { events, after: events.at(-1)?.seq ?? after, hasMore: read.length > size };
  }
}
