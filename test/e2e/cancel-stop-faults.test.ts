// A cancel that meets a failing StopExecution, end to end: the official MCP client over HTTP, a server on DynamoDB
// Local and the Step Functions emulator whose Step Functions client fails StopExecution on demand (an SDK middleware at
// the initialize step, outside the SDK's retries: one injected failure is one call failed as the server sees it, after
// those retries, as a 500 that outlasted them arrives). A fault that passes is ridden out; one that lasts answers the
// retryable -32000 a throttle gets, never -32603, and leaves the task running for a later cancel.
import { DescribeExecutionCommand } from '@aws-sdk/client-sfn';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateTaskResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  connectClient,
  GENEROUS_WAIT,
  localAwsClients,
  startTestServer,
  type TestServer,
} from '../support/local-backend.js';
import { callModern, modernRequest } from '../support/modern-client.js';

/** StopExecution calls still to fail, and every StopExecution the server sent. */
let failuresLeft = 0;
let stopCalls = 0;

function faultyClients(): ReturnType<typeof localAwsClients> {
  const clients = localAwsClients();
  clients.stepFunctions.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'StopExecutionCommand') return next(args);
      stopCalls += 1;
      if (failuresLeft <= 0) return next(args);
      failuresLeft -= 1;
      // What the SDK throws for a 500 whose body names no error, once its retries are spent.
      throw Object.assign(new Error('Injected fault: StopExecution answered 500'), {
        name: 'Unknown',
        $fault: 'server',
        $metadata: { httpStatusCode: 500 },
      });
    },
    { step: 'initialize', name: 'injectStopExecutionFaults' },
  );
  return clients;
}

let server: TestServer;
let client: Client;
/** The emulator as the test itself sees it, on a client without the fault. */
const sfn = localAwsClients().stepFunctions;

beforeAll(async () => {
  server = await startTestServer({}, { clients: faultyClients() });
  client = await connectClient(server.url);
});
afterAll(async () => {
  await client?.close();
  await server?.close();
  sfn.destroy();
});
beforeEach(() => {
  failuresLeft = 0;
  stopCalls = 0;
});

/** A long workflow, once the status events show it running. */
async function workingTask(): Promise<string> {
  const { task } = await client.request(
    {
      method: 'tools/call',
      params: {
        name: 'analyze_documents',
        arguments: { documents: ['a'], reviewSeconds: 600 },
        task: { ttl: 600_000 },
      },
    },
    CreateTaskResultSchema,
  );
  await vi.waitUntil(
    async () => (await client.experimental.tasks.getTask(task.taskId)).status === 'working',
    GENEROUS_WAIT,
  );
  return task.taskId;
}

/** The status of the task's execution (the ARN as the server stored it), as the emulator tells it. */
async function executionStatus(taskId: string): Promise<string | undefined> {
  const { executionArn } = await server.backend.service.getTask('alice', taskId);
  return (await sfn.send(new DescribeExecutionCommand({ executionArn }))).status;
}

const RETRYABLE_STOP_FAILURE = {
  code: -32000,
  message: expect.stringMatching(/could not be cancelled yet: .* left as it was\. Retry in 2 s\./),
  data: { retryable: true, retryAfterSeconds: 2, limit: 'aws-fault' },
};

describe('tasks/cancel when StopExecution fails', () => {
  it('rides out one failure: the stop is sent again and the cancel succeeds', async () => {
    const taskId = await workingTask();
    failuresLeft = 1;
    expect((await client.experimental.tasks.cancelTask(taskId)).status).toBe('cancelled');
    expect(stopCalls).toBe(2);
    expect(await executionStatus(taskId)).toBe('ABORTED');
  });

  it('answers -32000 with when to retry when the failures last, leaves the task working, and a later cancel succeeds', async () => {
    const taskId = await workingTask();
    failuresLeft = Infinity;
    const refused = await client.experimental.tasks.cancelTask(taskId).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(McpError);
    expect(refused).toMatchObject(RETRYABLE_STOP_FAILURE);
    // The 2026-07-28 dialect's tasks/cancel answers the same way.
    expect(await callModern(server.url, modernRequest('tasks/cancel', { taskId }))).toMatchObject({
      error: RETRYABLE_STOP_FAILURE,
    });
    // So does the status tool a client without tasks cancels with.
    const byTool = await client
      .callTool({ name: 'task_cancel', arguments: { taskId } })
      .catch((error: unknown) => error);
    expect(byTool).toMatchObject(RETRYABLE_STOP_FAILURE);
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe('working');
    expect(await executionStatus(taskId)).toBe('RUNNING');
    failuresLeft = 0;
    expect((await client.experimental.tasks.cancelTask(taskId)).status).toBe('cancelled');
    expect(await executionStatus(taskId)).toBe('ABORTED');
  });
});
