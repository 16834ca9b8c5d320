// `npm run bench`: the project on the local stack against an anchor (bench/anchor.ts: the official SDK's stateless
// server with its in-memory task store and a tool that sleeps 50 ms), measured in the same run, alternating, each
// server in its own process. Every figure is printed as a ratio against its baseline; absolute times vary with the
// machine, the ratios and the AWS call counts are what to compare between runs.
import { DescribeExecutionCommand } from '@aws-sdk/client-sfn';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectTaskClient } from '../cli/connect.js';
import { MODERN_VERSION } from '../cli/modern-dispatch.js';
import type { Logger } from '../lambda/core/logger.js';
import { EXAMPLE_TOOLS } from '../lambda/example-tools/example-tool-catalog.js';
import { DEFAULT_SETTINGS } from '../lambda/service/settings.js';
import { createEventTable } from '../local/dynamodb-local-tables.js';
import { localClients, startLocalInfrastructure } from '../local/infrastructure.js';
import { startLocalStatusEvents } from '../local/status-events-stand-in.js';
import { createTaskCore } from '../lambda/handlers/task-core.js';
import { ANCHOR_PLAIN_TOOL, ANCHOR_TASK_TOOL } from './anchor.js';
import type { BenchServerConfig } from './bench-server.js';
import { fastToolRows, pollCostRows } from './fast-tool-rows.js';
import {
  alternate,
  cpuPerRequest,
  median,
  ms,
  sleep,
  startServer,
  table,
  throughput,
  timed,
  worst,
  type Server,
} from './latency-harness.js';
import { seedTasks, storedTask } from './seed-tasks.js';

// The SDK client sends every request with its transport's one AbortSignal, and fetch's abort listeners on it go only
// when their requests are collected: the throughput rounds' thousands of requests trip Node's leak warning, once per
// request past the limit. It says nothing about the servers under measurement; every other warning still prints.
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name !== 'MaxListenersExceededWarning') console.warn(warning);
});

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 20);
const POLL_ROUNDS = ROUNDS * 20;
/**
 * Polls before the poll figures: a deployed function serves polls with its code optimized by the JIT, and a few
 * hundred requests get both servers there (a handful measures the JIT warming up, not the server).
 */
const POLL_WARMUPS = 300;
const POLLERS = 50;
const THROUGHPUT_MS = 3_000;
const LIST_TASKS = Number(process.env['BENCH_LIST_TASKS'] ?? 5_000);
const OWNER = 'bench';

/**
 * The status events' logger: their audit records (one a finished task) would print hundreds of lines before the table;
 * warnings and errors still go to stderr. The servers log nothing (bench/bench-server.ts).
 */
const statusEventsLogger: Logger = {
  info: () => {},
  warn: (message, extra) => console.error(JSON.stringify({ level: 'WARN', message, ...extra })),
  error: (message, extra) => console.error(JSON.stringify({ level: 'ERROR', message, ...extra })),
};

