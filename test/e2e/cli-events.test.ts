// End to end: the mcp-tasks bundle against a test server that offers the Events extension
// (io.modelcontextprotocol/events). `watch` follows a task over events/stream in both protocol dialects, one JSON
// line per event, numbered 1, 2, 3, … with none missing and none twice, even when a proxy cuts the stream after its
// first event (the CLI resumes with Last-Event-ID). `webhook listen` receives, verifies and prints the signed
// deliveries of a subscription that `webhook subscribe` made, and stops with exit 0 on Ctrl-C.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GENEROUS_WAIT, startTestServer, TOKENS, type TestServer } from '../support/local-backend.js';
import { buildCliBundle, runCli, type CliRun } from '../support/cli-process.js';

const EVENTS_EXTENSION = 'io.modelcontextprotocol/events';

/**
 * The server these tests need: the Events extension on (an event table, the task table's stream projected into it,
 * webhooks delivered), with http receivers on loopback trusted as `npm start` trusts them.
 */
const startEventsServer = () => startTestServer({}, { events: { allowLoopbackHttp: true } });

let server: TestServer;
let bundle: string;
let disposeBundle: () => Promise<void>;
const children: ChildProcessWithoutNullStreams[] = [];

beforeAll(async () => {
  [server, { bundle, dispose: disposeBundle }] = await Promise.all([startEventsServer(), buildCliBundle()]);
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await server?.close();
  await disposeBundle?.();
});

/** A task that works for a few seconds: long enough to start watching it before it ends. */
const SHORT_REVIEW = JSON.stringify({ documents: ['The cat sat.', 'A dog ran far away.'], reviewSeconds: 3 });

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

function jsonLines(text: string): Json[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Json);
}

const cli = (args: string[], url = server.url): Promise<CliRun> =>
  runCli(bundle, ['--url', url, ...args], { MCP_TASKS_TOKEN: TOKENS.alice });

async function startTask(extra: string[] = []): Promise<string> {
  const run = await cli([...extra, '--json', 'call', 'analyze_documents', '--args', SHORT_REVIEW]);
  expect(run.code).toBe(0);
  return (JSON.parse(run.stdout) as Json)['task']['taskId'] as string;
}

/** The events a `--json watch` printed, checked to be the task's log from its start: 1, 2, 3, … to a terminal one. */
function expectWholeLog(run: CliRun, taskId: string): Json[] {
  const lines = jsonLines(run.stdout);
  const events = lines.slice(0, -1).map((line) => line['event'] as Json);
  expect(events.length).toBeGreaterThanOrEqual(2);
  expect(events.map((event) => event['data']['seq'])).toEqual(events.map((_, index) => index + 1));
  expect(events.map((event) => event['eventId'])).toEqual(events.map((_, index) => `evt_${taskId}_${index + 1}`));
  for (const event of events) expect(event).toMatchObject({ name: 'task.events', data: { taskId } });
  expect(events.at(-1)!['data']['task']['status']).toBe('completed');
  expect(lines.at(-1)).toMatchObject({ task: { taskId, status: 'completed' }, outcome: { status: 'completed' } });
  return events;
}

describe('the test server', () => {
  it('advertises the Events extension in its initialize result', async () => {
    const response = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${TOKENS.alice}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
      }),
    });
    const text = await response.text();
    const body = JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text) as Json;
    expect(body['result']['capabilities']['extensions']?.[EVENTS_EXTENSION]).toEqual(expect.any(Object));
  });
});

