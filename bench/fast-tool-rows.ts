// `npm run bench`'s figures for a fast tool as the SDKs' own task clients see it, each polling as hinted: the 1.x SDK's
// `client.experimental.tasks.callToolStream` (tools/call with a task, then tasks/get at once and after each hint, then
// tasks/result) and the 2026-07-28 ext-tasks session (`session.callTool`, then `execution.settle()`: it sleeps the
// creation's hint before its first tasks/get). And what polling as hinted costs a task of a second, a minute and an
// hour: the project's hints (`pollHintMs`) against the anchor's fixed interval.
import { Client as ModernClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, type RawClientDispatch } from '@modelcontextprotocol/ext-tasks/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { CLIENT_INFO } from '../cli/endpoint.js';
import { fetchDispatch, MODERN_VERSION } from '../cli/modern-dispatch.js';
import { pollHintMs } from '../lambda/core/task.js';
import { DEFAULT_SETTINGS } from '../lambda/service/settings.js';
import { ANCHOR_TASK_TOOL } from './anchor.js';
import { alternate, median, ms, type Row, type Servers } from './latency-harness.js';

const TTL_MS = 600_000;
const TEXT_STATS = { name: 'text_stats', arguments: { text: 'a b c' } };
const ANCHOR_CALL = { name: ANCHOR_TASK_TOOL, arguments: {} };

/** The 1.x SDK's callToolStream to its `result` message; how many tasks/get it sent on the way. */
async function streamToResult(client: Client, params: { name: string; arguments: Record<string, unknown> }) {
  let polls = 0;
  for await (const message of client.experimental.tasks.callToolStream(params, CallToolResultSchema, {
    task: { ttl: TTL_MS },
  })) {
    if (message.type === 'taskStatus') polls++;
    if (message.type === 'error') throw message.error;
    if (message.type === 'result') return polls;
  }
  throw new Error(`callToolStream of ${params.name} ended without a result`);
}

