// Test fixture for input requests in the 2025-11-25 era, as the SDK 1.x client meets them: the input backend's two
// server instances (input-backend.ts), and that client connected to the first with an elicitation handler, its
// JSON-RPC responses POSTed to the second; plus raw POSTs and refund_order run as a task.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  type ElicitResult,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { useInputBackend } from './input-backend.js';
import { TOKENS } from './local-backend.js';
import type { TaskServiceSettings } from '../../lambda/service/settings.js';

export interface AskedQuestion {
  readonly id: RequestId;
  readonly params: { message: string; requestedSchema: { required?: string[] }; _meta?: Record<string, unknown> };
}

/** A JSON-RPC response body: what the client POSTs to answer a server->client request. */
const isResponse = (body: unknown): boolean =>
  typeof body === 'string' && /"result"|"error"/.test(body) && !/"method"/.test(body);

/** POSTs a raw JSON-RPC message as `token`'s owner; returns the HTTP status and body. */
export async function post(
  url: string,
  message: unknown,
  token: string = TOKENS.alice,
): Promise<{ status: number; body: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify(message),
  });
  return { status: response.status, body: await response.text() };
}

/**
 * Registers the input backend's beforeAll/afterAll hooks (useInputBackend); the backend, its two servers' URLs and a
 * way to connect the SDK 1.x client across them. Use them inside tests only.
 */
export function useLegacyInputBackend(settings: Partial<TaskServiceSettings> = {}) {
  const backend = useInputBackend({ settings });
  const first = () => backend.servers[0].url;
  const second = () => backend.servers[1].url;

  const connect = (
    answer: (question: AskedQuestion) => Promise<ElicitResult>,
    options: { duplicateAnswers?: boolean } = {},
  ) => connectAnsweringElsewhere(first(), second(), answer, options);

  return { backend, first, second, connect };
}

/**
 * The SDK 1.x client connected to `first`, answering elicitations with `answer`. Every POST carrying a JSON-RPC
 * response goes to `second` instead (to both, when `duplicateAnswers`): `routed` counts them.
 */
export async function connectAnsweringElsewhere(
  first: string,
  second: string,
  answer: (question: AskedQuestion) => Promise<ElicitResult>,
  options: { duplicateAnswers?: boolean } = {},
) {
  const routed = { count: 0 };
  const fetchRouting = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    if (init?.method === 'POST' && isResponse(init.body)) {
      routed.count += 1;
      if (options.duplicateAnswers) {
        const [one] = await Promise.all([fetch(second, init), fetch(first, init)]);
        return one;
      }
      return fetch(second, init);
    }
    return fetch(url, init);
  };
  const client = new Client({ name: 'legacy-input-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (request, extra) =>
    answer({ id: extra.requestId, params: request.params as AskedQuestion['params'] }),
  );
  const transport = new StreamableHTTPClientTransport(new URL(first), {
    requestInit: { headers: { authorization: `Bearer ${TOKENS.alice}` } },
    fetch: fetchRouting,
  });
  await client.connect(transport);
  return { client, routed };
}

/**
 * Runs a tool (refund_order unless named) as a task through the SDK's task stream (tools/call, tasks/get, then
 * tasks/result on input_required).
 */
export async function runAsTask(
  client: Client,
  args: Record<string, unknown>,
  name = 'refund_order',
): Promise<{ taskId: string; result: Record<string, unknown> }> {
  let taskId = '';
  for await (const message of client.experimental.tasks.callToolStream(
    { name, arguments: args },
    CallToolResultSchema,
    { task: { ttl: 600_000 } },
  )) {
    if (message.type === 'taskCreated') taskId = message.task.taskId;
    if (message.type === 'error') throw message.error;
    if (message.type === 'result') return { taskId, result: message.result as Record<string, unknown> };
  }
  throw new Error('the task stream ended without a result');
}

export async function taskStatus(client: Client, taskId: string): Promise<string> {
  return (await client.experimental.tasks.getTask(taskId)).status;
}
