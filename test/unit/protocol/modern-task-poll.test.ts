// A plain 2026-07-28 tasks/get is answered without the 2.x SDK's per-request server (modern-task-poll.ts). Its answer
// must be the one the SDK path gives the same request: each case sends the same request twice through the same app,
// once as served and once with the direct path turned off (the mock here), and the two answers must be the same
// status, headers and bytes. Each case also says which way the first went: a plain poll builds no SDK server, anything
// else goes to the SDK, whose refusals stay the reference.
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ServiceBusyError } from '../../../lambda/core/errors.js';
import { SYSTEM_CLOCK } from '../../../lambda/core/clock.js';
import { TaskOrigin } from '../../../lambda/core/task.js';
import { taskKey } from '../../../lambda/core/task-key.js';
import type { WebhookSubscriptions } from '../../../lambda/events/webhook-subscriptions.js';
import type { TaskEventsAccess } from '../../../lambda/protocol/events-access.js';
import type { McpHttpApp } from '../../../lambda/protocol/http-app.js';
import * as modernTaskPoll from '../../../lambda/protocol/modern-task-poll.js';
import { InMemoryProgressStore } from '../../../lambda/store/in-memory-progress-store.js';
import type { TaskStore } from '../../../lambda/store/task-store.js';
import { bind } from '../../support/bind-methods.js';
import { analyze, ask, inMemoryBackend, textStats, type InMemoryBackend } from '../../support/in-memory-backend.js';

/** The SDK's classifications asked for by the project's code (the SDK's own entry calls its copy directly). */
const sdk = vi.hoisted(() => ({ classifications: 0 }));
vi.mock('@modelcontextprotocol/server', async (importOriginal) => {
  const real = await importOriginal<typeof import('@modelcontextprotocol/server')>();
  return {
    ...real,
    classifyInboundRequest: (...args: Parameters<typeof real.classifyInboundRequest>) => {
      sdk.classifications++;
      return real.classifyInboundRequest(...args);
    },
  };
});

/** Off, the app serves every modern request through the SDK, as it did before the direct path. */
const direct = vi.hoisted(() => ({ on: true, polls: 0 }));
vi.mock('../../../lambda/protocol/modern-task-poll.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../lambda/protocol/modern-task-poll.js')>();
  return {
    ...real,
    modernTaskPollOf: (request: Request, body: unknown) => {
      const poll = direct.on ? real.modernTaskPollOf(request, body) : undefined;
      if (poll !== undefined) direct.polls++;
      return poll;
    },
  };
});

const V = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientInfo': { name: 'poller', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
};

let backend: InMemoryBackend;
let servers: ReturnType<typeof vi.spyOn>;

beforeEach(() => {
  // The poll interval hint grows with the task's age: both answers must see the same clock.
  vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 6, 28, 12) });
  backend = inMemoryBackend();
  servers = vi.spyOn(McpServer.prototype, 'connect');
});
afterEach(() => {
  servers.mockRestore();
  vi.useRealTimers();
});

function appOn(parts: { store?: TaskStore; events?: TaskEventsAccess } = {}): McpHttpApp {
  return backend.httpApp({
    ...(parts.store ? { service: backend.service({ store: parts.store }) } : {}),
    ...(parts.events ? { events: parts.events } : {}),
  });
}

interface Variant {
  readonly headers?: Record<string, string | null>;
  readonly params?: Record<string, unknown>;
  readonly message?: Record<string, unknown>;
  readonly id?: unknown;
  /** The body's JSON text, changed (for what JSON.stringify cannot write, such as a number past a double's range). */
  readonly text?: (json: string) => string;
  /** Sent with this signal (a request whose client may go away). */
  readonly signal?: () => AbortSignal;
}

/** A plain poll of `taskId` as a 2026-07-28 client sends it, changed as `variant` says (a null header is left out). */
function pollRequest(taskId: string, variant: Variant = {}): Request {
  const headers: Record<string, string | null> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': V,
    'mcp-method': 'tasks/get',
    'mcp-name': taskId,
    ...variant.headers,
  };
  const sent = Object.fromEntries(
    Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== null),
  );
  const params = { taskId, _meta: ENVELOPE, ...variant.params };
  const body = {
    jsonrpc: '2.0',
    id: 'id' in variant ? variant.id : 7,
    method: 'tasks/get',
    params,
    ...variant.message,
  };
  const signal = variant.signal?.();
  const json = JSON.stringify(body);
  const init = { method: 'POST', headers: sent, body: variant.text?.(json) ?? json, ...(signal ? { signal } : {}) };
  return new Request('http://localhost/mcp', init);
}

interface Answer {
  readonly status: number;
  readonly headers: [string, string][];
  readonly body: string;
}

