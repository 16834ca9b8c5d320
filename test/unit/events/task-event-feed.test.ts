// Reading a task's event log for a client, on the in-memory store: pages after a position, at most MAX_PAGE_EVENTS,
// where the next read starts, whether more wait, and where "from now" is.
import { describe, expect, it } from 'vitest';
import { TaskEventChange, type NewTaskEvent } from '../../../lambda/core/task-event.js';
import { TaskStatus } from '../../../lambda/core/task-status.js';
import { MAX_PAGE_EVENTS, TaskEventFeed } from '../../../lambda/events/task-event-feed.js';
import { InMemoryTaskEventStore } from '../../../lambda/store/in-memory-task-event-store.js';
import { ManualClock } from '../../contract/task-fixtures.js';

const START = Date.UTC(2030, 0, 1);

function newEvent(owner: string, taskId: string, at: number): NewTaskEvent {
  return {
    owner,
    taskId,
    at,
    changes: [TaskEventChange.Status],
    task: { taskId, toolName: 'text_stats', status: TaskStatus.Working },
  };
}

/** A feed over a store holding `count` events of alice's task t1. */
async function feedWith(count: number) {
  const store = new InMemoryTaskEventStore({ clock: new ManualClock(START) });
  for (let index = 1; index <= count; index += 1)
    await store.append(newEvent('alice', 't1', START + index), `${index}`);
  return new TaskEventFeed(store);
}

describe('TaskEventFeed', () => {
  it('starts "from now" at the newest event, and at 0 for a task with none', async () => {
    const feed = await feedWith(3);
    expect(await feed.now('alice', 't1')).toBe(3);
    expect(await feed.now('alice', 't2')).toBe(0);
    expect(await feed.now('bob', 't1')).toBe(0);
  });

  it('reads the events after a position, oldest first, up to the limit, saying whether more wait', async () => {
    const feed = await feedWith(5);
    const first = await feed.page('alice', 't1', 0, 2);
    expect(first.events.map((event) => event.seq)).toEqual([1, 2]);
    expect(first).toMatchObject({ after: 2, hasMore: true });
    const rest = await feed.page('alice', 't1', first.after, 3);
    expect(rest.events.map((event) => event.seq)).toEqual([3, 4, 5]);
    expect(rest).toMatchObject({ after: 5, hasMore: false });
  });

  it('answers a read past the end with no events, staying where it started', async () => {
    const feed = await feedWith(2);
    expect(await feed.page('alice', 't1', 2)).toEqual({ events: [], after: 2, hasMore: false });
    expect(await feed.page('bob', 't1', 0)).toEqual({ events: [], after: 0, hasMore: false });
  });

  it(`holds at most ${MAX_PAGE_EVENTS} events a page, whatever limit is asked`, async () => {
    const feed = await feedWith(MAX_PAGE_EVENTS + 5);
    const page = await feed.page('alice', 't1', 0, 1_000);
    expect(page.events).toHaveLength(MAX_PAGE_EVENTS);
    expect(page).toMatchObject({ after: MAX_PAGE_EVENTS, hasMore: true });
    expect((await feed.page('alice', 't1', 0)).events).toHaveLength(MAX_PAGE_EVENTS);
    expect(await feed.page('alice', 't1', MAX_PAGE_EVENTS)).toMatchObject({
      after: MAX_PAGE_EVENTS + 5,
      hasMore: false,
    });
  });
});
