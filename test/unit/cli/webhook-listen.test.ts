// `mcp-tasks webhook listen`: a receiver on loopback that prints each delivery signed with its secret (Standard
// Webhooks, signed here with the `standardwebhooks` package as the server signs), echoes a verification challenge only
// when its signature holds, refuses a forged or late delivery with 401 and a line on stderr, and acknowledges a replay.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT, UsageError } from '../../../cli/cli-errors.js';
import type { Output } from '../../../cli/commands.js';
import { subscribeRequestFor, webhookListenCommand, webhookSubscribeCommand } from '../../../cli/webhook-commands.js';
import {
  checkWebhookSecret,
  generateWebhookSecret,
  startWebhookListener,
  type WebhookListener,
} from '../../../cli/webhook-listener.js';
import type { TaskClient, WebhookSubscribeRequest } from '../../../cli/task-client.js';
import { occurrence, TASK_ID } from './fake-events-server.js';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const SUBSCRIPTION = 'sub_0123456789abcdef0123456789abcdef';
/** The receiver's clock in these tests: deliveries are signed "now" unless a test says otherwise. */
const NOW = Date.UTC(2026, 11, 3, 12, 0, 0);

let listener: WebhookListener | undefined;
afterEach(async () => {
  await listener?.close();
  listener = undefined;
});

async function listen(json = false): Promise<{ url: string; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  listener = await startWebhookListener({
    port: 0,
    path: '/hooks',
    secret: SECRET,
    json,
    out: (text) => void out.push(text),
    err: (text) => void err.push(text),
    now: () => NOW,
  });
  return { url: listener.url, out, err };
}

/** POSTs `body` signed as the server signs it: webhook-id, webhook-timestamp, webhook-signature. */
async function deliver(
  url: string,
  body: unknown,
  options: { id?: string; at?: number; secret?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  const raw = JSON.stringify(body);
  const id = options.id ?? `msg_${randomBytes(8).toString('hex')}`;
  const at = new Date(options.at ?? NOW);
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(options.secret ?? SECRET).sign(id, at, raw),
      'x-mcp-subscription-id': SUBSCRIPTION,
      ...options.headers,
    },
    body: raw,
  });
}

