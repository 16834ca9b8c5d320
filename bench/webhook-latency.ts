// `npm run bench:webhooks`: how soon a webhook receiver learns that a task ended, against a client polling tasks/get
// at the pollInterval the endpoint advertises, both watching the same tasks in the same run. The local stack is
// composed as `npm start` composes it (DynamoDB Local, the Step Functions emulator, the task table's stream feeding
// the event log and the delivery queue); a receiver on loopback is subscribed to tasks.updated with a fresh secret.
// Each task is timed from its execution's end as the emulator records it (DescribeExecution's stopDate). The task's
// completedAt and its terminal event's timestamp are when the end was written to the task table, which is after the
// local status watcher (or a poll) saw it, so timing from them would leave out part of what a client waits; the bench
// prints that part on its own. It prints figures and asserts nothing.
import { randomBytes } from 'node:crypto';
import { DescribeExecutionCommand } from '@aws-sdk/client-sfn';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { ENV } from '../lambda/contract/environment-names.js';
import { isTerminal, type TaskStatus } from '../lambda/core/task-status.js';
import { createWebhookVerifier, WebhookVerificationError } from '../lambda/events/webhook-verifier.js';
import { EXAMPLE_TOOLS } from '../lambda/example-tools/example-tool-catalog.js';
import { createBackend } from '../lambda/handlers/backend.js';
import { configFromEnvironment } from '../lambda/handlers/environment.js';
import { LOOPBACK_HOSTS, singleOwner, startDevServer } from '../local/dev-server.js';
import { createEventTable } from '../local/dynamodb-local-tables.js';
import { localClients, startLocalInfrastructure } from '../local/infrastructure.js';
import { localAwsEnvironment } from '../local/local-aws.js';
import { startLocalTaskEvents } from '../local/task-events-stack.js';
import { startLocalStatusEvents } from '../local/status-events-stand-in.js';
import { writeDeclaredCatalog } from '../local/declared-tool-catalog.js';
import { isVerification, startWebhookReceiver, type ReceivedRequest } from '../test/support/webhook-receiver.js';
import { storedTask } from './seed-tasks.js';

const SEQUENTIAL = Number(process.env['BENCH_TASKS'] ?? 20);
const BURST = Number(process.env['BENCH_BURST'] ?? 10);
/** Tasks run first and not counted: the first requests of a fresh process measure the JIT, not the pipeline. */
const WARMUPS = 2;
/** The longest a task's end is waited for, by the poller and the receiver; one not seen by then is left out. */
const WAIT_CAP_MS = 30_000;
const TABLE_NAME = 'bench-webhooks-tasks';
const EVENT_TABLE_NAME = 'bench-webhooks-events';
/** Auth is off, as `npm start` runs it: every request belongs to this owner. */
const OWNER = 'local';
const quiet = { info: () => {}, warn: () => {}, error: () => {} };

