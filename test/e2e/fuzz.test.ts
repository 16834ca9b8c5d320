// End to end, hostile input: a deterministic table of methods × params × bad values (plus malformed JSON,
// huge and deep bodies, bad task IDs and cursors, wrong headers, batches), in both eras, against a loopback
// server. Every answer must be a client error or a result: no -32603, no 5xx, nothing that leaks a stack or
// AWS detail. Afterwards the server must still complete a normal task.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  headerAndBatchCases,
  malformedBodyCases,
  taskIdAndCursorCases,
  wrongTypeCases,
  type Case,
} from '../support/hostile-input-cases.js';
import { connectClient, startTestServer, TOKENS, type TestServer } from '../support/local-backend.js';
import { callModern, modernRequest, sseMessagesOf } from '../support/modern-client.js';

let server: TestServer;

beforeAll(async () => {
  // Short waits: a fuzz case that happens to open a stream or wait for a task ends soon on its own.
  server = await startTestServer({ resultWaitMs: 1_000 });
});
afterAll(async () => {
  await server?.close();
});

/** What no answer may contain: stack frames, source paths, AWS names and exceptions. */
const LEAKS =
  /\bat \S+ \(|\bat \S+:\d+:\d+|\.(ts|js):\d+|node_modules|Exception|arn:aws|dynamodb|ValidationException|ResourceNotFound/i;

/** Sends one case; every JSON-RPC message it gets back, or a reason the answer is unacceptable. */
async function problemWith(testCase: Case): Promise<string | undefined> {
  const response = await fetch(server.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKENS.alice}`, ...testCase.headers },
    body: testCase.body as BodyInit,
  });
  if (response.status >= 500) return `HTTP ${response.status}`;
  const text = (response.headers.get('content-type') ?? '').includes('text/event-stream')
    ? await firstEvents(response)
    : await response.text();
  if (LEAKS.test(text)) return `leaks: ${text.slice(0, 300)}`;
  const messages = text.startsWith('{') ? [JSON.parse(text) as { error?: { code: number } }] : sseMessagesOf(text);
  if (messages.some((message) => message.error?.code === -32603)) return `-32603: ${text.slice(0, 300)}`;
  return undefined;
}

/** A stream's events up to its first JSON-RPC response (a listen stream never ends on its own within the test). */
async function firstEvents(response: Response): Promise<string> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
    if (sseMessagesOf(text).some((message) => 'result' in message || 'error' in message)) break;
  }
  await reader.cancel();
  return text;
}

/** Runs the cases a few at a time; the labels of those with unacceptable answers. */
async function failuresOf(cases: readonly Case[]): Promise<string[]> {
  const failures: string[] = [];
  for (let start = 0; start < cases.length; start += 8) {
    const batch = cases.slice(start, start + 8);
    const problems = await Promise.all(batch.map(problemWith));
    problems.forEach((problem, index) => problem !== undefined && failures.push(`${batch[index]!.label}: ${problem}`));
  }
  return failures;
}

describe('hostile input', () => {
  const groups = {
    wrongTypes: wrongTypeCases(),
    taskIdsAndCursors: taskIdAndCursorCases(),
    malformedBodies: malformedBodyCases(),
    headersAndBatches: headerAndBatchCases(),
  };

  it('generates at least 500 cases', () => {
    expect(Object.values(groups).flat().length).toBeGreaterThanOrEqual(500);
  });

  it.each(Object.entries(groups))(
    'answers every %s case with a client error or a result, never -32603, 5xx or a leak',
    async (_name, cases) => {
      expect(await failuresOf(cases)).toEqual([]);
    },
  );

  it('still completes a normal task afterwards, in both eras', async () => {
    const client: Client = await connectClient(server.url, TOKENS.alice);
    expect(
      (await client.callTool({ name: 'text_stats', arguments: { text: 'still alive' } })).structuredContent,
    ).toMatchObject({ words: 2 });
    await client.close();
    const answer = await callModern(
      server.url,
      modernRequest('tools/call', { name: 'text_stats', arguments: { text: 'still alive' } }, {}),
    );
    expect(answer.result).toMatchObject({ structuredContent: { words: 2 } });
  });
});