/** An ext-tasks session over the official 2.x client pinned to 2026-07-28, counting the tasks/get it sends. */
async function extTasksSession(url: string) {
  const client = new ModernClient({ ...CLIENT_INFO }, { versionNegotiation: { mode: { pin: MODERN_VERSION } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const raw = fetchDispatch({ url });
  let polls = 0;
  const counting: RawClientDispatch = (request, options) => {
    if ((request as { method: string }).method === 'tasks/get') polls++;
    return raw(request, options);
  };
  const session = createTaskSessionFromClient(client, {
    endpointId: `${url}#bench`,
    rawDispatch: counting,
    v2RequestFraming: { protocolVersion: MODERN_VERSION, clientInfo: { ...CLIENT_INFO }, clientCapabilities: {} },
  });
  return {
    /** Calls the tool and settles it; how the server answered (`task` or `immediate`) and the tasks/get sent. */
    async callToResult(name: string, args: Record<string, string>): Promise<{ kind: string; polls: number }> {
      const before = polls;
      const execution = await session.callTool(name, args, { task: { preference: 'prefer', retentionMs: TTL_MS } });
      const { outcome } = await execution.settle();
      if (outcome.status !== 'completed') throw new Error(`${name} ended ${outcome.status} on ${MODERN_VERSION}`);
      return { kind: execution.kind, polls: polls - before };
    },
    async close(): Promise<void> {
      await session.close();
      await client.close();
    },
  };
}

/** A fast tool's call to its result, through the 1.x callToolStream and the 2026-07-28 ext-tasks session. */
export async function fastToolRows(servers: Servers, rounds: number, row: Row, note: (text: string) => void) {
  const { ours, anchor } = servers;
  const polls = { ours: [] as number[], anchor: [] as number[], modern: [] as number[] };
  const stream = await alternate(servers, rounds, {
    ours: async () => polls.ours.push(await streamToResult(ours.client, TEXT_STATS)),
    anchor: async () => polls.anchor.push(await streamToResult(anchor.client, ANCHOR_CALL)),
  });
  row(
    'fast tool, call to result (1.x callToolStream)',
    ms(stream.ours.median),
    ms(stream.anchor.median),
    stream.ours.median / stream.anchor.median,
    '<= 0.5',
  );
  const last = (samples: number[]) => median(samples.slice(-rounds));
  row(
    '  of which: tasks/get per call (median)',
    last(polls.ours).toFixed(0),
    last(polls.anchor).toFixed(0),
    last(polls.ours) / last(polls.anchor),
    '(info)',
  );

  // No official server speaks 2026-07-28, so the baseline is the anchor's 1.x callToolStream again.
  const session = await extTasksSession(ours.url);
  const kinds = new Set<string>();
  const modern = await alternate(servers, rounds, {
    ours: async () => {
      const { kind, polls: sent } = await session.callToResult(TEXT_STATS.name, TEXT_STATS.arguments);
      kinds.add(kind);
      polls.modern.push(sent);
    },
    anchor: () => streamToResult(anchor.client, ANCHOR_CALL),
  });
  await session.close();
  row(
    'fast tool, call to result (2026-07-28 ext-tasks)',
    ms(modern.ours.median),
    ms(modern.anchor.median),
    modern.ours.median / modern.anchor.median,
    '<= 0.5',
  );
  row('  of which: tasks/get per call (median)', last(polls.modern).toFixed(0), '-', NaN, '(info)');
  note(
    `fast tool (2026-07-28 ext-tasks): text_stats was answered ` +
      `${[...kinds].map((kind) => (kind === 'task' ? 'as a task' : 'inline')).join(' and ')}; the baseline is the ` +
      `anchor's 1.x callToolStream (the anchor speaks 2025-11-25 only)`,
  );
}

/**
 * How many tasks/get a client makes that polls at once after the create and then sleeps each answer's hint (the 1.x
 * callToolStream's loop), on a task that ends `durationMs` after its creation; the poll that sees the end counts. The
 * requests themselves take no time here.
 */
export function pollsAsHinted(durationMs: number, hintAt: (ageMs: number) => number): number {
  let polls = 0;
  for (let age = 0; ; age += hintAt(age)) {
    polls++;
    if (age >= durationMs) return polls;
  }
}

/**
 * What polling as hinted costs a task of a second, a minute and an hour: the project's hints (`pollHintMs` on the
 * stored interval the bench's server has) against the interval the anchor hints, read from its create and tasks/get.
 */
export async function pollCostRows(servers: Servers, row: Row, note: (text: string) => void) {
  const { task } = await servers.anchor.client.request(
    { method: 'tools/call', params: { ...ANCHOR_CALL, task: { ttl: TTL_MS } } },
    CreateTaskResultSchema,
  );
  const polled = await servers.anchor.client.experimental.tasks.getTask(task.taskId);
  // callToolStream sleeps the poll's pollInterval, or its own default of 1 s when there is none.
  const anchorInterval = polled.pollInterval ?? 1000;
  const stored = DEFAULT_SETTINGS.pollIntervalMs;
  const ourHint = (age: number) => pollHintMs({ status: 'working', createdAt: 0, pollIntervalMs: stored }, age);
  for (const [label, durationMs] of [
    ['1 s', 1_000],
    ['1 min', 60_000],
    ['1 h', 3_600_000],
  ] as const) {
    const ours = pollsAsHinted(durationMs, ourHint);
    const theirs = pollsAsHinted(durationMs, () => anchorInterval);
    row(`polls a ${label} task costs when polled as hinted`, `${ours}`, `${theirs}`, ours / theirs, '(info)');
  }
  note(
    `polls as hinted: a client that polls at once after the create, then sleeps each hint (callToolStream's ` +
      `loop). The anchor's pollInterval: ${task.pollInterval ?? 'none'} ms at its create, ` +
      `${polled.pollInterval ?? 'none'} ms at its tasks/get (read in this run); the project's: pollHintMs on the ` +
      `stored ${stored} ms, from ${ourHint(0)} ms`,
  );
}