describe.each([
  { protocol: 'auto', extra: [] as string[] },
  { protocol: '2025-11-25', extra: ['--protocol', '2025-11-25'] },
])('mcp-tasks watch over events/stream ($protocol)', ({ extra }) => {
  it('--json prints every event of the task once, in order from the first, then the outcome', async () => {
    const taskId = await startTask(extra);
    const run = await cli([...extra, '--json', 'watch', taskId]);
    expect(run.code).toBe(0);
    expectWholeLog(run, taskId);
    expect(jsonLines(run.stdout).at(-1)).toMatchObject({
      outcome: { result: { structuredContent: { documentCount: 2, totalWords: 8 } } },
    });
  });

  it('prints a plain line per event on stderr and the result on stdout', async () => {
    const taskId = await startTask(extra);
    const run = await cli([...extra, 'watch', taskId]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^#1 working/m);
    expect(run.stderr).toMatch(/^#\d+ completed$/m);
    expect(run.stderr).toContain(`Task ${taskId} completed.`);
    expect(JSON.parse(run.stdout)).toMatchObject({ documentCount: 2 });
  });
});

/**
 * A proxy in front of the server that forwards everything, frame by frame for an event stream, and cuts the first
 * events/stream connection right after its first event: what a dropped connection looks like to the CLI.
 */
async function startCuttingProxy(target: string): Promise<{ url: string; streams: Json[]; close(): Promise<void> }> {
  const streams: Json[] = [];
  const forward = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers))
      if (value !== undefined && !['host', 'connection', 'content-length'].includes(name))
        headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    const isStream = body.length > 0 && (JSON.parse(body.toString()) as Json)['method'] === 'events/stream';
    if (isStream)
      streams.push({ lastEventId: request.headers['last-event-id'], params: JSON.parse(body.toString()).params });
    const upstream = await fetch(target, {
      method: request.method!,
      headers,
      ...(body.length > 0 ? { body } : {}),
    });
    const passed: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!['content-length', 'transfer-encoding', 'connection', 'content-encoding'].includes(name))
        passed[name] = value;
    });
    response.writeHead(upstream.status, passed);
    if (upstream.body === null) return void response.end();
    const cutThis = isStream && streams.length === 1;
    const reader = upstream.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end + 2);
        buffer = buffer.slice(end + 2);
        await new Promise((written) => response.write(frame, written));
        if (cutThis && frame.includes('notifications/events/event')) {
          await reader.cancel();
          // Let the event reach the client before the connection goes: a cut after it, not instead of it.
          await new Promise((resolve) => setTimeout(resolve, 200));
          response.socket?.destroy();
          return;
        }
      }
    }
    response.end(buffer);
  };
  // A client that goes away mid-answer ends the upstream read too: nothing to report.
  const proxy: Server = createServer((request, response) => {
    forward(request, response).catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${new URL(target).pathname}`,
    streams,
    close: () =>
      new Promise<void>((resolve) => {
        proxy.close(() => resolve());
        proxy.closeAllConnections();
      }),
  };
}

describe('mcp-tasks watch across a dropped connection', () => {
  it('resumes from the last event it printed (Last-Event-ID): every event once, none missing', async () => {
    const proxy = await startCuttingProxy(server.url);
    try {
      const taskId = await startTask();
      const run = await cli(['--json', 'watch', taskId], proxy.url);
      expect(run.code).toBe(0);
      expectWholeLog(run, taskId);
      expect(proxy.streams.length).toBeGreaterThanOrEqual(2);
      expect(proxy.streams[0]).toMatchObject({ lastEventId: undefined, params: { cursor: '0' } });
      expect(proxy.streams[1]).toMatchObject({ lastEventId: '1', params: { cursor: '1' } });
    } finally {
      await proxy.close();
    }
  });
});

/** Runs the bundle as a long-lived child (the webhook receiver); its stdout lines as they come. */
function startCliProcess(args: string[]): {
  child: ChildProcessWithoutNullStreams;
  lines: string[];
  stderr: () => string;
} {
  const { CI: _ci, MCP_TASKS_URL: _url, MCP_TASKS_TOKEN: _token, ...inherited } = process.env;
  const child = spawn(process.execPath, [bundle, ...args], { env: inherited });
  children.push(child);
  const lines: string[] = [];
  let pending = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const parts = pending.split('\n');
    pending = parts.pop()!;
    lines.push(...parts);
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, lines, stderr: () => stderr };
}

describe('mcp-tasks webhook listen and subscribe', () => {
  it('receives and prints the verified deliveries of a subscription, and exits 0 on Ctrl-C', async () => {
    const listener = startCliProcess(['--json', 'webhook', 'listen', '--port', '0', '--path', '/hooks']);
    await vi.waitUntil(() => listener.lines.length > 0, GENEROUS_WAIT);
    const { url, secret } = (JSON.parse(listener.lines[0]!) as Json)['listening'] as { url: string; secret: string };
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hooks$/);
    expect(secret).toMatch(/^whsec_/);

    const subscribed = await cli(['--json', 'webhook', 'subscribe', url, '--secret', secret]);
    expect(subscribed.code).toBe(0);
    const subscription = (JSON.parse(subscribed.stdout) as Json)['subscription'] as Json;
    expect(subscription).toMatchObject({ id: expect.stringMatching(/^sub_/), refreshBefore: expect.any(String) });

    const taskId = await startTask();
    const ofTask = () =>
      listener.lines
        .slice(1)
        .map((line) => JSON.parse(line) as Json)
        .filter((body) => body['data']?.['taskId'] === taskId);
    await vi
      .waitUntil(() => ofTask().some((body) => body['data']['task']['status'] === 'completed'), GENEROUS_WAIT)
      .catch((error: Error) => {
        const seen = `receiver stdout:\n${listener.lines.join('\n')}\nreceiver stderr:\n${listener.stderr()}`;
        throw new Error(`${error.message}\n${seen}`);
      });
    const deliveries = ofTask();
    expect(deliveries.every((body) => body['name'] === 'tasks.updated')).toBe(true);
    // In order, each once.
    const seqs = deliveries.map((body) => body['data']['seq'] as number);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(listener.stderr()).not.toMatch(/Refused/);

    const exited = new Promise<number | null>((resolve) => listener.child.on('exit', (code) => resolve(code)));
    listener.child.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  it('subscribe --task for an unknown task says the task is unknown and exits 2', async () => {
    const run = await cli([
      'webhook',
      'subscribe',
      'http://127.0.0.1:9/hooks',
      '--secret',
      `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
      '--task',
      'f00dfeedf00dfeedf00dfeedf00dfeed',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      "Unknown task 'f00dfeedf00dfeedf00dfeedf00dfeed': the server has no such task for you (it may have expired).",
    );
  });
});
