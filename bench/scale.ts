// `npm run bench:scale`: how task creates and polls scale with the number of MCP server processes behind one load
// balancer, on the local stack with the Step Functions emulator's quota mode on, and what a client gets once
// StartExecution's rate is used up. The processes share one table and one emulator, as Lambda instances share an
// account: the quota is the account's, so more processes cannot create faster than it allows.
import { ScanCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { EXAMPLE_TOOLS } from '../lambda/example-tools/example-tool-catalog.js';
import { createTaskCore } from '../lambda/handlers/task-core.js';
import { DEFAULT_SETTINGS, type TaskServiceSettings } from '../lambda/service/settings.js';
import { TASK_ATTRIBUTE as A } from '../lambda/contract/task-item-attributes.js';
import { MAX_ACTIVE_TASKS_LIMIT } from '../lambda/contract/active-tasks-limit.js';
import { PARTITION_KEY } from '../lambda/contract/task-table-schema.js';
import { activeTasksKey } from '../lambda/store/task-table-keys.js';
import { MAX_ACTIVE_SLOT_SHARDS } from '../lambda/store/dynamodb-owner-quotas.js';
import { STEP_FUNCTIONS_API_QUOTAS } from '../local/step-functions/api-quotas.js';
import { createEventTable } from '../local/dynamodb-local-tables.js';
import { localClients, startLocalInfrastructure } from '../local/infrastructure.js';
import { startLocalStatusEvents } from '../local/status-events-stand-in.js';
import { spawnBenchServer, type BenchServerProcess } from './bench-server-process.js';
import { startRoundRobinProxy } from './round-robin-proxy.js';
import { checkRefusal, createTask, getTask, type CreateOutcome } from './scale-client.js';

/** The owner every bench server serves (bench-server.ts: singleOwner('bench')). */
const OWNER = 'bench';
const TABLE = 'bench-scale';
const EVENT_TABLE = 'bench-scale-events';
const PROCESS_COUNTS = [1, 2, 4] as const;
/**
 * The emulator's quotas divided by this: StartExecution gets a bucket of 1300/S and a refill of 300/S a second. At 20
 * (65, 15/s) one instance creates at about the refill (15 a second, below), so two and four are past the quota: their
 * rounds meet it, and the burst, from a drained bucket, is refused (docs/benchmark.md).
 */
const SCALE_DOWN_BY = Number(process.env['SCALE_DOWN_BY'] ?? 20);
const CREATES = Number(process.env['SCALE_CREATES'] ?? 300);
const CREATE_CONCURRENCY = Number(process.env['SCALE_CREATE_CONCURRENCY'] ?? 32);
const POLLS = Number(process.env['SCALE_POLLS'] ?? 1_500);
const POLL_CONCURRENCY = 32;
/**
 * Each server process is one Lambda instance: it serves one request at a time (the proxy holds the rest in line), and
 * each of its AWS calls takes about as long as one inside a Region. So one process creates and polls at about the
 * rate one instance does in AWS, far below what the stand-ins on this machine can serve, and the rate grows with the
 * processes until the account's quota (the emulator's) binds, not this machine's two cores.
 */
const PER_INSTANCE = Number(process.env['SCALE_PER_INSTANCE'] ?? 1);
const AWS_CALL_LATENCY_MS = Number(process.env['SCALE_AWS_LATENCY_MS'] ?? 10);
/** The burst past the quota: more creates at once than StartExecution's bucket holds. */
const BURST_CREATES = Number(process.env['SCALE_BURST'] ?? 300);
const BURST_CONCURRENCY = 64;
/**
 * Creates and polls each server gets, straight, before anything is measured: a deployed function answers with its code
 * optimized by the JIT, and without these the first round would measure N=1 warming up.
 */
const WARMUP_CREATES = 10;
const WARMUP_POLLS = 200;
/** How long tasks may take to be seen finished before the bench gives up (a wait for a condition, with a cap). */
const SETTLE_CAP_MS = 60_000;

const start = STEP_FUNCTIONS_API_QUOTAS.StartExecution;
/** How long StartExecution's bucket takes to fill from empty: each round begins with it full, as the first did. */
const REFILL_MS = Math.ceil((start.bucket / start.refillPerSecond) * 1000);

// Limits out of the way: the active tasks at their ceiling, creations per minute far above what the run can make, so
// that the only refusal left is Step Functions'.
const SETTINGS: TaskServiceSettings = {
  ...DEFAULT_SETTINGS,
  maxActiveTasksPerOwner: MAX_ACTIVE_TASKS_LIMIT,
  maxTaskCreationsPerMinute: 1_000_000,
};
if (
  CREATES * PROCESS_COUNTS.length + BURST_CREATES + WARMUP_CREATES * Math.max(...PROCESS_COUNTS) >
  SETTINGS.maxActiveTasksPerOwner
)
  throw new Error('More creates than the active-task limit: the owner limit could refuse');

interface Round {
  readonly label: string;
  readonly processes: number;
  readonly accepted: string[];
  readonly refusals: number;
  readonly createsPerSecond: number;
  readonly pollsPerSecond?: number;
}

/** Runs `count` calls of `run`, at most `concurrency` at once; how long it took, in seconds. */
async function bounded(count: number, concurrency: number, run: (index: number) => Promise<void>): Promise<number> {
  let next = 0;
  const begin = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await run(next++);
    }),
  );
  return (performance.now() - begin) / 1000;
}