async function answerOf(response: Response): Promise<Answer> {
  const headers: [string, string][] = [];
  response.headers.forEach((value, name) => headers.push([name, value]));
  return { status: response.status, headers, body: await response.text() };
}

/** The app's answer, and the SDK path's answer to the same request; which way the first went; SDK servers built. */
async function bothWays(app: McpHttpApp, taskId: string, variant: Variant = {}, owner = 'alice') {
  const [polls, built] = [direct.polls, servers.mock.calls.length];
  const served = await answerOf(await app.handle(pollRequest(taskId, variant), owner));
  const tookDirectPath = direct.polls > polls;
  const serversForServed = servers.mock.calls.length - built;
  direct.on = false;
  try {
    const sdk = await answerOf(await app.handle(pollRequest(taskId, variant), owner));
    return { served, sdk, tookDirectPath, serversForServed, serversForSdk: servers.mock.calls.length - built };
  } finally {
    direct.on = true;
  }
}

type Both = Awaited<ReturnType<typeof bothWays>>;

/** Answered on the direct path, without an SDK server, with the SDK's bytes. */
function expectDirect(both: Both): void {
  expect(both.tookDirectPath).toBe(true);
  expect(both.serversForServed).toBe(0);
  expect(both.serversForSdk).toBe(1);
  expect(both.served).toEqual(both.sdk);
}

/** Left to the SDK: the same answer both ways. */
function expectSdk(both: Both): void {
  expect(both.tookDirectPath).toBe(false);
  expect(both.served).toEqual(both.sdk);
}

/** A JSON-RPC answer, read for what the cases look at beside the bytes. */
interface Message {
  readonly result: { readonly status: string; readonly _meta: Record<string, unknown> };
  readonly error: { readonly code: number; readonly message: string };
}

const bodyOf = (answer: Answer) => JSON.parse(answer.body) as Message;

describe('a plain tasks/get of the 2026-07-28 era', () => {
  it('answers a working task as the SDK does, without building a server', async () => {
    const task = await backend.service().createTask(analyze('alice', { origin: TaskOrigin.TasksExtension }));
    const both = await bothWays(appOn(), task.taskId);
    expectDirect(both);
    expect(both.served.status).toBe(200);
    expect(both.served.headers).toEqual([['content-type', 'application/json']]);
    expect(bodyOf(both.served)).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      result: { taskId: task.taskId, status: 'working', resultType: 'complete' },
    });
    expect(bodyOf(both.served).result._meta).toEqual({
      'io.modelcontextprotocol/serverInfo': { name: 'mcp-tasks-sfn', version: '0.1.0' },
    });
  });

  it('answers a completed task, its result inlined, with a string id', async () => {
    const task = await backend.service().createTask(textStats('alice', 'a b', { origin: TaskOrigin.TasksExtension }));
    backend.executor.succeed(task.executionArn, { words: 2 });
    await backend.statusEvent(task);
    const both = await bothWays(appOn(), task.taskId, { id: 'poll-1' });
    expectDirect(both);
    expect(bodyOf(both.served)).toMatchObject({ id: 'poll-1', result: { status: 'completed', result: {} } });
  });

  it('answers a failed task, a task with progress and a task that asks for input', async () => {
    const failed = await backend.service().createTask(textStats('alice'));
    backend.executor.fail(failed.executionArn, 'Boom', 'it broke');
    await backend.statusEvent(failed);
    const progressing = await backend.service().createTask(analyze('alice'));
    const report = { message: 'Reviewed {progress} of {total}', progress: 1, total: 3, at: Date.now() };
    await new InMemoryProgressStore(backend.store).record(
      taskKey('alice', progressing.taskId),
      progressing.executionArn,
      report,
    );
    const asking = await backend.service().createTask(analyze('alice'));
    await ask(backend, asking.executionArn, 'approval');
    const answers: Message['result'][] = [];
    for (const task of [failed, progressing, asking]) {
      const both = await bothWays(appOn(), task.taskId);
      expectDirect(both);
      answers.push(bodyOf(both.served).result);
    }
    expect(answers.map((result) => result.status)).toEqual(['failed', 'working', 'input_required']);
    // The progress rides in the answer's own _meta, which the server's identity joins.
    expect(Object.keys(answers[1]!._meta)).toHaveLength(2);
  });

  it('refuses an unknown task and another owner’s task alike, as the SDK does', async () => {
    const task = await backend.service().createTask(analyze('alice'));
    const unknown = await bothWays(appOn(), 'no-such-task', {}, 'bob');
    const others = await bothWays(appOn(), task.taskId, {}, 'bob');
    expectDirect(unknown);
    expectDirect(others);
    expect(bodyOf(others.served).error).toEqual(bodyOf(unknown.served).error);
    expect(bodyOf(others.served).error.code).toBe(-32602);
  });

  it('answers a throttled read with the same retryable error as the SDK path', async () => {
    const busy = new ServiceBusyError('DynamoDB', 'GetItem', 1);
    const store: TaskStore = { ...bind<TaskStore>(backend.store), get: () => Promise.reject(busy) };
    const task = await backend.service().createTask(analyze('alice'));
    const both = await bothWays(appOn({ store }), task.taskId);
    expectDirect(both);
    expect(bodyOf(both.served).error).toMatchObject({ code: -32000, data: { retryable: true } });
  });

  it('carries the webhook status as the SDK path does', async () => {
    const task = await backend.service().createTask(analyze('alice'));
    const following = [{ id: 'sub-1', name: 'ci', delivery: { active: true, lastDeliveryAt: 1_700_000_000_000 } }];
    const subscriptions = { forTask: async () => following } as unknown as WebhookSubscriptions;
    const events = { subscriptions, clock: SYSTEM_CLOCK } as unknown as TaskEventsAccess;
    const both = await bothWays(appOn({ events }), task.taskId);
    expectDirect(both);
    expect(both.served.body).toContain('sub-1');
  });

  it('answers 499 with no body, as the SDK does, when the client goes away while the task is read', async () => {
    let client = new AbortController();
    const signal = () => (client = new AbortController()).signal;
    const store: TaskStore = {
      ...bind<TaskStore>(backend.store),
      get: (...args) => (client.abort(), backend.store.get(...args)),
    };
    const task = await backend.service().createTask(analyze('alice'));
    const both = await bothWays(appOn({ store }), task.taskId, { signal });
    expectDirect(both);
    expect(both.served).toEqual({ status: 499, headers: [], body: '' });
  });

  it('takes what the SDK takes as it is: no clientInfo, a log level, a charset, no Accept, a bare id', async () => {
    const task = await backend.service().createTask(analyze('alice'));
    const { 'io.modelcontextprotocol/clientInfo': _, ...withoutClientInfo } = ENVELOPE;
    const variants: Variant[] = [
      { params: { _meta: withoutClientInfo } },
      { params: { _meta: { ...ENVELOPE, 'io.modelcontextprotocol/logLevel': 'debug' } } },
      { headers: { 'content-type': 'application/json; charset=utf-8' } },
      { headers: { accept: null } },
      { id: 0 },
      { id: '' },
    ];
    for (const variant of variants) expectDirect(await bothWays(appOn(), task.taskId, variant));
  });
});

