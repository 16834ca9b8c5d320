// The task event log through the Events extension, end to end: a real server on DynamoDB Local and the Step Functions
// emulator, the task table's stream read by the local stand-in of the event source mapping, and raw JSON-RPC over
// HTTP (neither SDK client knows events/*). Every change of a task becomes one numbered event; a poll or a stream
// reads them after a cursor; a dropped stream resumes with no gap and no repeat.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  connectClient,
  GENEROUS_WAIT,
  progressTable,
  startTestServer,
  TOKENS,
  type TestServer,
} from '../support/local-backend.js';
import { call, createTask, eventStream, headersFor, rpc, type SseFrame } from '../support/events-rpc.js';
import { modernRequest, postModern } from '../support/modern-client.js';

const EVENTS_EXTENSION = 'io.modelcontextprotocol/events';

interface Occurrence {
  eventId: string;
  name: string;
  timestamp: string;
  cursor: string | null;
  data: {
    taskId: string;
    seq: number;
    changes: string[];
    task: { status: string; statusMessage?: string; progress?: { progress?: number; total?: number } };
  };
}

interface PollResult {
  events: Occurrence[];
  cursor: string;
  hasMore: boolean;
  truncated: boolean;
  nextPollMs: number;
  resultType: string;
}

const TERMINAL = ['completed', 'failed', 'cancelled'];

