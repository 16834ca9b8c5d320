// End to end: a fast tool's result reaches a client that polls as hinted (the 1.x SDK's callToolStream sleeps each
// tasks/get's pollInterval before the next) within a few polls, on the stored interval npm start serves (2 s). The
// polls are counted and the hints read off the wire: nothing here is timed.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, type Task } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN_POLL_HINT_MS } from '../../lambda/core/task.js';
import { DEFAULT_SETTINGS } from '../../lambda/service/settings.js';
import { connectClient, startTestServer, type TestServer } from '../support/local-backend.js';

/** More polls than a fast tool needs however busy the machine: each hint is half the task's age, from 100 ms. */
const MOST_POLLS = 12;

let server: TestServer;
let client: Client;

beforeAll(async () => {
  server = await startTestServer({ pollIntervalMs: DEFAULT_SETTINGS.pollIntervalMs });
  client = await connectClient(server.url);
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

describe('a fast tool called through callToolStream, polled as hinted', () => {
  it('has its result after a few polls, each hinted at most half the time the task ran', async () => {
    let created: Task | undefined;
    const polled: Task[] = [];
    /** When each poll's answer reached this client: the server made it no later, on the same machine's clock. */
    const answeredBy: number[] = [];
    let result: unknown;
    for await (const message of client.experimental.tasks.callToolStream(
      { name: 'text_stats', arguments: { text: 'fast tools come back at once' } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    )) {
      if (message.type === 'taskCreated') created = message.task;
      if (message.type === 'taskStatus') {
        polled.push(message.task);
        answeredBy.push(Date.now());
      }
      if (message.type === 'result') result = message.result;
    }
    expect(result).toMatchObject({ structuredContent: { words: 6 } });
    expect(created?.pollInterval).toBe(MIN_POLL_HINT_MS);
    expect(polled.length).toBeGreaterThan(0);
    expect(polled.length).toBeLessThanOrEqual(MOST_POLLS);
    const end = polled.at(-1)!;
    expect(end.status).toBe('completed');
    // Each poll that saw the task working was hinted half the task's age when the server answered it (from 100 ms),
    // not the stored 2 s: at most half the age its answer had when it reached this client.
    polled.slice(0, -1).forEach((working, index) => {
      expect(working.status).toBe('working');
      const ageByThen = answeredBy[index]! - Date.parse(working.createdAt);
      expect(working.pollInterval).toBeLessThanOrEqual(Math.max(MIN_POLL_HINT_MS, Math.ceil(ageByThen / 2)));
    });
  });
});
