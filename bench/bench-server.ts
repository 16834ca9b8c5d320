// A server under measurement, in its own process so that its CPU time is its own: the project (on the local
// stand-ins) or the anchor (bench/anchor.ts). Spawned by bench/bench-server-process.ts with its configuration in
// BENCH_SERVER; prints its URL as one JSON line; `GET /bench/stats` answers its CPU time and the AWS calls it has made.
import { createBackend } from '../lambda/handlers/backend.js';
import type { McpHttpApp } from '../lambda/protocol/http-app.js';
import type { TaskServiceSettings } from '../lambda/service/settings.js';
import type { ToolDefinition } from '../lambda/contract/tool-definition.js';
import { deployedEvents } from './deployed-events.js';
import { LOOPBACK_HOSTS, singleOwner, startDevServer } from '../local/dev-server.js';
import { countAwsCalls, type AwsCallCounter } from '../local/aws-call-counter.js';
import { localClients } from '../local/infrastructure.js';
import { createAnchorApp } from './anchor.js';

export type BenchServerConfig =
  | { readonly kind: 'anchor' }
  | {
      readonly kind: 'project';
      readonly dynamoDbEndpoint: string;
      readonly stepFunctionsEndpoint: string;
      readonly tableName: string;
      /** The event table: events and webhooks are on, as deployed, so a poll pays for its webhook status. */
      readonly eventTableName: string;
      readonly tools: ToolDefinition[];
      readonly settings: TaskServiceSettings;
      /**
       * Time added to every AWS call, before it is sent: a call inside a Region takes milliseconds, one to a stand-in
       * on loopback a fraction of one, so an instance's own rate of work is AWS's rather than this machine's.
       * @default 0
       */
      readonly awsCallLatencyMs?: number;
    };

export interface BenchServerStats {
  readonly cpuMicros: number;
  readonly dynamoDb: number;
  readonly stepFunctions: number;
}

let counter: AwsCallCounter | undefined;

function appFor(config: BenchServerConfig): McpHttpApp {
  if (config.kind === 'anchor') return createAnchorApp();
  const clients = localClients(config);
  counter = countAwsCalls(clients);
  if (config.awsCallLatencyMs !== undefined && config.awsCallLatencyMs > 0)
    delayAwsCalls(clients, config.awsCallLatencyMs);
  const quiet = { info: () => {}, warn: () => {}, error: () => {} };
  return createBackend(
    {
      tableName: config.tableName,
      tools: config.tools,
      settings: config.settings,
      allowedHosts: LOOPBACK_HOSTS,
      events: deployedEvents(config.eventTableName),
    },
    clients,
    quiet,
  ).app;
}

/** Every call of both clients waits `ms` first (once per call, not per retry), as a round trip to AWS would. */
function delayAwsCalls(clients: ReturnType<typeof localClients>, ms: number): void {
  for (const client of [clients.dynamoDb, clients.stepFunctions]) {
    const stack = client.middlewareStack as unknown as {
      add(middleware: unknown, options: { step: 'initialize'; priority: 'high'; name: string }): void;
    };
    stack.add(
      (next: (args: unknown) => Promise<unknown>) => async (args: unknown) => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        return next(args);
      },
      { step: 'initialize', priority: 'high', name: 'benchAwsCallLatency' },
    );
  }
}

async function main(): Promise<void> {
  const config = JSON.parse(process.env['BENCH_SERVER']!) as BenchServerConfig;
  const app = appFor(config);
  const withStats: McpHttpApp = {
    handle(request, owner) {
      if (new URL(request.url).pathname !== '/bench/stats') return app.handle(request, owner);
      const cpu = process.cpuUsage();
      const stats: BenchServerStats = {
        cpuMicros: cpu.user + cpu.system,
        dynamoDb: counter?.total('dynamoDb') ?? 0,
        stepFunctions: counter?.total('stepFunctions') ?? 0,
      };
      return Promise.resolve(Response.json(stats));
    },
  };
  const server = await startDevServer(withStats, { resolveOwner: singleOwner('bench') });
  console.log(JSON.stringify({ url: server.url }));
  // Exit, not die, on the bench's kill: a server run with --cpu-prof writes its profile on exit (see
  // docs/benchmark.md).
  process.once('SIGTERM', () => process.exit(0));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
