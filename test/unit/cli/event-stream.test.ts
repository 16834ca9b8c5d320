// Following a task's event stream across dropped connections: the follower reconnects with the cursor of the last event
// it saw (in params and as Last-Event-ID), so the reader gets every event once, in order, however the connection is
// cut; it gives up after a few failed reconnections in a row, and says so, for the caller to poll instead.
import { describe, expect, it } from 'vitest';
import { EventStreamUnavailableError, UnknownTaskError } from '../../../cli/cli-errors.js';
import {
  followTaskEvents,
  HttpTaskEvents,
  occurrenceOf,
  type FollowTaskEventsOptions,
} from '../../../cli/event-stream.js';
import type { FollowItem } from '../../../cli/task-client.js';
import { fakeEventsServer, logOf, occurrence, TASK_ID, type ConnectionPlan } from './fake-events-server.js';

const ENDPOINT = { url: 'http://127.0.0.1:1/mcp', token: 'token-alice' };

/** Follows TASK_ID on a fake server to the end; returns what it yielded, the requests, and the pauses it took. */
async function follow(
  length: number,
  plans: ConnectionPlan[],
  options: Partial<FollowTaskEventsOptions> = {},
): Promise<{ items: FollowItem[]; requests: ReturnType<typeof fakeEventsServer>['requests']; pauses: number[] }> {
  const server = fakeEventsServer(logOf(length), plans);
  const pauses: number[] = [];
  const items: FollowItem[] = [];
  for await (const item of followTaskEvents({
    endpoint: ENDPOINT,
    fetch: server.fetch,
    taskId: TASK_ID,
    isEnded: async () => false,
    sleep: async (ms) => void pauses.push(ms),
    ...options,
  }))
    items.push(item);
  return { items, requests: server.requests, pauses };
}

const seqs = (items: FollowItem[]) =>
  items.flatMap((item) => (item.kind === 'event' ? [item.occurrence.data.seq] : []));