describe('what goes to the SDK instead', () => {
  it('leaves every header the SDK refuses, or would decode, to it', async () => {
    const task = await backend.service().createTask(analyze('alice'));
    const base64 = `=?base64?${Buffer.from(task.taskId).toString('base64')}?=`;
    const variants: [Variant, number][] = [
      [{ headers: { 'mcp-protocol-version': null } }, 400],
      [{ headers: { 'mcp-protocol-version': '2025-11-25' } }, 400],
      [{ headers: { 'mcp-method': null } }, 400],
      [{ headers: { 'mcp-method': 'tasks/cancel' } }, 400],
      [{ headers: { 'mcp-name': null } }, 400],
      [{ headers: { 'mcp-name': 'another-task' } }, 400],
      // Served, by the SDK: an encoded name is its to decode.
      [{ headers: { 'mcp-name': base64 } }, 200],
      [{ headers: { 'content-type': 'text/plain' } }, 415],
    ];
    for (const [variant, status] of variants) {
      const both = await bothWays(appOn(), task.taskId, variant);
      expectSdk(both);
      expect(both.served.status, JSON.stringify(variant)).toBe(status);
    }
  });

  it('leaves other revisions and broken envelopes to the SDK', async () => {
    const task = await backend.service().createTask(analyze('alice'));
    const claiming = (version: string) => ({ ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': version });
    const { 'io.modelcontextprotocol/clientCapabilities': _, ...withoutCapabilities } = ENVELOPE;
    const variants: Variant[] = [
      { params: { _meta: claiming('2027-01-01') }, headers: { 'mcp-protocol-version': '2027-01-01' } },
      { params: { _meta: claiming('2025-11-25') }, headers: { 'mcp-protocol-version': '2025-11-25' } },
      { params: { _meta: claiming('2025-11-25') } },
      { params: { _meta: withoutCapabilities } },
      { params: { _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientInfo': 'poller' } } },
      { params: { _meta: { ...ENVELOPE, 'io.modelcontextprotocol/logLevel': 'loud' } } },
    ];
    for (const variant of variants) {
      const both = await bothWays(appOn(), task.taskId, variant);
      expectSdk(both);
      expect(both.served.status, JSON.stringify(variant)).toBe(400);
    }
  });

  it('leaves a client that did not declare the Tasks extension to the SDK’s -32021', async () => {
    const task = await backend.service().createTask(analyze('alice'));
    const declaring = (capabilities: unknown) => ({
      _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': capabilities },
    });
    for (const params of [declaring({}), declaring({ extensions: { 'io.modelcontextprotocol/events': {} } })]) {
      const both = await bothWays(appOn(), task.taskId, { params });
      expectSdk(both);
      expect(both.served.status).toBe(400);
      expect(bodyOf(both.served).error.code).toBe(-32021);
    }
  });

  it('leaves other params and other JSON-RPC shapes to the SDK, whether it serves or refuses them', async () => {
    const task = await backend.service().createTask(analyze('alice'));
    const variants: [Variant, number][] = [
      [{ params: { cursor: 'c' } }, 200],
      [{ params: { requestState: 'state' } }, 200],
      [{ params: { inputResponses: {} } }, 200],
      [{ params: { _meta: { ...ENVELOPE, progressToken: 3 } } }, 200],
      [{ params: { taskId: '' }, headers: { 'mcp-name': '' } }, 200],
      [{ params: { taskId: 42 }, headers: { 'mcp-name': '42' } }, 200],
      [{ message: { extra: true } }, 400],
      [{ id: 1.5 }, 400],
      [{ id: null }, 400],
      [{ message: { jsonrpc: '1.0' } }, 400],
    ];
    for (const [variant, status] of variants) {
      const both = await bothWays(appOn(), task.taskId, variant);
      expectSdk(both);
      expect(both.served.status, JSON.stringify(variant)).toBe(status);
    }
  });

  it('keeps the SDK’s verdict on a message for the same message with any id the SDK takes, and no other', async () => {
    const task = await backend.service().createTask(analyze('alice', { origin: TaskOrigin.TasksExtension }));
    const app = appOn();
    const first = sdk.classifications;
    expectDirect(await bothWays(app, task.taskId, { id: 1 }));
    const classified = sdk.classifications;
    expect(classified).toBeGreaterThan(first);
    for (const id of [2, 'poll-3', 0, -4, '', Number.MAX_SAFE_INTEGER]) {
      const both = await bothWays(app, task.taskId, { id });
      expectDirect(both);
      expect(bodyOf(both.served)).toMatchObject({ id });
    }
    // Not classified again by the direct path: the SDK path's own entry classifies with its own copy.
    expect(sdk.classifications).toBe(classified);
    for (const id of [1.5, null, 2 ** 53, true, { n: 1 }, [1]]) {
      const both = await bothWays(app, task.taskId, { id });
      expectSdk(both);
      expect(both.served.status, JSON.stringify(id)).toBe(400);
    }
  });

  it('keeps a refusal too: the same broken envelope goes to the SDK again under another id, unclassified', async () => {
    const task = await backend.service().createTask(analyze('alice'));
    const broken = { _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientInfo': 'poller' } };
    const classified: number[] = [];
    for (const id of [1, 2]) {
      const before = sdk.classifications;
      const both = await bothWays(appOn(), task.taskId, { id, params: broken });
      classified.push(sdk.classifications - before);
      expectSdk(both);
      expect(both.served.status).toBe(400);
    }
    expect(classified[0]).toBeGreaterThan(classified[1]!);
  });

  it('keeps no verdict for a number past a double’s range, which JSON writes back as null', async () => {
    const task = await backend.service().createTask(analyze('alice'));
    // The SDK takes null where the extension's settings go, and refuses Infinity, which 1e400 parses as.
    const settings = (value: unknown) => ({
      _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: { x: value } } } },
    });
    expectDirect(await bothWays(appOn(), task.taskId, { id: 1, params: settings(null) }));
    for (const number of ['1e400', '-1e400']) {
      const text = (json: string) => json.replace('"x":null', `"x":${number}`);
      const both = await bothWays(appOn(), task.taskId, { id: 2, params: settings(null), text });
      expectSdk(both);
      expect(both.served.status, number).toBe(400);
    }
  });

  it('takes only tasks/get', () => {
    const request = pollRequest('t');
    const body = { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { taskId: 't', _meta: ENVELOPE } };
    expect(modernTaskPoll.modernTaskPollOf(request, body)).toEqual({ id: 1, taskId: 't' });
    for (const method of ['tasks/cancel', 'tasks/update', 'tools/call'])
      expect(modernTaskPoll.modernTaskPollOf(request, { ...body, method })).toBeUndefined();
  });
});
