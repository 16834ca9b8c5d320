// The MCP calls of bench/scale.ts as raw JSON-RPC over fetch, MCP 2025-11-25: a task-augmented tools/call and a
// tasks/get, each one stateless POST (as a Lambda behind a load balancer serves them). Raw rather than an SDK client,
// so the bench process spends little CPU of the two cores the servers need, and the refusal is read exactly as sent.

const PROTOCOL_VERSION = '2025-11-25';
/** The task's retention asked for: longer than the run, so nothing expires while it is counted. */
const TASK_TTL_MS = 600_000;
/** JSON-RPC's first implementation-defined server error, which the server answers every retryable limit with. */
const SERVER_ERROR = -32000;
const START_RATE_LIMIT = 'step-functions-start-execution-rate';

export interface JsonRpcError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** A create either accepted (its task ID) or answered with an error. */
export type CreateOutcome = { taskId: string; error?: undefined } | { taskId?: undefined; error: JsonRpcError };

let nextId = 1;

async function call(url: string, method: string, params: Record<string, unknown>) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL_VERSION,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  });
  const text = await response.text();
  // A server may answer a request as a one-event stream; its data line is the message.
  const json = response.headers.get('content-type')?.startsWith('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5))
        .join('')
    : text;
  let message: { result?: Record<string, unknown>; error?: JsonRpcError };
  try {
    message = JSON.parse(json) as typeof message;
  } catch {
    throw new Error(`${method} answered HTTP ${response.status} without a JSON-RPC message: ${text.slice(0, 200)}`);
  }
  return message;
}

/** A task-augmented tools/call of text_stats (an instant tool: the execution is all the work). */
export async function createTask(url: string): Promise<CreateOutcome> {
  const { result, error } = await call(url, 'tools/call', {
    name: 'text_stats',
    arguments: { text: 'one two three' },
    task: { ttl: TASK_TTL_MS },
  });
  if (error !== undefined) return { error };
  const taskId = (result?.['task'] as { taskId?: unknown } | undefined)?.taskId;
  if (typeof taskId !== 'string') throw new Error(`tools/call answered no task: ${JSON.stringify(result)}`);
  return { taskId };
}

/** tasks/get of one task; its status. Any error fails the bench: every task polled was accepted. */
export async function getTask(url: string, taskId: string): Promise<string> {
  const { result, error } = await call(url, 'tasks/get', { taskId });
  if (error !== undefined) throw new Error(`tasks/get ${taskId} failed: ${JSON.stringify(error)}`);
  return String(result?.['status']);
}

/**
 * Throws unless `error` is the refusal of a StartExecution past its rate (lambda/protocol/protocol-errors.ts): -32000,
 * retryable, with when to retry and the limit's name. Any other refusal means something else than Step Functions'
 * quota refused, which the bench must not count as the quota.
 */
export function checkRefusal(error: JsonRpcError): void {
  const data = error.data as { retryable?: unknown; retryAfterSeconds?: unknown; limit?: unknown } | undefined;
  const ok =
    error.code === SERVER_ERROR &&
    data?.retryable === true &&
    typeof data.retryAfterSeconds === 'number' &&
    Number.isFinite(data.retryAfterSeconds) &&
    data.limit === START_RATE_LIMIT;
  if (!ok) throw new Error(`A create was refused other than by the StartExecution rate: ${JSON.stringify(error)}`);
}