describe('webhook listen: the receiver', () => {
  it('listens on 127.0.0.1 at the path', async () => {
    const { url } = await listen();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hooks$/);
  });

  it('prints a verified event as one line (time, subscription, event, task, status, seq) and answers 200', async () => {
    const { url, out, err } = await listen();
    const response = await deliver(url, occurrence(3));
    expect(response.status).toBe(200);
    expect(out).toEqual([`2026-12-03T00:00:03.000Z  ${SUBSCRIPTION}  task.events  ${TASK_ID}  working  #3`]);
    expect(err).toEqual([]);
  });

  it('prints the raw body under --json', async () => {
    const { url, out } = await listen(true);
    await deliver(url, occurrence(4));
    expect(out).toEqual([JSON.stringify(occurrence(4))]);
  });

  it('prints gap and terminated envelopes', async () => {
    const { url, out } = await listen();
    expect((await deliver(url, { type: 'gap', cursor: '7' })).status).toBe(200);
    const terminated = {
      type: 'terminated',
      error: { code: -32011, message: `Task ${TASK_ID} is gone`, data: { kind: 'task', taskId: TASK_ID } },
    };
    expect((await deliver(url, terminated)).status).toBe(200);
    const time = new Date(NOW).toISOString();
    expect(out).toEqual([
      `${time}  ${SUBSCRIPTION}  gap  cursor 7`,
      `${time}  ${SUBSCRIPTION}  terminated  -32011 Task ${TASK_ID} is gone`,
    ]);
  });

  it('answers a signed verification envelope with its challenge', async () => {
    const { url, out } = await listen();
    const response = await deliver(url, { type: 'verification', challenge: 'nonce-123' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ challenge: 'nonce-123' });
    expect(out).toEqual([`${new Date(NOW).toISOString()}  ${SUBSCRIPTION}  verification  challenge answered`]);
  });

  it('does not echo the challenge of a verification envelope signed with another secret', async () => {
    const { url, out, err } = await listen();
    const response = await deliver(
      url,
      { type: 'verification', challenge: 'nonce-123' },
      { secret: generateWebhookSecret() },
    );
    expect(response.status).toBe(401);
    expect(await response.text()).not.toContain('nonce-123');
    expect(out).toEqual([]);
    expect(err).toEqual([expect.stringMatching(/\(bad-signature\)/)]);
  });

  it('refuses a forged delivery (another secret) with 401 and says why on stderr', async () => {
    const { url, out, err } = await listen();
    const response = await deliver(url, occurrence(1), { id: 'msg_forged', secret: generateWebhookSecret() });
    expect(response.status).toBe(401);
    expect(out).toEqual([]);
    expect(err).toEqual([
      `Refused delivery msg_forged for ${SUBSCRIPTION} (bad-signature): No webhook-signature matches the secret.`,
    ]);
  });

  it('refuses a delivery whose body was changed after signing', async () => {
    const { url, err } = await listen();
    const id = 'msg_tampered';
    const at = new Date(NOW);
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(NOW / 1000)),
        'webhook-signature': new Webhook(SECRET).sign(id, at, JSON.stringify(occurrence(1))),
        'x-mcp-subscription-id': SUBSCRIPTION,
      },
      body: JSON.stringify(occurrence(2)),
    });
    expect(response.status).toBe(401);
    expect(err).toEqual([expect.stringMatching(/\(bad-signature\)/)]);
  });

  it('refuses a late delivery (signed ten minutes ago) with 401', async () => {
    const { url, out, err } = await listen();
    const response = await deliver(url, occurrence(1), { id: 'msg_late', at: NOW - 10 * 60_000 });
    expect(response.status).toBe(401);
    expect(out).toEqual([]);
    expect(err).toEqual([
      expect.stringMatching(/^Refused delivery msg_late for sub_\w+ \(stale-timestamp\): .*too old/),
    ]);
  });

  it('acknowledges a replayed delivery (the same webhook-id again) with 200 and does not print it twice', async () => {
    const { url, out, err } = await listen();
    expect((await deliver(url, occurrence(1), { id: 'msg_once' })).status).toBe(200);
    const replay = await deliver(url, occurrence(1), { id: 'msg_once' });
    expect(replay.status).toBe(200);
    expect(out).toHaveLength(1);
    expect(err).toEqual([expect.stringMatching(/^Ignored delivery msg_once for sub_\w+: already received/)]);
  });

  it('refuses a delivery without the signature headers with 401', async () => {
    const { url, err } = await listen();
    const response = await fetch(url, { method: 'POST', body: JSON.stringify(occurrence(1)) });
    expect(response.status).toBe(401);
    expect(err).toEqual([expect.stringMatching(/^Refused delivery \(no webhook-id\) for - \(missing-headers\)/)]);
  });

  it('answers 404 off its path and 405 to anything but POST', async () => {
    const { url } = await listen();
    expect((await fetch(new URL('/other', url), { method: 'POST', body: '{}' })).status).toBe(404);
    expect((await fetch(url)).status).toBe(405);
  });
});

describe('webhook listen: the command', () => {
  function recordingOutput(json: boolean): Output & { lines: string[]; errors: string[] } {
    const lines: string[] = [];
    const errors: string[] = [];
    return {
      json,
      interactive: false,
      lines,
      errors,
      out: (text) => void lines.push(text),
      err: (text) => void errors.push(text),
    };
  }

  it('makes a secret when given none, prints the URL, the secret and a subscribe request, and exits 0 when stopped', async () => {
    const output = recordingOutput(false);
    let stop: () => void = () => {};
    const run = webhookListenCommand(output, { port: 0, path: '/hooks' }, new Promise<void>((done) => (stop = done)));
    await expect.poll(() => output.errors.length).toBe(1);
    const banner = output.errors[0]!;
    const url = /Listening for webhooks on (http:\/\/127\.0\.0\.1:\d+\/hooks)/.exec(banner)![1]!;
    const secret = /Secret: (whsec_\S+)/.exec(banner)![1]!;
    expect(() => checkWebhookSecret(secret)).not.toThrow();
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(banner).toContain(`mcp-tasks webhook subscribe ${url} --secret ${secret}`);
    expect(banner).toContain(JSON.stringify(subscribeRequestFor(url, secret)));
    expect(banner).toMatch(/public https URL/);

    // The receiver it started verifies with that secret.
    const raw = JSON.stringify(occurrence(1));
    const at = new Date();
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'webhook-id': 'msg_1',
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(secret).sign('msg_1', at, raw),
        'x-mcp-subscription-id': SUBSCRIPTION,
      },
      body: raw,
    });
    expect(response.status).toBe(200);
    expect(output.lines).toEqual([expect.stringContaining(`${SUBSCRIPTION}  task.events  ${TASK_ID}  working  #1`)]);

    stop();
    expect(await run).toBe(EXIT.ok);
    await expect(fetch(url, { method: 'POST', body: '{}' })).rejects.toThrow();
  });

  it('under --json prints the URL, the secret and the request as its first line', async () => {
    const output = recordingOutput(true);
    const run = webhookListenCommand(output, { port: 0, path: '/in', secret: SECRET }, Promise.resolve());
    expect(await run).toBe(EXIT.ok);
    const first = JSON.parse(output.lines[0]!) as { listening: { url: string; secret: string; subscribe: unknown } };
    expect(first.listening).toEqual({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/in$/),
      secret: SECRET,
      subscribe: subscribeRequestFor(first.listening.url, SECRET),
    });
  });

  it('refuses a secret that is not whsec_ and base64 of 24 to 64 bytes, and a path without a slash', async () => {
    for (const secret of ['not-a-secret', 'whsec_', `whsec_${randomBytes(8).toString('base64')}`, 'whsec_!!!!'])
      await expect(
        webhookListenCommand(recordingOutput(false), { port: 0, path: '/hooks', secret }, Promise.resolve()),
      ).rejects.toThrow(UsageError);
    await expect(
      webhookListenCommand(recordingOutput(false), { port: 0, path: 'hooks' }, Promise.resolve()),
    ).rejects.toThrow(/--path must start with '\/'/);
  });

  it('says so when the port is taken', async () => {
    const { url } = await listen();
    const port = Number(new URL(url).port);
    await expect(
      webhookListenCommand(recordingOutput(false), { port, path: '/hooks' }, Promise.resolve()),
    ).rejects.toThrow(new RegExp(`Port ${port} on 127\\.0\\.0\\.1 is in use`));
  });
});

