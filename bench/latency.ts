// `npm run bench`: latency of the task operations on the local stack, against a `ping` round trip measured
// in the same run as the baseline, plus the AWS calls each operation makes. Figures vary with the machine;
// the ratios and call counts are what to compare between runs.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { EXAMPLE_TOOLS } from '../lambda/example-tools/catalog.js';
import { createBackend } from '../lambda/handlers/backend.js';
import { DEFAULT_SETTINGS } from '../lambda/service/settings.js';
import { LOOPBACK_HOSTS, singleOwner, startDevServer } from '../local/dev-server.js';
import { localClients, startLocalInfrastructure } from '../local/infrastructure.js';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 100);
const quiet = { info: () => {}, warn: () => {}, error: () => {} };

interface CallCounts {
  dynamoDb: number;
  stepFunctions: number;
}

function countCalls(client: { middlewareStack: { add: (mw: never, options: { step: 'initialize'; name: string }) => void } }, counts: CallCounts, key: keyof CallCounts): void {
  const middleware = ((next: (args: unknown) => Promise<unknown>) => (args: unknown) => {
    counts[key]++;
    return next(args);
  }) as never;
  client.middlewareStack.add(middleware, { step: 'initialize', name: `count-${key}` });
}

async function measure(label: string, rounds: number, run: () => Promise<unknown>, counts: CallCounts): Promise<{ label: string; median: number; p95: number; dynamoDb: number; stepFunctions: number }> {
  for (let warmup = 0; warmup < 5; warmup++) await run();
  const before = { ...counts };
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const start = performance.now();
    await run();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return {
    label,
    median: samples[Math.floor(rounds / 2)]!,
    p95: samples[Math.floor(rounds * 0.95)]!,
    dynamoDb: (counts.dynamoDb - before.dynamoDb) / rounds,
    stepFunctions: (counts.stepFunctions - before.stepFunctions) / rounds,
  };
}

async function main(): Promise<void> {
  const infrastructure = await startLocalInfrastructure({ example: EXAMPLE_TOOLS });
  try {
    await infrastructure.createTable('bench');
    const counts: CallCounts = { dynamoDb: 0, stepFunctions: 0 };
    const clients = localClients(infrastructure);
    countCalls(clients.dynamoDb as never, counts, 'dynamoDb');
    countCalls(clients.stepFunctions as never, counts, 'stepFunctions');
    // A long refresh interval keeps tasks/get on the steady-state path (one read, no DescribeExecution), as with EventBridge push.
    const steady = createBackend({ tableName: 'bench', tools: infrastructure.tools.example, settings: { ...DEFAULT_SETTINGS, refreshIntervalMs: 3_600_000 }, allowedHosts: LOOPBACK_HOSTS }, clients, quiet);
    // A 1 ms refresh interval makes every tasks/get describe the execution: the refresh-on-read fallback.
    const refreshing = createBackend({ tableName: 'bench', tools: infrastructure.tools.example, settings: { ...DEFAULT_SETTINGS, refreshIntervalMs: 1 }, allowedHosts: LOOPBACK_HOSTS }, clients, quiet);
    const steadyServer = await startDevServer(steady.app, { resolveOwner: singleOwner('bench') });
    const refreshServer = await startDevServer(refreshing.app, { resolveOwner: singleOwner('bench') });
    const connect = async (url: string): Promise<Client> => {
      const client = new Client({ name: 'bench', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      return client;
    };
    const client = await connect(steadyServer.url);
    const refreshClient = await connect(refreshServer.url);
    const create = () => client.request({ method: 'tools/call', params: { name: 'analyze_documents', arguments: { documents: ['a b c'], reviewSeconds: 3600 }, task: {} } }, CreateTaskResultSchema);
    const { task } = await create();
    const { task: refreshTask } = await refreshClient.request({ method: 'tools/call', params: { name: 'analyze_documents', arguments: { documents: ['a'], reviewSeconds: 3600 }, task: {} } }, CreateTaskResultSchema);

    const results = [
      await measure('ping (baseline: HTTP + MCP, no AWS)', ROUNDS, () => client.ping(), counts),
      await measure('tools/call with params.task -> CreateTaskResult', ROUNDS, create, counts),
      await measure('tasks/get, steady state', ROUNDS, () => client.experimental.tasks.getTask(task.taskId), counts),
      await measure('tasks/get, refresh due (DescribeExecution)', ROUNDS, () => refreshClient.experimental.tasks.getTask(refreshTask.taskId), counts),
      await measure('tasks/list, one page', ROUNDS, () => client.experimental.tasks.listTasks(), counts),
    ];
    const baseline = results[0]!.median;
    console.log(`\n${ROUNDS} rounds each on the local stack (DynamoDB Local, Step Functions emulator), loopback HTTP:\n`);
    console.log(`${'operation'.padEnd(50)} ${'median ms'.padStart(10)} ${'p95 ms'.padStart(8)} ${'x ping'.padStart(7)} ${'DDB calls'.padStart(10)} ${'SFN calls'.padStart(10)}`);
    for (const result of results) {
      console.log(
        `${result.label.padEnd(50)} ${result.median.toFixed(2).padStart(10)} ${result.p95.toFixed(2).padStart(8)} ${(result.median / baseline).toFixed(1).padStart(7)} ${result.dynamoDb.toFixed(2).padStart(10)} ${result.stepFunctions.toFixed(2).padStart(10)}`,
      );
    }
    await client.close();
    await refreshClient.close();
    await steadyServer.close();
    await refreshServer.close();
  } finally {
    await infrastructure.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
