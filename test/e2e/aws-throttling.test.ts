// AWS quotas end to end: a server on DynamoDB Local and the Step Functions emulator whose clients are throttled on
// demand (an SDK middleware, inside the translation the server installs, as a throttle left after the SDK's retries
// arrives). A throttled start is refused in every dialect with when to retry, and leaves no task and no held slot; a
// throttled read answers a retryable error, never -32603; a throttled webhook-status read leaves tasks/get whole.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { call, createTask, rpc } from '../support/events-rpc.js';
import { GENEROUS_WAIT, localAwsClients, startTestServer, TOKENS, type TestServer } from '../support/local-backend.js';
import { callModern, modernRequest } from '../support/modern-client.js';
import { Sep1686Client } from '../support/sep-1686-client.js';
import { throttleWhen, type InjectableCall } from '../support/injected-throttle.js';

/** The operations refused now, by command name (`StartExecutionCommand`), and on which table for DynamoDB. */
const throttled = new Map<string, string | undefined>();

function throttle(command: string, tableName?: string): void {
  throttled.set(command, tableName);
}

/** Whether a call is one of the throttled operations (on the named table, for DynamoDB). */
const isThrottled = ({ command, input }: InjectableCall): boolean =>
  throttled.has(command) && (throttled.get(command) ?? input['TableName']) === input['TableName'];

function throttlingClients(): ReturnType<typeof localAwsClients> {
  const clients = localAwsClients();
  throttleWhen(clients.dynamoDb, 'dynamoDb', isThrottled);
  throttleWhen(clients.stepFunctions, 'stepFunctions', isThrottled);
  return clients;
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ maxActiveTasksPerOwner: 1 }, { clients: throttlingClients(), events: {} });
});
afterAll(async () => {
  await server?.close();
});
beforeEach(() => {
  throttled.clear();
});

const RETRYABLE_START_REFUSAL = {
  code: -32000,
  message: expect.stringMatching(/StartExecution rate\); nothing was started\. Retry in 1 s\./),
  data: { retryable: true, retryAfterSeconds: 1, limit: 'step-functions-start-execution-rate' },
};

/** Waits for the task's end, which the status events record: it frees the owner's one active-task place. */
async function untilCompleted(taskId: string, token: string = TOKENS.alice): Promise<void> {
  await vi.waitUntil(
    async () => (await call<{ status: string }>(server.url, 'tasks/get', { taskId }, token)).status === 'completed',
    GENEROUS_WAIT,
  );
}

/** The owner's one active-task slot is free: a task starts (and is cancelled again, to free it for the next test). */
async function slotIsFree(token: string): Promise<void> {
  const taskId = await createTask(server.url, 'analyze_documents', { documents: ['x'], reviewSeconds: 60 }, token);
  await call(server.url, 'tasks/cancel', { taskId }, token);
}

describe('a throttled StartExecution', () => {
  it('is refused in 2025-11-25 with when to retry, and leaves no task and no held slot', async () => {
    throttle('StartExecutionCommand');
    const answer = await rpc(server.url, 'tools/call', {
      name: 'text_stats',
      arguments: { text: 'a b' },
      task: { ttl: 60_000 },
    });
    expect(answer).toMatchObject({ error: RETRYABLE_START_REFUSAL });
    expect(await call<{ tasks: unknown[] }>(server.url, 'tasks/list', {})).toMatchObject({ tasks: [] });
    throttled.clear();
    await slotIsFree(TOKENS.alice);
  });

  it('is refused in the Tasks extension (2026-07-28) the same way', async () => {
    throttle('StartExecutionCommand');
    const answer = await callModern(
      server.url,
      modernRequest('tools/call', { name: 'text_stats', arguments: { text: 'a b' } }),
      TOKENS.bob,
    );
    expect(answer).toMatchObject({ error: RETRYABLE_START_REFUSAL });
    throttled.clear();
    await slotIsFree(TOKENS.bob);
  });

  it('is refused in SEP-1686 on the original request, and the client-made task ID is free again', async () => {
    const client = new Sep1686Client(server.url, TOKENS.alice);
    const taskId = `throttled-${Date.now()}`;
    throttle('StartExecutionCommand');
    const refused = await client.callToolAsTask('text_stats', { text: 'a b' }, { taskId });
    expect(refused.response).toMatchObject({ error: RETRYABLE_START_REFUSAL });
    throttled.clear();
    const retried = await client.callToolAsTask('text_stats', { text: 'a b' }, { taskId });
    expect(retried.response?.error).toBeUndefined();
    await untilCompleted(taskId);
  });
});

describe('a throttled read', () => {
  it('answers tasks/get with a retryable error and when to retry, never -32603', async () => {
    const taskId = await createTask(server.url, 'text_stats', { text: 'one' });
    throttle('GetItemCommand', server.tableName);
    expect(await rpc(server.url, 'tasks/get', { taskId })).toMatchObject({
      error: {
        code: -32000,
        message: expect.stringMatching(/DynamoDB is throttling GetItem/),
        data: { retryable: true, retryAfterSeconds: 1 },
      },
    });
    throttled.clear();
    expect(await call(server.url, 'tasks/get', { taskId })).toMatchObject({ taskId });
    await untilCompleted(taskId);
  });

  it('of the webhook subscriptions leaves tasks/get answering the task, without its webhook status', async () => {
    const taskId = await createTask(server.url, 'text_stats', { text: 'two' });
    throttle('QueryCommand');
    expect(await call(server.url, 'tasks/get', { taskId })).toMatchObject({ taskId });
  });
});
