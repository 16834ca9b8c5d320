// Loopback HTTP server speaking the Step Functions AWS JSON 1.0 protocol, backed by aws-local-stepfunctions.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SfnApiError, type RequestBody } from './api-error.js';
import { ApiQuotas, type StepFunctionsQuotaOptions } from './api-quotas.js';
import type { LambdaHandler } from './lambda-tasks.js';
import { createOperations } from './operations.js';
import { Registry } from './registry.js';
import { restoreRegistry, savedRegistry, type SavedRegistry } from './persisted-registry.js';
import { jsonStateFile } from '../state-file.js';

export interface StepFunctionsEmulatorOptions {
  /** 0 or undefined picks a free port. */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** @default 'us-east-1' */
  region?: string;
  /** @default '000000000000' */
  accountId?: string;
  /**
   * Lambda task states: function name -> handler. A Task state whose Resource is
   * `arn:aws:lambda:<region>:<account>:function:<name>` (optionally with :alias/version) runs handler(input).
   */
  lambdaHandlers?: Record<string, LambdaHandler>;
  /**
   * Quota mode: each action's calls limited by a token bucket with AWS's published rates, scaled down; a call past
   * them is refused with `ThrottlingException`, as AWS refuses it. @default off (no action is ever throttled)
   */
  quotas?: StepFunctionsQuotaOptions;
  /**
   * Told of each STANDARD or EXPRESS execution that ends by itself (succeeded, failed, timed out), right as it ends:
   * what EventBridge's status-change events would say, for a stand-in of them in the same process.
   */
  onExecutionEnded?: (executionArn: string) => void;
  /**
   * A JSON file the machines (definitions, tags) and STANDARD executions are kept in across restarts: loaded at start,
   * written on each change (persisted-registry.ts says what a running execution becomes). @default none: in memory
   */
  stateFile?: string;
}

export interface StepFunctionsEmulator {
  readonly url: string;
  /** number of StartExecution calls that created a new execution */
  readonly executionsStarted: number;
  /** In quota mode, the calls refused with ThrottlingException so far, by action; always empty without it. */
  throttledCalls(): Readonly<Record<string, number>>;
  close(): Promise<void>;
}

const TARGET_PREFIX = 'AWSStepFunctions.';
const CONTENT_TYPE = 'application/x-amz-json-1.0';
/**
 * What Step Functions answers a throttled call (HTTP 400): the SDK keeps the part after `#` as the error's name, and
 * its retry strategy counts `ThrottlingException` as a throttle (retried with backoff, then surfaced).
 */
const THROTTLED = { type: 'com.amazon.coral.availability#ThrottlingException', message: 'Rate exceeded' } as const;
// Well above the AWS limits (1 MiB definition, 256 KiB input) but bounded, so a runaway client cannot exhaust memory.
const MAX_BODY_BYTES = 8 * 1024 * 1024;

function send(res: ServerResponse, status: number, payload: unknown): void {
  const body = JSON.stringify(payload);
  res.writeHead(status, {
    'Content-Type': CONTENT_TYPE,
    'Content-Length': Buffer.byteLength(body),
    'x-amzn-RequestId': randomUUID(),
  });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<RequestBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new SfnApiError('ValidationException', 'Request body is too large', 413);
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new SfnApiError('SerializationException', 'Request body is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new SfnApiError('SerializationException', 'Request body must be a JSON object');
  }
  return parsed as RequestBody;
}

export async function startStepFunctionsEmulator(
  options: StepFunctionsEmulatorOptions = {},
): Promise<StepFunctionsEmulator> {
  const host = options.host ?? '127.0.0.1';
  const registry = new Registry(
    { region: options.region ?? 'us-east-1', accountId: options.accountId ?? '000000000000' },
    { ...options.lambdaHandlers },
    options.onExecutionEnded,
  );
  const state =
    options.stateFile === undefined
      ? undefined
      : jsonStateFile<SavedRegistry>(options.stateFile, () => savedRegistry(registry));
  const saved = state?.load();
  if (saved !== undefined) restoreRegistry(registry, saved);
  if (state !== undefined) {
    registry.changed = state.changed;
    // What a restart changed (executions that were running, now ended) is written at once.
    if (saved !== undefined) state.changed();
  }
  const operations = createOperations(registry);
  const quotas = options.quotas === undefined ? undefined : new ApiQuotas(options.quotas);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      const target = req.headers['x-amz-target'];
      const name =
        typeof target === 'string' && target.startsWith(TARGET_PREFIX) ? target.slice(TARGET_PREFIX.length) : '';
      const operation = req.method === 'POST' && Object.hasOwn(operations, name) ? operations[name] : undefined;
      if (operation === undefined) {
        req.resume(); // drain so the connection can be reused
        throw new SfnApiError('UnknownOperationException', `Unknown operation: ${String(target)}`);
      }
      // Before the request is read or checked: AWS refuses a throttled call whatever it holds.
      if (quotas !== undefined && !quotas.admit(name)) {
        req.resume();
        throw new SfnApiError(THROTTLED.type, THROTTLED.message);
      }
      send(res, 200, await operation(await readBody(req)));
    } catch (error) {
      const known = error instanceof SfnApiError;
      const type = known ? error.type : 'InternalFailure';
      const message = known ? error.message : 'The request processing has failed because of an unknown error.';
      if (!known) console.error('[step-functions emulator] unexpected error', error);
      if (!res.headersSent) send(res, known ? error.statusCode : 500, { __type: type, message });
      else res.destroy();
    }
  };

  // handle() answers every error itself; the catch only guards against a failure while writing that answer.
  const server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    // Kept as they stood: an execution still running is saved RUNNING and restored as interrupted, not as stopped by
    // this close.
    state?.flush();
    registry.changed = () => {};
    await registry.stopAll();
    await new Promise<void>((resolve, reject) => {
      server.close((error) => (error === undefined ? resolve() : reject(error)));
      // The SDK keeps connections alive; without this, close() would wait for them to idle out.
      server.closeAllConnections();
    });
  };

  return {
    url: `http://${urlHost}:${port}`,
    get executionsStarted() {
      return registry.executionsStarted;
    },
    throttledCalls: () => quotas?.refused() ?? {},
    close: () => (closing ??= close()),
  };
}