describe('followTaskEvents', () => {
  it('asks for the whole log with cursor "0" and the bearer token, and stops at the terminal event', async () => {
    const { items, requests } = await follow(4, []);
    expect(seqs(items)).toEqual([1, 2, 3, 4]);
    expect(items.every((item) => item.kind === 'event')).toBe(true);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      method: 'events/stream',
      params: { name: 'task.events', arguments: { taskId: TASK_ID }, cursor: '0' },
      headers: { authorization: 'Bearer token-alice', accept: 'application/json, text/event-stream' },
    });
    expect(requests[0]!.headers['last-event-id']).toBeUndefined();
  });

  it.each([
    ['closed without the final response', 'close'],
    ['cut by a network error', 'error'],
    ['cut in the middle of a frame', 'cut'],
  ] as const)('after a connection %s, reconnects with the last cursor: no event missed, none twice', async (_, end) => {
    const { items, requests, pauses } = await follow(7, [{ events: 2, end }, { events: 3, end }, {}]);
    expect(seqs(items)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(requests.map((request) => request.params['cursor'])).toEqual(['0', '2', '5']);
    expect(requests.map((request) => request.headers['last-event-id'])).toEqual([undefined, '2', '5']);
    // Each reconnection came after new events, so each is a first attempt, after the first backoff.
    expect(items.filter((item) => item.kind === 'reconnecting')).toEqual([
      expect.objectContaining({ kind: 'reconnecting', cursor: '2', attempt: 1 }),
      expect.objectContaining({ kind: 'reconnecting', cursor: '5', attempt: 1 }),
    ]);
    expect(pauses).toEqual([500, 500]);
  });

  it('skips events a server sends again (one that replays from the start after a reconnection)', async () => {
    const { items } = await follow(5, [{ events: 3, end: 'error' }, { ignoreCursor: true }]);
    expect(seqs(items)).toEqual([1, 2, 3, 4, 5]);
  });

  it('reconnects from a refused connection and an HTTP 502 alike, with a growing backoff', async () => {
    const { items, requests, pauses } = await follow(3, [
      { events: 1, end: 'close' },
      { refuse: true },
      { http: 502 },
      {},
    ]);
    expect(seqs(items)).toEqual([1, 2, 3]);
    expect(requests.map((request) => request.params['cursor'])).toEqual(['0', '1', '1', '1']);
    expect(pauses).toEqual([500, 1000, 2000]);
  });

  it('gives up after the retries in a row, with EventStreamUnavailableError', async () => {
    const run = follow(3, [{ events: 1, end: 'close' }, { refuse: true }, { refuse: true }, { refuse: true }], {
      retries: 2,
    });
    await expect(run).rejects.toThrow(EventStreamUnavailableError);
    await expect(run).rejects.toThrow(/dropped 3 times in a row \(last: fetch failed: connect ECONNREFUSED\)/);
  });

  it('a heartbeat counts as life: the tries start over after one', async () => {
    const { items } = await follow(
      3,
      [
        { events: 1, end: 'close' },
        { refuse: true },
        { heartbeat: true, events: 0, end: 'close' },
        { refuse: true },
        {},
      ],
      { retries: 2 },
    );
    expect(seqs(items)).toEqual([1, 2, 3]);
    expect(
      items.filter((item) => item.kind === 'reconnecting').map((item) => item.kind === 'reconnecting' && item.attempt),
    ).toEqual([1, 2, 1, 2]);
  });

  it('when the server ends a stream at its time limit, reconnects at once from the cursor', async () => {
    const { items, requests, pauses } = await follow(4, [{ events: 2, end: 'final' }, {}]);
    expect(seqs(items)).toEqual([1, 2, 3, 4]);
    expect(requests.map((request) => request.params['cursor'])).toEqual(['0', '2']);
    expect(items.some((item) => item.kind === 'reconnecting')).toBe(false);
    expect(pauses).toEqual([]);
  });

  it('stops when a stream ends without a terminal event and the task has ended (a log without its end)', async () => {
    const server = fakeEventsServer(logOf(3).slice(0, 2));
    let asked = 0;
    const items: FollowItem[] = [];
    for await (const item of followTaskEvents({
      endpoint: ENDPOINT,
      fetch: server.fetch,
      taskId: TASK_ID,
      isEnded: async () => ++asked > 0,
    }))
      items.push(item);
    expect(seqs(items)).toEqual([1, 2]);
    expect(asked).toBe(1);
  });

  it('counts a silent connection as dropped once it hears nothing for the idle timeout', async () => {
    const { items, requests } = await follow(3, [{ events: 1, end: 'hang' }, {}], { idleTimeoutMs: 50 });
    expect(seqs(items)).toEqual([1, 2, 3]);
    expect(items).toContainEqual(
      expect.objectContaining({ kind: 'reconnecting', reason: 'nothing from the server for 50 ms' }),
    );
    expect(requests.map((request) => request.params['cursor'])).toEqual(['0', '1']);
  });

  it('starts from a given cursor', async () => {
    const { items, requests } = await follow(5, [], { cursor: '3' });
    expect(seqs(items)).toEqual([4, 5]);
    expect(requests[0]!.params['cursor']).toBe('3');
  });

  it('turns NotFound into UnknownTaskError, and Method not found or bad params into EventStreamUnavailableError', async () => {
    await expect(follow(1, [{ rpcError: { code: -32011, message: 'Task not found' } }])).rejects.toThrow(
      UnknownTaskError,
    );
    await expect(follow(1, [{ rpcError: { code: -32601, message: 'Method not found' } }])).rejects.toThrow(
      EventStreamUnavailableError,
    );
    await expect(follow(1, [{ rpcError: { code: -32602, message: 'bad cursor' } }])).rejects.toThrow(
      /events\/stream was refused: bad cursor \(-32602\)/,
    );
  });

  it('stops when its signal aborts, and aborts the open request', async () => {
    const server = fakeEventsServer(logOf(3), [{ events: 1, end: 'hang' }]);
    const stop = new AbortController();
    const items: FollowItem[] = [];
    const run = (async () => {
      for await (const item of followTaskEvents({
        endpoint: ENDPOINT,
        fetch: server.fetch,
        taskId: TASK_ID,
        signal: stop.signal,
        isEnded: async () => false,
      })) {
        items.push(item);
        stop.abort(new Error('stopped'));
      }
    })();
    await expect(run).rejects.toThrow('stopped');
    expect(seqs(items)).toEqual([1]);
    expect(server.requests).toHaveLength(1);
  });
});

