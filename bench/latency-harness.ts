// What `npm run bench` (bench/latency.ts) measures with: its two servers, each in its own process with a 1.x SDK client
// connected to it; the alternating rounds; and the table every figure goes into, as a ratio against its baseline.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { BenchServerConfig, BenchServerStats } from './bench-server.js';
import { spawnBenchServer } from './bench-server-process.js';

export interface Server {
  readonly url: string;
  readonly client: Client;
  stats(): Promise<BenchServerStats>;
  stop(): void;
}

/** The project and the anchor, measured against each other. */
export interface Servers {
  readonly ours: Server;
  readonly anchor: Server;
}

export async function startServer(config: BenchServerConfig): Promise<Server> {
  const server = await spawnBenchServer(config);
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  return { ...server, client };
}

export const median = (samples: number[]): number =>
  [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;
export const worst = (samples: number[]): number => Math.max(...samples);
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

const spentBetween = (before: BenchServerStats, after: BenchServerStats): BenchServerStats => ({
  cpuMicros: after.cpuMicros - before.cpuMicros,
  dynamoDb: after.dynamoDb - before.dynamoDb,
  stepFunctions: after.stepFunctions - before.stepFunctions,
});

/**
 * Runs `ours` and `anchor` in alternation, `rounds` times each after a warm-up; per-call times, CPU and AWS calls per
 * call.
 */
export async function alternate(
  servers: Servers,
  rounds: number,
  runs: { ours: () => Promise<unknown>; anchor: () => Promise<unknown> },
  warmups = 3,
) {
  for (let warmup = 0; warmup < warmups; warmup++) await Promise.all([runs.ours(), runs.anchor()]);
  const before = { ours: await servers.ours.stats(), anchor: await servers.anchor.stats() };
  const samples = { ours: [] as number[], anchor: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    samples.ours.push(await timed(runs.ours));
    samples.anchor.push(await timed(runs.anchor));
  }
  const ours = spentBetween(before.ours, await servers.ours.stats());
  const anchor = spentBetween(before.anchor, await servers.anchor.stats());
  return {
    ours: {
      median: median(samples.ours),
      worst: worst(samples.ours),
      cpuMs: ours.cpuMicros / rounds / 1000,
      dynamoDb: ours.dynamoDb / rounds,
      stepFunctions: ours.stepFunctions / rounds,
    },
    anchor: { median: median(samples.anchor), worst: worst(samples.anchor), cpuMs: anchor.cpuMicros / rounds / 1000 },
  };
}

/** A request whose server CPU `cpuPerRequest` reads: the server that answers it and how to send it. */
export interface MeasuredRequest {
  readonly server: Server;
  readonly run: () => Promise<unknown>;
}

/** What one kind of request costs its server: CPU and AWS calls per request, and the elapsed times' median. */
export interface RequestCost {
  readonly cpuMs: number;
  readonly dynamoDb: number;
  readonly stepFunctions: number;
  readonly median: number;
}

/**
 * Each kind's server CPU per request, read around every single request: the server's CPU time just before and just
 * after it (`GET /bench/stats`), less the same two readings with nothing between (what reading costs that server),
 * averaged over `rounds`. Each round sends every kind once, in an order shuffled anew each round, so that what one
 * request leaves its server to do falls on no kind more than another (rotating one order would keep every kind behind
 * the same neighbour), and each server has been idle since its last reading when a request comes, as a Lambda
 * instance is between a client's polls. Read over a block of requests instead, a server's figure took in what the
 * other server's requests left it to do (a block of the project's 2026-07-28 polls read 1.6x the anchor's beside
 * which the anchor's own figure fell by a fifth, where per request the two polls cost the project alike).
 */
export async function cpuPerRequest<Kind extends string>(
  kinds: Record<Kind, MeasuredRequest>,
  rounds: number,
  warmups: number,
): Promise<Record<Kind, RequestCost>> {
  const names = Object.keys(kinds) as Kind[];
  for (const name of names) for (let warmup = 0; warmup < warmups; warmup++) await kinds[name].run();
  const servers = [...new Set(names.map((name) => kinds[name].server))];
  const reading = new Map<Server, number[]>(servers.map((server) => [server, []]));
  const spent = new Map<Kind, BenchServerStats[]>(names.map((name) => [name, []]));
  const elapsed = new Map<Kind, number[]>(names.map((name) => [name, []]));
  const read = async (server: Server, between: () => Promise<unknown>) => {
    const before = await server.stats();
    const ms = await timed(between);
    return { spent: spentBetween(before, await server.stats()), ms };
  };
  const steps = [...names, ...servers];
  for (let round = 0; round < rounds; round++) {
    for (const step of shuffled(steps)) {
      if (typeof step !== 'string') {
        reading.get(step)!.push((await read(step, async () => {})).spent.cpuMicros);
        continue;
      }
      const measured = await read(kinds[step].server, kinds[step].run);
      spent.get(step)!.push(measured.spent);
      elapsed.get(step)!.push(measured.ms);
    }
  }
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const costs = {} as Record<Kind, RequestCost>;
  for (const name of names) {
    const samples = spent.get(name)!;
    const per = (field: keyof BenchServerStats) => mean(samples.map((sample) => sample[field]));
    costs[name] = {
      cpuMs: (per('cpuMicros') - mean(reading.get(kinds[name].server)!)) / 1000,
      dynamoDb: per('dynamoDb'),
      stepFunctions: per('stepFunctions'),
      median: median(elapsed.get(name)!),
    };
  }
  return costs;
}

/** `items` in a random order (Fisher-Yates). */
function shuffled<T>(items: readonly T[]): T[] {
  const order = [...items];
  for (let index = order.length - 1; index > 0; index--) {
    const other = Math.floor(Math.random() * (index + 1));
    [order[index], order[other]] = [order[other]!, order[index]!];
  }
  return order;
}

/** Requests per second that `pollers` concurrent callers of `run` complete in `durationMs`. */
export async function throughput(run: () => Promise<unknown>, pollers: number, durationMs: number): Promise<number> {
  let completed = 0;
  const end = performance.now() + durationMs;
  await Promise.all(
    Array.from({ length: pollers }, async () => {
      while (performance.now() < end) await run().then(() => completed++);
    }),
  );
  return completed / (durationMs / 1000);
}

/** Adds one figure to the table: ours, its baseline, ours / baseline (NaN: none), and the goal for that ratio. */
export type Row = (figure: string, ours: string, baseline: string, ratio: number, goal: string) => void;

export const ms = (value: number): string => `${value.toFixed(1)} ms`;

/** The bench's table: `row` adds a figure, `note` a line to print under the table, `print` writes them all. */
export function table(): { row: Row; note(text: string): void; print(): void } {
  const rows: string[][] = [];
  const notes: string[] = [];
  const widths = [58, 14, 14, 7, 10];
  const line = (cells: string[]): string =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' ');
  return {
    row: (figure, ours, baseline, ratio, goal) =>
      rows.push([figure, ours, baseline, Number.isFinite(ratio) ? ratio.toFixed(2) : '-', goal]),
    note: (text) => notes.push(text),
    print() {
      console.log(line(['figure', 'project', 'baseline', 'ratio', 'goal']));
      for (const cells of rows) console.log(line(cells));
      if (notes.length > 0) console.log('');
      for (const text of notes) console.log(wrap(`note: ${text}`, 110, '      '));
    },
  };
}

/** `text` in lines of at most `width` characters, broken at spaces, every line after the first indented. */
function wrap(text: string, width: number, indent: string): string {
  const lines = [''];
  for (const word of text.split(' ')) {
    const last = lines.at(-1)!;
    if (last.trim() !== '' && last.length + 1 + word.length > width) lines.push(`${indent}${word}`);
    else lines[lines.length - 1] = last === '' ? word : `${last} ${word}`;
  }
  return lines.join('\n');
}
