// The local runner of durable functions: the durable function stand-in (durable-function-server.ts) in a worker thread
// of its own. Each function runs its deployed entry module, with the environment a deployment would give it (its task
// table's name) pointed at the local stand-ins. A thread, so that closing it ends everything its executions still
// hold (a stopped execution's pending wait, a callback no one answers), which nothing else can cancel.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { localFunctionArn } from './durable-function-server.js';
import type { DurableFunctionWorkerData, DurableFunctionWorkerMessage } from './durable-function-worker.js';

export interface DurableFunctionRunner {
  readonly url: string;
  /** The function ARN (unqualified) of a function the runner runs. */
  functionArn(functionName: string): string;
  close(): Promise<void>;
}

export interface DurableFunctionRunnerOptions {
  /** Each function's entry module (exporting its durable `handler`), by function name. */
  readonly entries: Readonly<Record<string, string>>;
  /** The functions' environment, as deployed (added to this process's). */
  readonly environment: Readonly<Record<string, string>>;
}

const WORKER = new URL('./durable-function-worker.ts', import.meta.url);
/** The worker loads TypeScript as `npm start` does, whatever loaded this module (tsx, or Vitest's own loader). */
const TYPESCRIPT_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export async function startDurableFunctionRunner(
  options: DurableFunctionRunnerOptions,
): Promise<DurableFunctionRunner> {
  const worker = new Worker(WORKER, {
    workerData: { entries: options.entries } satisfies DurableFunctionWorkerData,
    env: { ...process.env, ...options.environment },
    execArgv: ['--import', TYPESCRIPT_LOADER],
  });
  const message = await new Promise<DurableFunctionWorkerMessage>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`The local durable function runner exited (${code})`)));
  });
  if ('error' in message) {
    await worker.terminate();
    throw new Error(`The local durable function runner did not start: ${message.error}`);
  }
  worker.removeAllListeners('exit');
  return {
    url: message.url,
    functionArn: localFunctionArn,
    close: async () => {
      await worker.terminate();
    },
  };
}
