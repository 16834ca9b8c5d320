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
