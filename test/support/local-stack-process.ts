// `npm start` in a child process of its own, as a person runs it: `tsx local/start.ts` with the environment given
// (tsx's own command line, which runs the durable functions' worker thread as TypeScript too), ready once it prints its
// last start-up line, stopped with Ctrl-C's SIGINT and waited for (DynamoDB Local with it). Ctrl-C signals the whole
// foreground process group, so the stack runs in a group of its own and the group is signalled: a SIGINT to tsx's
// process alone is relayed to the script's process, and when that process has not reported the signal back within
// 30 ms (a busy machine), tsx kills it with SIGKILL, which leaves its DynamoDB Local running, holding its port.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

export interface LocalStackProcess {
  /** What it has printed so far, stdout and stderr together. */
  output(): string;
  /** SIGINT, as Ctrl-C sends it; resolves once it has exited (SIGKILL if it has not within `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

const READY_LINE = 'Press Ctrl-C to stop.';

/**
 * Starts the local stack with `env` added to a minimal environment (PATH and HOME, so that `java` is found: nothing of
 * the test run's own AWS settings leaks in); resolves once it is ready, rejects with its output if it exits first.
 */
export async function startLocalStackProcess(
  env: Record<string, string>,
  args: string[] = [],
): Promise<LocalStackProcess> {
  const tsx = createRequire(import.meta.url).resolve('tsx/cli');
  const child = spawn(process.execPath, [tsx, 'local/start.ts', ...args], {
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // The group is gone already.
    }
  };
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const read = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes(READY_LINE)) resolve();
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    void exited.then(() => reject(new Error(`the local stack exited before it was ready:\n${output}`)));
  });
  return {
    output: () => output,
    stop: async (graceMs = 30_000) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      signalGroup('SIGINT');
      const timer = setTimeout(() => signalGroup('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
