// A plain legacy-era tasks/get is answered without an SDK server (legacy-task-poll.ts). Its answer must be the one the
// SDK gives the same request: each case here sends the poll twice, once plain and once with an empty `_meta`, which
// changes nothing of its meaning but sends it through the 1.x SDK, and the two answers must be the same bytes. A
// request that the SDK transport would refuse (or that carries anything else) goes to the SDK, which refuses it.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TaskOrigin } from '../../../lambda/core/task.js';
import type { WebhookSubscriptions } from '../../../lambda/events/webhook-subscriptions.js';
import type { McpHttpApp } from '../../../lambda/protocol/http-app.js';
import { taskPollOf } from '../../../lambda/protocol/legacy-task-poll.js';
import { SYSTEM_CLOCK } from '../../../lambda/core/clock.js';
import { ServiceBusyError } from '../../../lambda/core/errors.js';
import type { TaskEventsAccess } from '../../../lambda/protocol/events-access.js';
import type { TaskStore } from '../../../lambda/store/task-store.js';
import { bind } from '../../support/bind-methods.js';
import { analyze, inMemoryBackend, textStats, type InMemoryBackend } from '../../support/in-memory-backend.js';

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};

let backend: InMemoryBackend;
let connects: ReturnType<typeof vi.spyOn>;

beforeEach(() => {
  // The poll interval hint grows with the task's age: both answers must see the same clock.
  vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2025, 10, 25, 12) });
  backend = inMemoryBackend();
  connects = vi.spyOn(Server.prototype, 'connect');
});
afterEach(() => {
  connects.mockRestore();
  vi.useRealTimers();
});

function appOn(parts: { store?: TaskStore; events?: TaskEventsAccess } = {}): McpHttpApp {
  return backend.httpApp({
    ...(parts.store ? { service: backend.service({ store: parts.store }) } : {}),
    ...(parts.events ? { events: parts.events } : {}),
  });
}

function pollRequest(params: Record<string, unknown>, headers: Record<string, string> = HEADERS, id: unknown = 3) {
  return new Request('http://localhost/mcp', {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tasks/get', params }),
  });
}

interface Answer {
  readonly status: number;
  readonly contentType: string | null;
  readonly body: string;
}

async function answerOf(response: Response): Promise<Answer> {
  return { status: response.status, contentType: response.headers.get('content-type'), body: await response.text() };
}

/** The plain poll's answer and the SDK's answer to the same poll, and whether only the second built a server. */
async function bothWays(
  app: McpHttpApp,
  taskId: string,
  owner = 'alice',
  headers: Record<string, string> = HEADERS,
  id: unknown = 3,
) {
  const before = connects.mock.calls.length;
  const direct = await answerOf(await app.handle(pollRequest({ taskId }, headers, id), owner));
  const serversForDirect = connects.mock.calls.length - before;
  const sdk = await answerOf(await app.handle(pollRequest({ taskId, _meta: {} }, headers, id), owner));
  return { direct, sdk, serversForDirect, serversForSdk: connects.mock.calls.length - before - serversForDirect };
}

function expectSameAnswer(both: Awaited<ReturnType<typeof bothWays>>): void {
  expect(both.serversForDirect).toBe(0);
  expect(both.serversForSdk).toBe(1);
  expect(both.direct).toEqual(both.sdk);
}

