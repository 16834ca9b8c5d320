// Starts bench/bench-server.ts in a process of its own (so its CPU time is its own) and reads the URL it prints. Shared
// by the benches that measure the server over HTTP (bench/latency.ts, bench/scale.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { BenchServerConfig, BenchServerStats } from './bench-server.js';

export interface BenchServerProcess {
  /** The server's MCP endpoint. */
  readonly url: string;
  /** Its CPU time and AWS calls so far (`GET /bench/stats`). */
  stats(): Promise<BenchServerStats>;
  stop(): void;
}

/** Spawns one bench server configured by `config`; resolves once it serves, rejects if it exits first. */
export async function spawnBenchServer(config: BenchServerConfig): Promise<BenchServerProcess> {
  // Node refuses --cpu-prof in NODE_OPTIONS, so a profile of the servers alone is asked for by BENCH_CPU_PROF=<dir>.
  const profile = process.env['BENCH_CPU_PROF'];
  const profiling = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
  const child: ChildProcess = spawn(process.execPath, [...profiling, '--import', 'tsx', 'bench/bench-server.ts'], {
    env: { ...process.env, BENCH_SERVER: JSON.stringify(config) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = await Promise.race([
    createInterface({ input: child.stdout! })
      [Symbol.asyncIterator]()
      .next()
      .then((next) => [next.value as string]),
    new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`bench server exited (${code})`)))),
  ]);
  const { url } = JSON.parse(line!) as { url: string };
  return {
    url,
    stats: async () => (await (await fetch(new URL('/bench/stats', url))).json()) as BenchServerStats,
    stop: () => void child.kill(),
  };
}
