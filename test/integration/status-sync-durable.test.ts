// The deployed status-sync handler fed Lambda's "Durable Execution Status Change" events, with the task made by the
// MCP side through the real Lambda client: the unchanged SDK reaches a loopback stand-in of Lambda's REST API (Invoke,
// GetDurableExecution, ListDurableExecutionsByFunction) and the task table is DynamoDB Local.
import { randomUUID } from 'node:crypto';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  DURABLE_EXECUTION_STATUS_CHANGE,
  LAMBDA_EVENT_SOURCE,
  type DurableExecutionStatus,
} from '../../lambda/contract/durable-execution-status-events.js';
import { ENV } from '../../lambda/contract/environment-names.js';
import type { ToolDefinition } from '../../lambda/contract/tool-definition.js';
import { TaskOrigin, toolResultOf, type TaskRecord } from '../../lambda/core/task.js';
import { createBackend, type Backend } from '../../lambda/handlers/backend.js';
import type { DurableExecutionStatusChangeEvent } from '../../lambda/handlers/execution-status-event.js';
import { DEFAULT_SETTINGS } from '../../lambda/service/settings.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION, localAwsEnvironment } from '../../local/local-aws.js';
import { startDurableLambdaStub, type DurableLambdaStub } from '../support/durable-lambda-stub.js';
import { createTestTable, localAwsClients, silentLogger } from '../support/local-backend.js';

type Handler = (event: DurableExecutionStatusChangeEvent) => Promise<void>;

const FUNCTION = `arn:aws:lambda:${LOCAL_REGION}:000000000000:function:durable-review`;
const TOOL: ToolDefinition = {
  name: 'durable_review',
  description: 'Reviews documents.',
  inputSchema: { type: 'object', properties: { documents: { type: 'array', items: { type: 'string' } } } },
  durableFunctionArn: `${FUNCTION}:live`,
};

let stub: DurableLambdaStub;
let handler: Handler;
let backend: Backend;

beforeAll(async () => {
  stub = await startDurableLambdaStub();
  const tableName = await createTestTable();
  Object.assign(process.env, {
    ...localAwsEnvironment({
      dynamoDbEndpoint: inject('dynamoDbEndpoint'),
      stepFunctionsEndpoint: inject('stepFunctionsEndpoint'),
    }),
    AWS_ENDPOINT_URL_LAMBDA: stub.url,
    [ENV.tableName]: tableName,
  });
  ({ handler } = (await import('../../lambda/handlers/status-sync.js')) as { handler: Handler });
  const lambda = new LambdaClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: stub.url });
  backend = createBackend(
    { tableName, tools: [TOOL], settings: DEFAULT_SETTINGS },
    { ...localAwsClients(), lambda },
    silentLogger,
  );
});

afterAll(async () => {
  delete process.env['AWS_ENDPOINT_URL_LAMBDA'];
  await stub?.close();
});

async function newTask(): Promise<TaskRecord> {
  return backend.service.createTask({
    owner: `owner-${randomUUID()}`,
    toolName: TOOL.name,
    arguments: { documents: ['a b c'] },
    origin: TaskOrigin.Mcp20251125,
  });
}

/** The execution the stand-in started for the task (by the name the task's reference ends with). */
function executionOf(task: TaskRecord) {
  return stub.executions.get(task.executionArn.split('/durable-execution/')[1]!)!;
}

function statusEvent(task: TaskRecord, status: DurableExecutionStatus): DurableExecutionStatusChangeEvent {
  const execution = executionOf(task);
  return {
    version: '0',
    id: randomUUID(),
    account: '000000000000',
    time: new Date().toISOString(),
    region: LOCAL_REGION,
    source: LAMBDA_EVENT_SOURCE,
    'detail-type': DURABLE_EXECUTION_STATUS_CHANGE,
    resources: [execution.arn],
    detail: {
      durableExecutionArn: execution.arn,
      durableExecutionName: execution.name,
      functionArn: execution.functionArn,
      status,
      startTimestamp: new Date().toISOString(),
      ...(status !== 'RUNNING' ? { endTimestamp: new Date().toISOString() } : {}),
    },
  };
}

const stored = async (task: TaskRecord) => (await backend.store.get(task.owner, task.taskId))!;

describe('status-sync on durable execution events', () => {
  it('starts the task with one named, asynchronous Invoke carrying the arguments and the reference', async () => {
    const before = stub.calls['Invoke'] ?? 0;
    const task = await newTask();
    expect(stub.calls['Invoke']).toBe(before + 1);
    const execution = executionOf(task);
    expect(execution.invocationType).toBe('Event');
    expect(JSON.parse(execution.payload)).toEqual({
      arguments: { documents: ['a b c'] },
      execution: task.executionArn,
    });
    expect(task.executionArn).toBe(`${FUNCTION}/durable-execution/${execution.name}`);
  });

  it('records RUNNING without asking Lambda', async () => {
    const task = await newTask();
    const gets = stub.calls['GetDurableExecution'] ?? 0;
    await handler(statusEvent(task, 'RUNNING'));
    expect((await stored(task)).status).toBe('working');
    expect(stub.calls['GetDurableExecution'] ?? 0).toBe(gets);
  });

  it('completes the task from a SUCCEEDED event with the result read once by the real ARN, never listing', async () => {
    const task = await newTask();
    Object.assign(executionOf(task), {
      status: 'SUCCEEDED',
      result: JSON.stringify({ content: [{ type: 'text', text: 'Reviewed 1 document.' }] }),
    });
    const [gets, lists] = [stub.calls['GetDurableExecution'] ?? 0, stub.calls['ListDurableExecutionsByFunction'] ?? 0];
    await handler(statusEvent(task, 'SUCCEEDED'));
    const done = await stored(task);
    expect(done.status).toBe('completed');
    expect(toolResultOf(done)).toEqual({ content: [{ type: 'text', text: 'Reviewed 1 document.' }] });
    expect(stub.calls['GetDurableExecution']).toBe(gets + 1);
    expect(stub.calls['ListDurableExecutionsByFunction'] ?? 0).toBe(lists);
  });

  it('fails the task from a FAILED event with the error Lambda reports', async () => {
    const task = await newTask();
    Object.assign(executionOf(task), {
      status: 'FAILED',
      error: { ErrorType: 'DocumentRejectedError', ErrorMessage: 'Document 1 is rejected.' },
    });
    await handler(statusEvent(task, 'FAILED'));
    expect(await stored(task)).toMatchObject({
      status: 'failed',
      statusMessage: 'Execution failed: DocumentRejectedError: Document 1 is rejected.',
    });
  });

  it('ignores an event of an execution no task of this backend owns', async () => {
    const task = await newTask();
    const event = statusEvent(task, 'SUCCEEDED');
    const foreign = {
      ...event,
      detail: { ...event.detail, durableExecutionArn: event.detail.durableExecutionArn.replace('/task-', '/other-') },
    };
    await handler(foreign);
    expect((await stored(task)).status).toBe('submitted');
  });
});