describe('webhook subscribe', () => {
  function clientWith(subscribe: (request: WebhookSubscribeRequest) => Promise<{ id: string; refreshBefore: string }>) {
    return { events: { follow: () => (async function* () {})(), subscribe } } as unknown as TaskClient;
  }

  it('subscribes to every change of your tasks, or with --task to one task, and prints the id', async () => {
    const sent: WebhookSubscribeRequest[] = [];
    const client = clientWith(async (request) => {
      sent.push(request);
      return { id: SUBSCRIPTION, refreshBefore: '2026-12-04T12:00:00.000Z' };
    });
    const output = {
      json: true,
      interactive: false,
      lines: [] as string[],
      out(text: string) {
        this.lines.push(text);
      },
      err() {},
    };
    await webhookSubscribeCommand(client, output, 'https://hooks.example.com/hooks', { secret: SECRET });
    await webhookSubscribeCommand(client, output, 'https://hooks.example.com/hooks', {
      secret: SECRET,
      task: TASK_ID,
      ttlMs: 3_600_000,
    });
    expect(sent).toEqual([
      { name: 'tasks.updated', arguments: {}, url: 'https://hooks.example.com/hooks', secret: SECRET },
      {
        name: 'task.events',
        arguments: { taskId: TASK_ID },
        url: 'https://hooks.example.com/hooks',
        secret: SECRET,
        ttlMs: 3_600_000,
      },
    ]);
    expect(JSON.parse(output.lines[0]!)).toEqual({
      subscription: { id: SUBSCRIPTION, refreshBefore: '2026-12-04T12:00:00.000Z' },
    });
  });

  it("asks with --cursor 0 for the task's whole log, so a receiver subscribed late misses no event", async () => {
    const sent: WebhookSubscribeRequest[] = [];
    const client = clientWith(async (request) => {
      sent.push(request);
      return { id: SUBSCRIPTION, refreshBefore: '2026-12-04T12:00:00.000Z' };
    });
    const output = { json: true, interactive: false, out() {}, err() {} };
    await webhookSubscribeCommand(client, output, 'https://hooks.example.com/hooks', {
      secret: SECRET,
      task: TASK_ID,
      cursor: '0',
    });
    expect(sent).toEqual([
      {
        name: 'task.events',
        arguments: { taskId: TASK_ID },
        url: 'https://hooks.example.com/hooks',
        secret: SECRET,
        cursor: '0',
      },
    ]);
  });

  it('refuses --cursor without --task: tasks.updated has no log to replay', async () => {
    const client = clientWith(async () => expect.unreachable('nothing is sent'));
    const output = { json: false, interactive: false, out() {}, err() {} };
    await expect(
      webhookSubscribeCommand(client, output, 'https://hooks.example.com/hooks', { secret: SECRET, cursor: '0' }),
    ).rejects.toThrow(/--cursor needs --task/);
  });

  it('says the server offers no events when it does not advertise the extension', async () => {
    const client = { events: undefined } as unknown as TaskClient;
    const output = { json: false, interactive: false, out() {}, err() {} };
    await expect(
      webhookSubscribeCommand(client, output, 'https://hooks.example.com/hooks', { secret: SECRET }),
    ).rejects.toThrow(/does not advertise the Events extension/);
  });
});
