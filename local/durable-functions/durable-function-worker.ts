// The worker thread of the local runner of durable functions (durable-function-runner.ts): imports each function's
// deployed entry module, serves them (durable-function-server.ts) and tells the parent its URL. Its environment is
// the one the parent gave it: what a deployed function's environment would be, pointed at the local stand-ins.
import { parentPort, workerData } from 'node:worker_threads';
import type { DurableLambdaHandler } from '@aws/durable-execution-sdk-js';
import { serveDurableFunctions } from './durable-function-server.js';

/** What the parent hands the worker: each function's entry module (exporting `handler`), by function name. */
export interface DurableFunctionWorkerData {
  readonly entries: Readonly<Record<string, string>>;
}

/** What the worker tells the parent once: its URL, or why it could not start. */
export type DurableFunctionWorkerMessage = { readonly url: string } | { readonly error: string };

async function main(): Promise<void> {
  const { entries } = workerData as DurableFunctionWorkerData;
  const functions: Record<string, DurableLambdaHandler> = {};
  for (const [name, entry] of Object.entries(entries))
    functions[name] = ((await import(entry)) as { handler: DurableLambdaHandler }).handler;
  const server = await serveDurableFunctions({
    functions,
    onError: (error) => console.error('Local durable function runner:', error),
  });
  parentPort!.postMessage({ url: server.url } satisfies DurableFunctionWorkerMessage);
}

main().catch((error: unknown) => {
  parentPort!.postMessage({ error: String(error) } satisfies DurableFunctionWorkerMessage);
});