describe('the task event log (Events extension, task.events)', () => {
  let server: TestServer;

  beforeAll(async () => {
    // The progress table: the emulator's progress step records there, so analyze_documents reports progress.
    server = await startTestServer({}, { tableName: progressTable(), events: {} });
  });

  afterAll(async () => {
    await server.close();
  });

  const poll = (taskId: string, cursor: string | null, extra: Record<string, unknown> = {}, token?: string) =>
    rpc<PollResult>(server.url, 'events/poll', { name: 'task.events', arguments: { taskId }, cursor, ...extra }, token);

  async function allEventsOf(taskId: string): Promise<Occurrence[]> {
    let events: Occurrence[] = [];
    await vi.waitUntil(async () => {
      const answer = await poll(taskId, '0');
      if ('error' in answer) throw new Error(answer.error.message);
      events = answer.result.events;
      return events.some((event) => TERMINAL.includes(event.data.task.status));
    }, GENEROUS_WAIT);
    return events;
  }

  it('advertises the extension in the 2025 initialize result and in the 2026-07-28 discovery', async () => {
    const client = await connectClient(server.url);
    expect(client.getServerCapabilities()?.extensions?.[EVENTS_EXTENSION]).toEqual({});
    await client.close();
    const response = await postModern(server.url, modernRequest('server/discover'));
    const body = (await response.json()) as { result: { capabilities: { extensions: Record<string, unknown> } } };
    expect(body.result.capabilities.extensions[EVENTS_EXTENSION]).toEqual({});
  });

  it('lists both event types, each with its delivery modes and schemas', async () => {
    const listed = await call<{ events: Array<{ name: string; delivery: string[]; inputSchema: object }> }>(
      server.url,
      'events/list',
      {},
    );
    expect(listed.events.map(({ name, delivery }) => ({ name, delivery }))).toEqual([
      { name: 'tasks.updated', delivery: ['webhook'] },
      { name: 'task.events', delivery: ['poll', 'push', 'webhook'] },
    ]);
  });

  it('numbers a finished task’s events 1, 2, … and replays them all from cursor "0"', async () => {
    const taskId = await createTask(server.url, 'text_stats', { text: 'one two three' });
    const events = await allEventsOf(taskId);
    expect(events.map((event) => event.data.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events[0]!.data.task.status).toBe('submitted');
    expect(events.at(-1)!.data.task.status).toBe('completed');
    for (const event of events) {
      expect(event.name).toBe('task.events');
      expect(event.eventId).toBe(`evt_${taskId}_${event.data.seq}`);
      expect(event.cursor).toBe(String(event.data.seq));
      expect(Date.parse(event.timestamp)).not.toBeNaN();
    }
  });

  it('reports a workflow’s progress as events, each naming what changed', async () => {
    const taskId = await createTask(server.url, 'analyze_documents', {
      documents: ['The cat sat.', 'A dog ran.', 'Birds fly.'],
      reviewSeconds: 1,
    });
    const events = await allEventsOf(taskId);
    const progress = events.filter((event) => event.data.changes.includes('progress'));
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((event) => event.data.task.progress !== undefined)).toBe(true);
    expect(events.filter((event) => event.data.changes.includes('status')).map((e) => e.data.task.status)).toEqual([
      'submitted',
      'working',
      'completed',
    ]);
  });

  it('pages with maxEvents and hasMore, and a cursor of null starts from now', async () => {
    const taskId = await createTask(server.url, 'text_stats', { text: 'a b' });
    const all = await allEventsOf(taskId);
    const first = await poll(taskId, '0', { maxEvents: 1 });
    if ('error' in first) throw new Error(first.error.message);
    expect(first.result).toMatchObject({ hasMore: true, cursor: '1', truncated: false, resultType: 'complete' });
    expect(first.result.events.map((event) => event.data.seq)).toEqual([1]);
    const rest = await poll(taskId, first.result.cursor);
    if ('error' in rest) throw new Error(rest.error.message);
    expect(rest.result.events.map((event) => event.data.seq)).toEqual(all.slice(1).map((event) => event.data.seq));
    expect(rest.result.hasMore).toBe(false);
    const now = await poll(taskId, null);
    if ('error' in now) throw new Error(now.error.message);
    expect(now.result).toMatchObject({ events: [], cursor: String(all.length), hasMore: false });
    expect(now.result.nextPollMs).toBeGreaterThan(0);
  });

  it('answers another principal’s task exactly as an unknown one: NotFound', async () => {
    const taskId = await createTask(server.url, 'text_stats', { text: 'private words' }, TOKENS.bob);
    const foreign = await poll(taskId, '0');
    const unknown = await poll('no-such-task', '0');
    expect(foreign).toEqual({
      error: { code: -32011, message: `Task not found: ${taskId}`, data: { kind: 'task' } },
    });
    expect(unknown).toEqual({
      error: { code: -32011, message: 'Task not found: no-such-task', data: { kind: 'task' } },
    });
  });

  it.each([
    ['an unknown event type', { name: 'task.nope', arguments: { taskId: 'x' }, cursor: null }, -32011],
    ['no name', { arguments: { taskId: 'x' }, cursor: null }, -32602],
    ['a type without poll', { name: 'tasks.updated', arguments: {}, cursor: null }, -32014],
    ['no taskId', { name: 'task.events', arguments: {}, cursor: null }, -32602],
    [
      'an argument the type does not take',
      { name: 'task.events', arguments: { taskId: 'x', other: 1 }, cursor: null },
      -32602,
    ],
    ['a cursor this server never returned', { name: 'task.events', arguments: { taskId: 'x' }, cursor: 'abc' }, -32602],
    ['a bad maxEvents', { name: 'task.events', arguments: { taskId: 'x' }, cursor: null, maxEvents: 0 }, -32602],
  ])('refuses a poll with %s, saying why', async (_case, params, code) => {
    const answer = await rpc(server.url, 'events/poll', params);
    expect('error' in answer && answer.error.code).toBe(code);
    if ('error' in answer) expect(answer.error.message.length).toBeGreaterThan(10);
  });

  it('streams a task’s events as SSE frames carrying their cursors, and ends with the final result once it is done', async () => {
    const taskId = await createTask(server.url, 'analyze_documents', { documents: ['x y z'], reviewSeconds: 1 });
    const frames: SseFrame[] = [];
    for await (const frame of eventStream(server.url, { name: 'task.events', arguments: { taskId }, cursor: '0' }))
      frames.push(frame);
    expect(frames[0]!.data.method).toBe('notifications/events/active');
    const events = frames.filter((frame) => frame.data.method === 'notifications/events/event');
    const seqs = events.map((frame) => (frame.data.params as unknown as Occurrence).data.seq);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
    expect(events.map((frame) => frame.id)).toEqual(seqs.map(String));
    expect((events.at(-1)!.data.params as unknown as Occurrence).data.task.status).toBe('completed');
    const final = frames.at(-1)!.data;
    expect(final.result).toMatchObject({ resultType: 'complete' });
    for (const frame of frames.slice(0, -1))
      expect((frame.data.params?.['_meta'] as Record<string, unknown>)['io.modelcontextprotocol/subscriptionId']).toBe(
        final.id,
      );
  });

  it('resumes a dropped stream from Last-Event-ID with no gap and no repeat', async () => {
    const taskId = await createTask(server.url, 'analyze_documents', {
      documents: ['one', 'two', 'three', 'four'],
      reviewSeconds: 2,
    });
    const params = { name: 'task.events', arguments: { taskId }, cursor: '0' };
    const seen: number[] = [];
    let lastId: string | undefined;
    // The first connection drops (the client goes away) after two events.
    const drop = new AbortController();
    for await (const frame of eventStream(server.url, params, { signal: drop.signal })) {
      if (frame.data.method !== 'notifications/events/event') continue;
      seen.push((frame.data.params as unknown as Occurrence).data.seq);
      lastId = frame.id;
      if (seen.length === 2) drop.abort();
    }
    expect(lastId).toBe('2');
    for await (const frame of eventStream(server.url, params, { lastEventId: lastId! })) {
      if (frame.data.method === 'notifications/events/event')
        seen.push((frame.data.params as unknown as Occurrence).data.seq);
    }
    const all = await allEventsOf(taskId);
    expect(seen).toEqual(all.map((event) => event.data.seq));
  });

  it('refuses a stream for another principal’s task before opening it', async () => {
    const taskId = await createTask(server.url, 'text_stats', { text: 'mine' }, TOKENS.bob);
    await expect(
      eventStream(server.url, { name: 'task.events', arguments: { taskId }, cursor: '0' }).next(),
    ).rejects.toThrow(/-32011|Task not found/);
  });

  it('refuses an oversized request id on events methods as on every other, without echoing it', async () => {
    const id = 'i'.repeat(1_000_000);
    for (const [method, params, token] of [
      ['events/poll', { name: 'task.events', arguments: { taskId: 'unknown' }, cursor: '0' }, TOKENS.alice],
      ['events/list', {}, TOKENS.alice],
      ['tools/list', {}, 'not-a-token'],
    ] as const) {
      const response = await fetch(server.url, {
        method: 'POST',
        headers: headersFor(token),
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      });
      const text = await response.text();
      expect(response.status, method).toBe(400);
      expect(text.length, method).toBeLessThan(1_000);
      expect(JSON.parse(text), method).toMatchObject({ id: null, error: { code: -32600 } });
    }
  });
});