describe('occurrenceOf', () => {
  const withStatus = (status: string) => {
    const event = structuredClone(occurrence(1)) as unknown as { data: { task: { status: string } } };
    event.data.task.status = status;
    return event;
  };

  it("reads a server's own statuses as 2025-11-25 shows them, and one it has never heard of as still running", () => {
    expect(occurrenceOf(withStatus('submitted'))?.data.task.status).toBe('working');
    expect(occurrenceOf(withStatus('unknown'))?.data.task.status).toBe('failed');
    expect(occurrenceOf(withStatus('paused'))?.data.task.status).toBe('working');
    expect(occurrenceOf(withStatus('cancelled'))?.data.task.status).toBe('cancelled');
  });

  it('refuses params that are no task event', () => {
    expect(occurrenceOf({ eventId: 'e', data: { taskId: 't', seq: '1', changes: [], task: {} } })).toBeUndefined();
    expect(occurrenceOf({ data: {} })).toBeUndefined();
  });
});

describe('HttpTaskEvents.subscribe', () => {
  it('sends events/subscribe with webhook delivery and returns the subscription', async () => {
    const sent: Record<string, unknown>[] = [];
    const events = new HttpTaskEvents({
      endpoint: ENDPOINT,
      fetch: async (_url, init) => {
        sent.push(JSON.parse(String(init.body)) as Record<string, unknown>);
        return Response.json({
          jsonrpc: '2.0',
          id: 1,
          result: { resultType: 'complete', id: 'sub_1', refreshBefore: '2026-12-04T00:00:00.000Z', cursor: null },
        });
      },
    });
    const subscription = await events.subscribe({
      name: 'task.events',
      arguments: { taskId: TASK_ID },
      url: 'https://hooks.example.com/hooks',
      secret: 'whsec_x',
      ttlMs: 60_000,
    });
    expect(subscription).toMatchObject({ id: 'sub_1', refreshBefore: '2026-12-04T00:00:00.000Z' });
    expect(sent).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'events/subscribe',
        params: {
          name: 'task.events',
          arguments: { taskId: TASK_ID },
          delivery: { mode: 'webhook', url: 'https://hooks.example.com/hooks', secret: 'whsec_x' },
          cursor: null,
          ttlMs: 60_000,
        },
      },
    ]);
  });

  it("sends the cursor asked for, so the server replays the task's log from it", async () => {
    const sent: Array<{ params: { cursor: unknown } }> = [];
    const events = new HttpTaskEvents({
      endpoint: ENDPOINT,
      fetch: async (_url, init) => {
        sent.push(JSON.parse(String(init.body)) as { params: { cursor: unknown } });
        return Response.json({
          jsonrpc: '2.0',
          id: 1,
          result: { resultType: 'complete', id: 'sub_1', refreshBefore: '2026-12-04T00:00:00.000Z', cursor: '0' },
        });
      },
    });
    await events.subscribe({
      name: 'task.events',
      arguments: { taskId: TASK_ID },
      url: 'https://hooks.example.com/hooks',
      secret: 'whsec_x',
      cursor: '0',
    });
    expect(sent.map((request) => request.params.cursor)).toEqual(['0']);
  });
});