describe('a plain tasks/get of the legacy era', () => {
  it('answers a working task as the SDK does, without building a server', async () => {
    const task = await backend.service().createTask(analyze('alice'));
    const both = await bothWays(appOn(), task.taskId);
    expectSameAnswer(both);
    expect(both.direct.status).toBe(200);
    expect(JSON.parse(both.direct.body)).toMatchObject({ id: 3, result: { taskId: task.taskId, status: 'working' } });
  });

  it('answers a completed task, with a string id, as the SDK does', async () => {
    const task = await backend.service().createTask(textStats('alice'));
    backend.executor.succeed(task.executionArn, { words: 3 });
    await backend.statusEvent(task);
    const both = await bothWays(appOn(), task.taskId, 'alice', HEADERS, 'poll-1');
    expectSameAnswer(both);
    expect(JSON.parse(both.direct.body)).toMatchObject({ id: 'poll-1', result: { status: 'completed' } });
  });

  it('answers in the dialect the headers pick: SEP-1686 for its task from a client that sends no version', async () => {
    const task = await backend
      .service()
      .createTask(analyze('alice', { origin: TaskOrigin.Sep1686, taskId: 'client-made-id' }));
    const headers = { 'content-type': HEADERS['content-type'], accept: HEADERS.accept };
    const both = await bothWays(appOn(), task.taskId, 'alice', headers);
    expectSameAnswer(both);
    const withVersion = await bothWays(appOn(), task.taskId, 'alice', {
      ...HEADERS,
      'mcp-protocol-version': '2025-06-18',
    });
    expectSameAnswer(withVersion);
    const modern = await bothWays(appOn(), task.taskId);
    expectSameAnswer(modern);
    expect(JSON.parse(modern.direct.body)).not.toEqual(JSON.parse(both.direct.body));
  });

  it('refuses an unknown task and another owner’s task alike, as the SDK does', async () => {
    const task = await backend.service().createTask(analyze('alice'));
    const unknown = await bothWays(appOn(), 'no-such-task', 'bob');
    const others = await bothWays(appOn(), task.taskId, 'bob');
    expectSameAnswer(unknown);
    expectSameAnswer(others);
    expect(JSON.parse(others.direct.body).error).toEqual({
      ...JSON.parse(unknown.direct.body).error,
      message: expect.any(String),
    });
    expect(JSON.parse(others.direct.body).error.message).not.toContain('alice');
  });

  it('answers a throttled read with the same retryable error as the SDK path', async () => {
    // As the composition root's translation hands a throttled GetItem to the store's caller.
    const busy = new ServiceBusyError('DynamoDB', 'GetItem', 1);
    const store: TaskStore = { ...bind<TaskStore>(backend.store), get: () => Promise.reject(busy) };
    const task = await backend.service().createTask(analyze('alice'));
    const both = await bothWays(appOn({ store }), task.taskId);
    expectSameAnswer(both);
    expect(JSON.parse(both.direct.body).error.code).not.toBe(-32603);
  });

  it('carries the webhook status as the SDK path does', async () => {
    const task = await backend.service().createTask(analyze('alice'));
    const following = [{ id: 'sub-1', name: 'ci', delivery: { active: true, lastDeliveryAt: 1_700_000_000_000 } }];
    const subscriptions = { forTask: async () => following } as unknown as WebhookSubscriptions;
    const events = { subscriptions, clock: SYSTEM_CLOCK } as unknown as TaskEventsAccess;
    const both = await bothWays(appOn({ events }), task.taskId);
    expectSameAnswer(both);
    expect(both.direct.body).toContain('sub-1');
  });
});

describe('what goes to the SDK instead', () => {
  const post = (body: unknown, headers: Record<string, string> = HEADERS) =>
    new Request('http://localhost/mcp', { method: 'POST', headers, body: JSON.stringify(body) });
  const poll = { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { taskId: 't' } };

  it('takes only a plain poll', () => {
    expect(taskPollOf(post(poll), poll)).toEqual({ id: 1, taskId: 't', protocolVersion: '2025-11-25' });
    const others: unknown[] = [
      { ...poll, method: 'tasks/result' },
      { ...poll, jsonrpc: '1.0' },
      { ...poll, id: 1.5 },
      { ...poll, id: null },
      { ...poll, extra: true },
      { ...poll, params: { taskId: 't', _meta: {} } },
      { ...poll, params: { taskId: 7 } },
      { ...poll, params: [] },
      { jsonrpc: '2.0', method: 'tasks/get', params: { taskId: 't' } },
    ];
    for (const body of others) expect(taskPollOf(post(body), body), JSON.stringify(body)).toBeUndefined();
  });

  it('leaves the transport’s refusals to the SDK: Accept, Content-Type, protocol version', async () => {
    const app = appOn();
    const refused = [
      { ...HEADERS, accept: 'application/json' },
      { ...HEADERS, 'content-type': 'text/plain' },
      { ...HEADERS, 'mcp-protocol-version': '1999-01-01' },
    ];
    for (const headers of refused) {
      expect(taskPollOf(post(poll, headers), poll)).toBeUndefined();
      const response = await app.handle(post(poll, headers), 'alice');
      expect([406, 415, 400]).toContain(response.status);
      expect((await response.json()).error.code).toBe(-32000);
    }
  });
});
