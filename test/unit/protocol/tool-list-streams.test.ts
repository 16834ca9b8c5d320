// Where tools are discovered at run time, both eras declare tools.listChanged and tell a listening client of a change
// of the catalog: on the standalone GET stream (2025 revisions) and on a subscriptions/listen stream (2026-07-28),
// each kept alive and ended after its lifetime. Where the tools are only declared, neither claims it, and a GET is
// 405 (no stream), so an SDK client does not reconnect to an empty one every second.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SYSTEM_CLOCK } from '../../../lambda/core/clock.js';
import type { McpHttpApp } from '../../../lambda/protocol/http-app.js';
import { ToolListChanges } from '../../../lambda/service/tool-list-changes.js';
import { InMemoryDiscoveredCatalog } from '../../../lambda/store/in-memory-discovered-catalog.js';
import { inMemoryBackend, T0, TEST_TOOLS } from '../../support/in-memory-backend.js';

const SETTLE_MS = 30_000;
const POLL_MS = 2_000;
const LIFETIME_MS = 120_000;
const MODERN = '2026-07-28';

let catalog: InMemoryDiscoveredCatalog;

function app(discovered: boolean): McpHttpApp {
  const backend = inMemoryBackend({ settings: { pollIntervalMs: POLL_MS, resultWaitMs: LIFETIME_MS } });
  return backend.httpApp({
    ...(discovered
      ? { toolListChanges: new ToolListChanges({ catalog, clock: SYSTEM_CLOCK, settleMs: SETTLE_MS }) }
      : {}),
  });
}

const get = (target: McpHttpApp, headers: Record<string, string> = { accept: 'text/event-stream' }) =>
  target.handle(new Request('http://localhost/mcp', { method: 'GET', headers }), 'alice');

function post(target: McpHttpApp, method: string, params: Record<string, unknown> = {}, version?: string) {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'unit', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const body = version
    ? { jsonrpc: '2.0', id: 1, method, params }
    : { jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: meta } };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': version ?? MODERN,
    ...(version ? {} : { 'mcp-method': method }),
  };
  return target.handle(
    new Request('http://localhost/mcp', { method: 'POST', headers, body: JSON.stringify(body) }),
    'alice',
  );
}

/** Everything the stream writes, gathered as it comes; `ended` once the server closed it. */
function gather(response: Response): { text: () => string; ended: Promise<void> } {
  let text = '';
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const ended = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      text += value;
    }
  })();
  return { text: () => text, ended };
}

const messagesOf = (text: string) =>
  text
    .split('\n\n')
    .flatMap((frame) => frame.split('\n').filter((line) => line.startsWith('data: ') && line !== 'data: '))
    .map((line) => JSON.parse(line.slice(6)) as { method?: string; id?: number; params?: Record<string, unknown> });

/** The refresher finds one more machine. */
const addTool = () => catalog.write([TEST_TOOLS[0]!, TEST_TOOLS[1]!], Date.now());

beforeEach(async () => {
  vi.useFakeTimers({ now: T0 });
  catalog = new InMemoryDiscoveredCatalog();
  await catalog.write([TEST_TOOLS[0]!], Date.now());
  vi.advanceTimersByTime(SETTLE_MS);
});
afterEach(() => {
  vi.useRealTimers();
});

describe('a deployment whose tools are only declared', () => {
  it('answers GET 405, naming the methods it allows', async () => {
    const response = await get(app(false));
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST, DELETE');
  });

  it('declares no listChanged in either era', async () => {
    const initialize = await post(
      app(false),
      'initialize',
      { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'unit', version: '1' } },
      '2025-11-25',
    );
    expect((await initialize.json()).result.capabilities.tools).toEqual({ listChanged: false });
    const discover = await post(app(false), 'server/discover');
    expect((await discover.json()).result.capabilities.tools).toEqual({ listChanged: false });
  });
});

describe('a deployment with discovered tools', () => {
  it('declares tools.listChanged in both eras', async () => {
    const initialize = await post(
      app(true),
      'initialize',
      { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'unit', version: '1' } },
      '2025-11-25',
    );
    expect((await initialize.json()).result.capabilities.tools).toEqual({ listChanged: true });
    const discover = await post(app(true), 'server/discover');
    expect((await discover.json()).result.capabilities.tools).toEqual({ listChanged: true });
  });

  it('serves GET a stream that says when to reconnect, tells of a change once it is due, and ends', async () => {
    const response = await get(app(true));
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const stream = gather(response);
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(stream.text()).toMatch(/^retry: 2000\n\n/);
    await addTool();
    await vi.advanceTimersByTimeAsync(SETTLE_MS - POLL_MS);
    expect(messagesOf(stream.text())).toEqual([]);
    await vi.advanceTimersByTimeAsync(LIFETIME_MS);
    await stream.ended;
    expect(messagesOf(stream.text())).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);
    expect(stream.text()).toContain(': keepalive\n\n');
  });

  it('gives a 2025-11-25 client an id naming the catalog it holds, and tells a client that resumes with an old one', async () => {
    const primed = gather(await get(app(true), { accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25' }));
    await vi.advanceTimersByTimeAsync(POLL_MS);
    const told = (await catalog.read())!.digest;
    expect(primed.text()).toMatch(new RegExp(`^retry: 2000\n\nid: ${told}\\.[0-9a-f]{8}\ndata: \n\n`));
    await addTool();
    await vi.advanceTimersByTimeAsync(10 * SETTLE_MS);
    const resumed = gather(await get(app(true), { accept: 'text/event-stream', 'last-event-id': `${told}.0123abcd` }));
    await vi.advanceTimersByTimeAsync(POLL_MS);
    expect(messagesOf(resumed.text())).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);
    expect(resumed.text()).toContain(`id: ${(await catalog.read())!.digest}.`);
  });

  it('leaves a GET the transport refuses to the transport', async () => {
    expect((await get(app(true), {})).status).toBe(406);
    const unknownVersion = await get(app(true), { accept: 'text/event-stream', 'mcp-protocol-version': '1999-01-01' });
    expect(unknownVersion.status).toBe(400);
  });

  it('acknowledges a listen for tool list changes alone, then tells of each change, then ends with its result', async () => {
    const response = await post(app(true), 'subscriptions/listen', {
      notifications: { toolsListChanged: true, promptsListChanged: true },
    });
    const stream = gather(response);
    await vi.advanceTimersByTimeAsync(POLL_MS);
    await addTool();
    await vi.advanceTimersByTimeAsync(LIFETIME_MS);
    await stream.ended;
    const subscription = { 'io.modelcontextprotocol/subscriptionId': 7 };
    expect(messagesOf(stream.text())).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: { notifications: { toolsListChanged: true }, _meta: subscription },
      },
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: subscription } },
      {
        jsonrpc: '2.0',
        id: 7,
        result: {
          resultType: 'complete',
          _meta: { ...subscription, 'io.modelcontextprotocol/serverInfo': expect.anything() },
        },
      },
    ]);
  });

  it('ends a listen stream without its result when a read of the catalog fails', async () => {
    const response = await post(app(true), 'subscriptions/listen', { notifications: { toolsListChanged: true } });
    const stream = gather(response);
    vi.spyOn(catalog, 'read').mockRejectedValue(new Error('throttled'));
    await vi.advanceTimersByTimeAsync(POLL_MS);
    await stream.ended;
    expect(messagesOf(stream.text()).map((message) => message.method ?? message.id)).toEqual([
      'notifications/subscriptions/acknowledged',
    ]);
  });
});