interface Measured {
  readonly taskId: string;
  readonly phase: 'sequential' | 'burst';
  /** Epoch ms: the execution's stopDate on the emulator (absent if it had not stopped). */
  readonly endedAt: number | undefined;
  /** Epoch ms: the first tasks/get answer (at the advertised pollInterval) showing the terminal status. */
  readonly polledAt: number | undefined;
  readonly polls: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const sorted = (samples: readonly number[]): number[] => [...samples].sort((a, b) => a - b);
const median = (samples: readonly number[]): number => sorted(samples)[Math.floor(samples.length / 2)]!;
/** Nearest rank. */
const p95 = (samples: readonly number[]): number => sorted(samples)[Math.ceil(samples.length * 0.95) - 1]!;
const max = (samples: readonly number[]): number => Math.max(...samples);

async function until<T>(probe: () => T | undefined, capMs: number): Promise<T | undefined> {
  const deadline = Date.now() + capMs;
  for (;;) {
    const found = probe();
    if (found !== undefined || Date.now() > deadline) return found;
    await sleep(10);
  }
}

/** A delivery's body as this bench reads it (an EventOccurrence of tasks.updated). */
interface Occurrence {
  readonly eventId?: string;
  readonly timestamp?: string;
  readonly data?: { readonly taskId?: string; readonly seq?: number; readonly task?: { readonly status?: string } };
}
const occurrenceOf = (request: ReceivedRequest): Occurrence => (request.json ?? {}) as Occurrence;
const isTerminalDelivery = (request: ReceivedRequest, taskId: string): boolean => {
  const { data } = occurrenceOf(request);
  return data?.taskId === taskId && data.task?.status !== undefined && isTerminal(data.task.status as TaskStatus);
};

async function main(): Promise<void> {
  const stopAll: Array<() => Promise<void>> = [];
  try {
    // As local/start.ts composes the product: the stand-ins, the task table (with its stream) and the event table,
    // the event pipeline with loopback receivers allowed, the endpoint from the environment, the dev server.
    const infrastructure = await startLocalInfrastructure(
      { example: EXAMPLE_TOOLS },
      { progressTableName: TABLE_NAME },
    );
    stopAll.push(infrastructure.stop);
    await infrastructure.createTable(TABLE_NAME);
    const aws = localClients(infrastructure);
    stopAll.push(async () => {
      aws.dynamoDb.destroy();
      aws.stepFunctions.destroy();
    });
    Object.assign(process.env, {
      ...localAwsEnvironment(infrastructure),
      [ENV.tableName]: TABLE_NAME,
      [ENV.toolCatalogItem]: await writeDeclaredCatalog(aws.dynamoDb, TABLE_NAME, infrastructure.tools.example),
      [ENV.allowedHosts]: LOOPBACK_HOSTS.join(','),
      POWERTOOLS_LOG_LEVEL: process.env['POWERTOOLS_LOG_LEVEL'] ?? 'WARN',
    });
    await createEventTable(aws.dynamoDb, EVENT_TABLE_NAME);
    const events = await startLocalTaskEvents({
      dynamoDb: aws.dynamoDb,
      dynamoDbEndpoint: infrastructure.dynamoDbEndpoint,
      taskTableName: TABLE_NAME,
      eventTableName: EVENT_TABLE_NAME,
      allowLoopbackHttp: true,
      logger: quiet,
    });
    stopAll.push(events.stop);
    const settings = configFromEnvironment(process.env);
    const backend = createBackend({ ...settings, events: events.config });
    const statusEvents = await startLocalStatusEvents({
      dynamoDb: aws.dynamoDb,
      dynamoDbEndpoint: infrastructure.dynamoDbEndpoint,
      taskTableName: TABLE_NAME,
      service: backend.service,
      executionEnded: infrastructure.onExecutionEnded,
    });
    stopAll.push(statusEvents.stop);
    const server = await startDevServer(backend.app, { resolveOwner: singleOwner(OWNER) });
    stopAll.push(server.close);
    const receiver = await startWebhookReceiver();
    stopAll.push(receiver.close);

    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const subscribed = await rpc(server.url, 'events/subscribe', {
      name: 'tasks.updated',
      arguments: {},
      delivery: { mode: 'webhook', url: `${receiver.url}/hooks`, secret },
      cursor: null,
      ttlMs: 3_600_000,
    });
    if ('error' in subscribed) throw new Error(`events/subscribe answered ${JSON.stringify(subscribed.error)}`);

    const client = new Client({ name: 'bench-webhooks', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    stopAll.push(() => client.close());

    let created = 0;
    /** The pollInterval the endpoint advertised in its answers to tools/call. */
    const advertised = new Set<number>();
    /** One text_stats task, polled at its pollInterval until a poll shows it ended, and its terminal delivery. */
    const runTask = async (phase: Measured['phase']): Promise<Measured> => {
      const { task } = await client.request(
        {
          method: 'tools/call',
          params: { name: 'text_stats', arguments: { text: `bench run ${created++}` }, task: { ttl: 600_000 } },
        },
        CreateTaskResultSchema,
      );
      advertised.add(task.pollInterval!);
      const polling = (async () => {
        const deadline = Date.now() + WAIT_CAP_MS;
        let polls = 0;
        let status = task.status;
        while (!isTerminal(status as TaskStatus)) {
          if (Date.now() > deadline) return { polledAt: undefined, polls };
          await sleep(task.pollInterval!);
          status = (await client.experimental.tasks.getTask(task.taskId)).status;
          polls++;
        }
        return { polledAt: Date.now(), polls };
      })();
      const delivered = until(
        () => receiver.requests.find((request) => isTerminalDelivery(request, task.taskId)),
        WAIT_CAP_MS,
      );
      const [{ polledAt, polls }] = await Promise.all([polling, delivered]);
      const { executionArn } = await storedTask(aws.dynamoDb, TABLE_NAME, OWNER, task.taskId);
      const { stopDate } = await aws.stepFunctions.send(new DescribeExecutionCommand({ executionArn }));
      return { taskId: task.taskId, phase, endedAt: stopDate?.getTime(), polledAt, polls };
    };

    for (let warmup = 0; warmup < WARMUPS; warmup++) await runTask('sequential');
    const warmupCount = receiver.requests.length;
    const measured: Measured[] = [];
    for (let round = 0; round < SEQUENTIAL; round++) measured.push(await runTask('sequential'));
    measured.push(...(await Promise.all(Array.from({ length: BURST }, () => runTask('burst')))));
    await events.settled();

    // Every delivery after the warm-up, checked as a receiver would check it, at the moment it arrived: the
    // signature with the subscription's secret, and the webhook-id not seen before.
    let nowMs = 0;
    const verifier = createWebhookVerifier({ secret, now: () => nowMs });
    const verdicts = new Map<ReceivedRequest, 'signed' | 'replayed' | 'refused'>();
    for (const request of receiver.requests.slice(warmupCount)) {
      if (isVerification(request)) continue;
      nowMs = request.atMs;
      try {
        verifier.verify(request.rawBody, request.headers as Record<string, string>);
        verdicts.set(request, 'signed');
      } catch (error) {
        verdicts.set(
          request,
          error instanceof WebhookVerificationError && error.reason === 'replayed' ? 'replayed' : 'refused',
        );
      }
    }
    const deliveries = [...verdicts.keys()];

    const rows: Array<{ phase: string; webhook: number[]; poll: number[]; recorded: number[]; sent: number[] }> = [];
    /** Tasks left out of the figures: execution not stopped, end not seen by a poll, no signed terminal event. */
    const unseen = { stopped: 0, polled: 0, delivered: 0 };
    const order = { exact: 0, events: 0, duplicates: 0, lost: 0, outOfOrder: 0 };
    for (const phase of ['sequential', 'burst', 'all'] as const) {
      const tasks = measured.filter((each) => phase === 'all' || each.phase === phase);
      const row = {
        phase: `${phase} (${tasks.length} tasks)`,
        webhook: [],
        poll: [],
        recorded: [],
        sent: [],
      } as (typeof rows)[number];
      for (const { taskId, endedAt, polledAt } of tasks) {
        const terminal = deliveries.find(
          (request) => verdicts.get(request) === 'signed' && isTerminalDelivery(request, taskId),
        );
        if (phase === 'all') {
          if (endedAt === undefined) unseen.stopped++;
          if (polledAt === undefined) unseen.polled++;
          if (terminal === undefined) unseen.delivered++;
        }
        if (endedAt === undefined) continue;
        if (polledAt !== undefined) row.poll.push(polledAt - endedAt);
        if (terminal === undefined) continue;
        const recordedAt = Date.parse(occurrenceOf(terminal).timestamp!);
        row.webhook.push(terminal.atMs - endedAt);
        row.recorded.push(recordedAt - endedAt);
        row.sent.push(terminal.atMs - recordedAt);
      }
      rows.push(row);
    }
    // Once and in order: each task's deliveries, in the order they arrived, against its event log.
    for (const task of measured) {
      const log = await eventLog(server.url, task.taskId);
      const mine = deliveries.filter((request) => occurrenceOf(request).data?.taskId === task.taskId);
      const seqs = mine
        .filter((request) => verdicts.get(request) === 'signed')
        .map((request) => occurrenceOf(request).data!.seq!);
      const duplicates = mine.filter((request) => verdicts.get(request) === 'replayed').length;
      const lost = log.filter((seq) => !seqs.includes(seq)).length;
      const inOrder = seqs.every((seq, index) => index === 0 || seq > seqs[index - 1]!);
      order.events += log.length;
      order.duplicates += duplicates;
      order.lost += lost;
      if (!inOrder) order.outOfOrder++;
      if (duplicates === 0 && lost === 0 && inOrder && seqs.length === log.length) order.exact++;
    }
    const refused = [...verdicts.values()].filter((verdict) => verdict === 'refused').length;

    const pollInterval = [...advertised].join(' / ');
    console.log(
      `\nnpm run bench:webhooks: text_stats, ${SEQUENTIAL} tasks one after another, then ${BURST} at once ` +
        `(after ${WARMUPS} warm-ups); local stack, Node ${process.version}`,
    );
    console.log(
      'Locally an execution’s end reaches the task table through the local status watcher ' +
        '(local/execution-status-watcher.ts, every 200 ms); in AWS it is Step Functions’ status event through ' +
        'EventBridge.',
    );
    console.log(
      `From the execution’s end (DescribeExecution stopDate) to: the receiver getting the signed terminal event ` +
        `(webhook), and the first tasks/get answer showing it, polling every ${pollInterval} ms as advertised ` +
        `(poll).\n`,
    );
    const widths = [34, 16, 16, 7];
    const line = (cells: string[]) =>
      console.log(cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' '));
    line(['figure', 'webhook', 'poll', 'ratio']);
    const ms = (value: number) => `${value.toFixed(0)} ms`;
    for (const row of rows) {
      if (row.webhook.length === 0 || row.poll.length === 0) continue;
      for (const [name, stat] of [
        ['median', median],
        ['p95', p95],
        ['max', max],
      ] as const) {
        const [webhook, poll] = [stat(row.webhook), stat(row.poll)];
        line([`${row.phase} ${name}`, ms(webhook), ms(poll), (webhook / poll).toFixed(2)]);
      }
    }
    // Where a webhook's time goes: until the end is written to the task table (locally the status watcher, or a
    // poll's refresh; in AWS the status event), then the stream poller, projector, delivery queue and signed POST.
    console.log('');
    line(['webhook, split (median / max)', 'end -> written', 'written -> got']);
    for (const row of rows.slice(0, 2)) {
      if (row.webhook.length === 0) continue;
      const split = (samples: number[]) => `${ms(median(samples))} / ${ms(max(samples))}`;
      line([row.phase, split(row.recorded), split(row.sent)]);
    }
    console.log(
      `tasks/get requests per task until the end was seen: median ${median(measured.map((each) => each.polls))}; ` +
        `webhook: none`,
    );
    console.log(
      `deliveries: ${order.exact}/${measured.length} tasks got every event of their log once and in order ` +
        `(${order.events} events; ${order.duplicates} duplicates, ${order.lost} missing, ` +
        `${order.outOfOrder} tasks out of order, ${refused} refused by the verifier)`,
    );
    console.log(
      `not seen within ${WAIT_CAP_MS / 1000} s, left out: ${unseen.stopped} executions not stopped, ` +
        `${unseen.polled} ends not seen by a poll, ${unseen.delivered} terminal events not received`,
    );
  } finally {
    for (const stop of stopAll.reverse()) await stop().catch((error: unknown) => console.error(error));
  }
}

type RpcAnswer = { result: Record<string, unknown> } | { error: unknown };

/** A plain JSON-RPC request: the MCP SDK clients know no events/* method. */
async function rpc(url: string, method: string, params: Record<string, unknown>): Promise<RpcAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await response.json()) as RpcAnswer;
}

/** The seqs of a task's event log, from the start (events/poll of task.events with cursor "0"). */
async function eventLog(url: string, taskId: string): Promise<number[]> {
  const seqs: number[] = [];
  let cursor = '0';
  for (;;) {
    const answer = await rpc(url, 'events/poll', { name: 'task.events', arguments: { taskId }, cursor });
    if ('error' in answer) throw new Error(`events/poll answered ${JSON.stringify(answer.error)}`);
    const page = answer.result as { events: Occurrence[]; cursor: string; hasMore: boolean };
    seqs.push(...page.events.map((event) => event.data!.seq!));
    if (!page.hasMore) return seqs;
    cursor = page.cursor;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