async function creates(url: string, count: number, concurrency: number) {
  const accepted: string[] = [];
  let refusals = 0;
  const seconds = await bounded(count, concurrency, async () => {
    const outcome: CreateOutcome = await createTask(url);
    if (outcome.taskId !== undefined) accepted.push(outcome.taskId);
    else {
      checkRefusal(outcome.error);
      refusals++;
    }
  });
  return { accepted, refusals, createsPerSecond: accepted.length / seconds };
}

async function polls(url: string, taskIds: readonly string[]): Promise<number> {
  const seconds = await bounded(POLLS, POLL_CONCURRENCY, async (index) => {
    await getTask(url, taskIds[index % taskIds.length]!);
  });
  return POLLS / seconds;
}

/** The owner's task items, from a Scan of the table (tasks are the items with a taskId and this owner). */
async function taskItems(dynamoDb: DynamoDBClient): Promise<Array<{ taskId: string; status: string }>> {
  const items: Array<{ taskId: string; status: string }> = [];
  let startKey: Record<string, never> | undefined;
  do {
    const page = await dynamoDb.send(
      new ScanCommand({
        TableName: TABLE,
        FilterExpression: 'attribute_exists(#taskId) AND #owner = :owner',
        ExpressionAttributeNames: { '#taskId': A.taskId, '#owner': A.owner, '#status': A.status },
        ExpressionAttributeValues: { ':owner': { S: OWNER } },
        ProjectionExpression: '#taskId, #status',
        ConsistentRead: true,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    for (const item of page.Items ?? []) items.push({ taskId: item[A.taskId]!.S!, status: item[A.status]!.S! });
    startKey = page.LastEvaluatedKey as Record<string, never> | undefined;
  } while (startKey !== undefined);
  return items;
}

/** The status events' logs (an audit line per finished task) would cost this process more than the work. */
const QUIET = { info: () => {}, warn: () => {}, error: () => {} };

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** Waits until every task in the table is terminal (the status events record them); throws past the cap. */
async function settled(dynamoDb: DynamoDBClient): Promise<void> {
  const deadline = Date.now() + SETTLE_CAP_MS;
  for (;;) {
    const open = (await taskItems(dynamoDb)).filter((item) => !TERMINAL.has(item.status)).length;
    if (open === 0) return;
    if (Date.now() > deadline) throw new Error(`${open} tasks still unfinished after ${SETTLE_CAP_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The members of the owner's active-task slot items, every shard. */
async function activeSlotMembers(dynamoDb: DynamoDBClient): Promise<number> {
  const documents = DynamoDBDocumentClient.from(dynamoDb);
  let members = 0;
  for (let shard = 0; shard < MAX_ACTIVE_SLOT_SHARDS; shard++) {
    const { Item } = await documents.send(
      new GetCommand({
        TableName: TABLE,
        Key: { [PARTITION_KEY]: activeTasksKey(OWNER, shard) },
        ConsistentRead: true,
      }),
    );
    members += (Item?.['activeTasks'] as Set<string> | undefined)?.size ?? 0;
  }
  return members;
}

async function runRound(
  label: string,
  processes: number,
  servers: BenchServerProcess[],
  work: (url: string) => Promise<Omit<Round, 'label' | 'processes'>>,
): Promise<Round> {
  const proxy = await startRoundRobinProxy(
    servers.slice(0, processes).map((server) => server.url),
    { perUpstream: PER_INSTANCE },
  );
  try {
    return { label, processes, ...(await work(proxy.url)) };
  } finally {
    await proxy.close();
  }
}

function printTable(rounds: readonly Round[]): void {
  const base = rounds[0]!;
  const header = ['run', 'N', 'creates accepted/s', 'polls/s', 'refusals', 'creates vs N=1', 'polls vs N=1'];
  const rows = rounds.map((round) => [
    round.label,
    String(round.processes),
    round.createsPerSecond.toFixed(1),
    round.pollsPerSecond === undefined ? '-' : round.pollsPerSecond.toFixed(0),
    String(round.refusals),
    (round.createsPerSecond / base.createsPerSecond).toFixed(2),
    round.pollsPerSecond === undefined ? '-' : (round.pollsPerSecond / base.pollsPerSecond!).toFixed(2),
  ]);
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padStart(widths[i]!)).join('  ');
  console.log(line(header));
  for (const row of rows) console.log(line(row));
}

async function main(): Promise<void> {
  const began = performance.now();
  const phase = (what: string) => console.error(`[${((performance.now() - began) / 1000).toFixed(1)} s] ${what}`);
  const infrastructure = await startLocalInfrastructure(
    { example: EXAMPLE_TOOLS.filter((tool) => tool.name === 'text_stats') },
    SCALE_DOWN_BY > 0
      ? { stepFunctionsQuotas: { scaleDownBy: SCALE_DOWN_BY, actions: ['StartExecution', 'StopExecution'] } }
      : {},
  );
  const servers: BenchServerProcess[] = [];
  const failures: string[] = [];
  try {
    await infrastructure.createTable(TABLE);
    const aws = localClients(infrastructure);
    await createEventTable(aws.dynamoDb, EVENT_TABLE);
    // The status events, in this process as they are a function of their own in AWS: polls then read only the table.
    const statusEvents = await startLocalStatusEvents({
      dynamoDb: aws.dynamoDb,
      dynamoDbEndpoint: infrastructure.dynamoDbEndpoint,
      taskTableName: TABLE,
      service: createTaskCore({ tableName: TABLE, settings: SETTINGS }, aws, QUIET).service,
      executionEnded: infrastructure.onExecutionEnded,
    });
    for (let index = 0; index < Math.max(...PROCESS_COUNTS); index++)
      servers.push(
        await spawnBenchServer({
          kind: 'project',
          dynamoDbEndpoint: infrastructure.dynamoDbEndpoint,
          stepFunctionsEndpoint: infrastructure.stepFunctionsEndpoint,
          tableName: TABLE,
          eventTableName: EVENT_TABLE,
          tools: infrastructure.tools.example,
          settings: SETTINGS,
          awsCallLatencyMs: AWS_CALL_LATENCY_MS,
        }),
      );
    phase('servers up');
    const rounds: Round[] = [];
    // The warm-up's tasks are counted like any other, but in no round of the table.
    const warmed: string[] = [];
    for (const server of servers) {
      const made = await creates(server.url, WARMUP_CREATES, WARMUP_CREATES);
      warmed.push(...made.accepted);
      await bounded(WARMUP_POLLS, POLL_CONCURRENCY, (index) =>
        getTask(server.url, made.accepted[index % made.accepted.length]!).then(() => {}),
      );
    }
    let lastCreate = performance.now();
    const refilled = async () => {
      // Each round starts as the first did, StartExecution's bucket full: waited for from the quota's own figures.
      const wait = lastCreate + REFILL_MS - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    };
    // Each round polls first, over every task made so far, then creates: the burst then follows the top round's
    // creates at once, with StartExecution's bucket as they left it (drained), so it is refused for as long as it runs
    // faster than the refill, however the machine's speed moves the rounds.
    const made: string[] = [...warmed];
    const top = Math.max(...PROCESS_COUNTS);
    for (const processes of PROCESS_COUNTS) {
      await refilled();
      rounds.push(
        await runRound(`${CREATES} creates`, processes, servers, async (url) => {
          const pollsPerSecond = await polls(url, made);
          const round = await creates(url, CREATES, CREATE_CONCURRENCY);
          lastCreate = performance.now();
          return { ...round, pollsPerSecond };
        }),
      );
      made.push(...rounds.at(-1)!.accepted);
      phase(`N=${processes} measured`);
      // Every round but the top one starts with no task open (the top one's are left for the burst's wait).
      if (processes !== top) await settled(aws.dynamoDb);
    }
    rounds.push(
      await runRound(`burst of ${BURST_CREATES}`, top, servers, (url) =>
        creates(url, BURST_CREATES, BURST_CONCURRENCY),
      ),
    );
    phase('burst sent');
    await settled(aws.dynamoDb);
    phase('burst settled');
    await statusEvents.stop();

    const [bucket, refill] = [start.bucket / SCALE_DOWN_BY, start.refillPerSecond / SCALE_DOWN_BY];
    console.log(
      `\nnpm run bench:scale: ${POLLS} tasks/get (${POLL_CONCURRENCY} at once) then ${CREATES} text_stats task ` +
        `creates (${CREATE_CONCURRENCY} at once) per round, through a round-robin proxy to N server processes ` +
        `(${PER_INSTANCE} request at a time each, each AWS call ${AWS_CALL_LATENCY_MS} ms longer: Lambda instances); ` +
        `Step Functions emulator quotas / ${SCALE_DOWN_BY} (StartExecution bucket ` +
        `${bucket.toFixed(0)}, refill ${refill.toFixed(0)}/s); ` +
        `Node ${process.version}\n`,
    );
    printTable(rounds);
    if (rounds.at(-1)!.refusals === 0) failures.push('the burst past the quota was never refused');

    // Accounting: every accepted create is one task and one execution; nothing refused is left behind.
    const accepted = [...warmed, ...rounds.flatMap((round) => round.accepted)];
    const items = await taskItems(aws.dynamoDb);
    const started = infrastructure.executionsStarted();
    const members = await activeSlotMembers(aws.dynamoDb);
    const checks: Array<[string, boolean]> = [
      [
        `accepted task IDs unique: ${new Set(accepted).size} of ${accepted.length}`,
        new Set(accepted).size === accepted.length,
      ],
      [`task items in the table ${items.length} == accepted ${accepted.length}`, items.length === accepted.length],
      [`executions started ${started} == accepted ${accepted.length}`, started === accepted.length],
      [`active-task slot members left: ${members}`, members === 0],
    ];
    console.log(`\nthrottled by the emulator: ${JSON.stringify(infrastructure.throttledCalls())}`);
    for (const [what, ok] of checks) {
      console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
      if (!ok) failures.push(what);
    }
  } finally {
    for (const server of servers) server.stop();
    await infrastructure.stop();
  }
  if (failures.length > 0) {
    console.error(`\nbench:scale failed: ${failures.join('; ')}`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