async function main(): Promise<void> {
  const infrastructure = await startLocalInfrastructure({ example: EXAMPLE_TOOLS }, { progressTableName: 'bench' });
  const started: Server[] = [];
  const { row, note, print } = table();
  try {
    await infrastructure.createTable('bench');
    await createEventTable(localClients(infrastructure).dynamoDb, 'bench-events');
    const project = (): BenchServerConfig => ({
      kind: 'project',
      dynamoDbEndpoint: infrastructure.dynamoDbEndpoint,
      stepFunctionsEndpoint: infrastructure.stepFunctionsEndpoint,
      tableName: 'bench',
      eventTableName: 'bench-events',
      tools: infrastructure.tools.example,
      // Limits out of the way: the bench creates tasks much faster than any one person would.
      settings: {
        ...DEFAULT_SETTINGS,
        maxActiveTasksPerOwner: 5_000,
        maxTaskCreationsPerMinute: 1_000_000,
      },
    });
    const ours = await startServer(project());
    started.push(ours);
    const anchor = await startServer({ kind: 'anchor' });
    started.push(anchor);
    const aws = localClients(infrastructure);
    // The status events, in this process as they are a function of their own in AWS: the server's CPU is its own.
    const statusEvents = await startLocalStatusEvents({
      dynamoDb: aws.dynamoDb,
      dynamoDbEndpoint: infrastructure.dynamoDbEndpoint,
      taskTableName: 'bench',
      service: createTaskCore({ tableName: 'bench', settings: DEFAULT_SETTINGS }, aws, statusEventsLogger).service,
      executionEnded: infrastructure.onExecutionEnded,
    });

    const textStats = { name: 'text_stats', arguments: { text: 'a b c' } };
    const callThenResult = async (client: Client, params: { name: string; arguments: Record<string, unknown> }) => {
      const { task } = await client.request(
        { method: 'tools/call', params: { ...params, task: { ttl: 600_000 } } },
        CreateTaskResultSchema,
      );
      await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      return task.taskId;
    };

    // Fast results: a blocking tasks/result and a plain tools/call, against the anchor's 50 ms tool.
    const callResult = await alternate({ ours, anchor }, ROUNDS, {
      ours: () => callThenResult(ours.client, textStats),
      anchor: () => callThenResult(anchor.client, { name: ANCHOR_TASK_TOOL, arguments: {} }),
    });
    row(
      'tools/call (task) -> blocking tasks/result',
      ms(callResult.ours.median),
      ms(callResult.anchor.median),
      callResult.ours.median / callResult.anchor.median,
      '<= 0.5',
    );
    const plain = await alternate({ ours, anchor }, ROUNDS, {
      ours: () => ours.client.callTool(textStats),
      anchor: () => anchor.client.callTool({ name: ANCHOR_PLAIN_TOOL, arguments: {} }),
    });
    row(
      'plain tools/call',
      ms(plain.ours.median),
      ms(plain.anchor.median),
      plain.ours.median / plain.anchor.median,
      '(info)',
    );
    // The same fast tool through the SDKs' task clients, which poll tasks/get as hinted instead of blocking.
    await fastToolRows({ ours, anchor }, ROUNDS, row, note);

    // How long after the execution's end the blocking result arrives (the emulator records when it stopped), in two
    // parts: the status event's delivery (the item records the end at `lastUpdatedAt`; on this stack the stand-in
    // looks at each execution every 200 ms, in AWS EventBridge pushes it), then the waiter's next read of the item.
    const lateness: number[] = [];
    const delivered: number[] = [];
    const waited: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const taskId = await callThenResult(ours.client, textStats);
      const answered = Date.now();
      const stored = await storedTask(aws.dynamoDb, 'bench', OWNER, taskId);
      const { stopDate } = await aws.stepFunctions.send(
        new DescribeExecutionCommand({ executionArn: stored.executionArn }),
      );
      lateness.push(answered - stopDate!.getTime());
      delivered.push(stored.lastUpdatedAt - stopDate!.getTime());
      waited.push(answered - stored.lastUpdatedAt);
    }
    row(
      'blocking result after the execution ends (median)',
      ms(median(lateness)),
      '100 ms',
      median(lateness) / 100,
      '<= 1',
    );
    row(
      'blocking result after the execution ends (worst)',
      ms(worst(lateness)),
      '100 ms',
      worst(lateness) / 100,
      '(info)',
    );
    row(
      '  of which: status event recorded after the end (median)',
      ms(median(delivered)),
      '100 ms',
      median(delivered) / 100,
      '(info)',
    );
    row(
      '  of which: blocking result after the record (median)',
      ms(median(waited)),
      '100 ms',
      median(waited) / 100,
      '<= 1',
    );

    // A client polling raw tasks/get at each answer's hinted interval (and just under it) on a task that runs a few
    // seconds. Each hint is at most the stored interval (a task's first 40 s), so the end is seen within it.
    const pollers = [2, 3, 4].flatMap((reviewSeconds) => [1, 0.95].map((factor) => ({ reviewSeconds, factor })));
    const seenLate = await Promise.all(
      pollers.map(async ({ reviewSeconds, factor }) => {
        const { task } = await ours.client.request(
          {
            method: 'tools/call',
            params: {
              name: 'analyze_documents',
              arguments: { documents: ['a'], reviewSeconds },
              task: { ttl: 600_000 },
            },
          },
          CreateTaskResultSchema,
        );
        let { status, pollInterval } = task;
        while (status !== 'completed' && status !== 'failed') {
          await sleep(pollInterval! * factor);
          ({ status, pollInterval } = await ours.client.experimental.tasks.getTask(task.taskId));
        }
        const seen = Date.now();
        const { stopDate } = await aws.stepFunctions.send(
          new DescribeExecutionCommand({
            executionArn: (await storedTask(aws.dynamoDb, 'bench', OWNER, task.taskId)).executionArn,
          }),
        );
        return seen - stopDate!.getTime();
      }),
    );
    const pollBound = DEFAULT_SETTINGS.pollIntervalMs + 100;
    row(
      'polling at pollInterval: completion seen after end (worst)',
      ms(worst(seenLate)),
      `${pollBound} ms`,
      worst(seenLate) / pollBound,
      '<= 1',
    );
    await pollCostRows({ ours, anchor }, row, note);

    // Polls: tasks/get of a running task, steady state (no refresh due).
    const running = async (server: Server, name: string, args: Record<string, unknown>) =>
      (
        await server.client.request(
          { method: 'tools/call', params: { name, arguments: args, task: { ttl: 3_600_000 } } },
          CreateTaskResultSchema,
        )
      ).task.taskId;
    const ourTask = await running(ours, 'analyze_documents', { documents: ['a'], reviewSeconds: 3600 });
    await ours.client.experimental.tasks.getTask(ourTask);
    const anchorTask = await running(anchor, ANCHOR_TASK_TOOL, {});
    // The same poll in the modern era (2026-07-28, the Tasks extension) too, as the CLI sends it: the official 2.x
    // client and an ext-tasks session. No official server speaks that era, so its anchor is the anchor's 2025 poll.
    // Beside them each server's ping: what any request costs it, so the difference is what a poll adds (a GetItem
    // over loopback to DynamoDB Local, a process of its own, where the anchor reads its memory). All measured per
    // request, in the same rounds (cpuPerRequest).
    const modern = await connectTaskClient({ url: ours.url }, MODERN_VERSION);
    const requests = await cpuPerRequest(
      {
        poll: { server: ours, run: () => ours.client.experimental.tasks.getTask(ourTask) },
        modernPoll: { server: ours, run: () => modern.getTask(ourTask) },
        anchorPoll: { server: anchor, run: () => anchor.client.experimental.tasks.getTask(anchorTask) },
        ping: { server: ours, run: () => ours.client.ping() },
        anchorPing: { server: anchor, run: () => anchor.client.ping() },
      },
      POLL_ROUNDS,
      POLL_WARMUPS,
    );
    await modern.close();
    const { poll, modernPoll, anchorPoll, ping, anchorPing } = requests;
    row('tasks/get median', ms(poll.median), ms(anchorPoll.median), poll.median / anchorPoll.median, '<= 1.5');
    row(
      'tasks/get server CPU per request',
      ms(poll.cpuMs),
      ms(anchorPoll.cpuMs),
      poll.cpuMs / anchorPoll.cpuMs,
      '<= 1.2',
    );
    row(
      'tasks/get AWS calls (DynamoDB + Step Functions)',
      `${poll.dynamoDb.toFixed(2)} + ${poll.stepFunctions.toFixed(2)}`,
      '1 read',
      poll.dynamoDb + poll.stepFunctions,
      '1',
    );
    row(
      'tasks/get (2026-07-28) server CPU per request',
      ms(modernPoll.cpuMs),
      ms(anchorPoll.cpuMs),
      modernPoll.cpuMs / anchorPoll.cpuMs,
      '<= 1.2',
    );
    row('ping median', ms(ping.median), ms(anchorPing.median), ping.median / anchorPing.median, '(info)');
    row('ping server CPU per request', ms(ping.cpuMs), ms(anchorPing.cpuMs), ping.cpuMs / anchorPing.cpuMs, '(info)');
    const rates = { ours: [] as number[], anchor: [] as number[] };
    for (let round = 0; round < 2; round++) {
      rates.ours.push(await throughput(() => ours.client.experimental.tasks.getTask(ourTask), POLLERS, THROUGHPUT_MS));
      rates.anchor.push(
        await throughput(() => anchor.client.experimental.tasks.getTask(anchorTask), POLLERS, THROUGHPUT_MS),
      );
    }
    const rate = { ours: median(rates.ours), anchor: median(rates.anchor) };
    row(
      `tasks/get throughput, ${POLLERS} concurrent pollers`,
      `${rate.ours.toFixed(0)}/s`,
      `${rate.anchor.toFixed(0)}/s`,
      rate.ours / rate.anchor,
      '>= 0.6',
    );

    // Lists: a page of 20 active tasks.
    for (let index = 0; index < 20; index++)
      await running(ours, 'analyze_documents', { documents: ['a'], reviewSeconds: 3600 });
    const lists = await alternate({ ours, anchor }, ROUNDS, {
      ours: () => ours.client.experimental.tasks.listTasks(),
      anchor: () => anchor.client.experimental.tasks.listTasks(),
    });
    row(
      'tasks/list page of 20 active tasks',
      ms(lists.ours.median),
      ms(lists.anchor.median),
      lists.ours.median / lists.anchor.median,
      '(info)',
    );
    row(
      'tasks/list AWS calls per page (DynamoDB + Step Functions)',
      `${lists.ours.dynamoDb.toFixed(2)} + ${lists.ours.stepFunctions.toFixed(2)}`,
      '1 Query',
      lists.ours.dynamoDb + lists.ours.stepFunctions,
      '1',
    );
    const listTimes = async (): Promise<number[]> => {
      const samples: number[] = [];
      for (let round = 0; round < ROUNDS; round++)
        samples.push(await timed(() => ours.client.experimental.tasks.listTasks()));
      return samples;
    };
    const smallList = median(await listTimes());
    await seedTasks(aws.dynamoDb, 'bench', OWNER, LIST_TASKS);
    const bigList = median(await listTimes());
    row(
      `tasks/list page with ${LIST_TASKS} more tasks stored vs without`,
      ms(bigList),
      ms(smallList),
      bigList / smallList,
      '~1 (flat)',
    );

    console.log(
      `\nnpm run bench: ${ROUNDS} rounds (tasks/get ${POLL_ROUNDS}), alternating with the ` +
        `anchor, local stack (DynamoDB Local, Step Functions emulator), Node ${process.version}\n`,
    );
    print();
    for (const server of started) await server.client.close();
    await statusEvents.stop();
  } finally {
    for (const server of started) server.stop();
    await infrastructure.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
