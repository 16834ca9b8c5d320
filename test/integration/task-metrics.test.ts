// Task metrics as CloudWatch receives them: the EMF lines the real handlers print, read back from stdout, for tasks
// created through the task service and finished by the status-sync handler with a real execution on the emulator.
import { randomUUID } from 'node:crypto';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { DescribeExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { TaskOrigin, type TaskRecord } from '../../lambda/core/task.js';
import { TaskStatus } from '../../lambda/core/task-status.js';
import { taskKey } from '../../lambda/core/task-key.js';
import { createBackend, type Backend } from '../../lambda/handlers/backend.js';
import { ENV } from '../../lambda/contract/environment-names.js';
import { countAwsCallFailures, PowertoolsTaskMetrics } from '../../lambda/handlers/powertools-metrics.js';
import { DIMENSION, METRIC, METRICS_NAMESPACE } from '../../lambda/contract/metric-names.js';
import { DEFAULT_SETTINGS } from '../../lambda/service/settings.js';
import { DynamoDbOwnerQuotas } from '../../lambda/store/dynamodb-owner-quotas.js';
import { DynamoDbTaskStore } from '../../lambda/store/dynamodb-task-store.js';
import { PARTITION_KEY } from '../../lambda/contract/task-table-schema.js';
import { LOCAL_ACCOUNT, LOCAL_REGION, localAwsEnvironment } from '../../local/local-aws.js';
import { useInputBackend } from '../support/input-backend.js';
import {
  createTestTable,
  exampleTools,
  GENEROUS_WAIT,
  localAwsClients,
  silentLogger,
} from '../support/local-backend.js';
import { callModern, modernRequest } from '../support/modern-client.js';
import { statusEvent } from '../support/status-change-events.js';
import type { ExecutionStatusChangeEvent } from '../../lambda/handlers/execution-status-event.js';

/** One metric of an EMF line: its name, value, unit and dimensions (names from the `_aws` block, values beside). */
interface EmittedMetric {
  readonly namespace: string;
  readonly name: string;
  readonly unit: string;
  readonly value: unknown;
  readonly dimensions: Record<string, unknown>;
}

const SERVICE_NAME = 'metrics-test';
let printed: string[] = [];
let handler: (event: ExecutionStatusChangeEvent) => Promise<void>;
let backend: Backend;
let stepFunctions: SFNClient;

/** Every metric in the EMF lines printed since the test began. */
function emitted(): EmittedMetric[] {
  return printed
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.includes('"_aws"'))
    .flatMap((line) => {
      const record = JSON.parse(line) as Record<string, unknown> & {
        _aws: {
          CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[];
        };
      };
      return record._aws.CloudWatchMetrics.flatMap((directive) =>
        directive.Metrics.map((metric) => ({
          namespace: directive.Namespace,
          name: metric.Name,
          unit: metric.Unit,
          value: record[metric.Name],
          dimensions: Object.fromEntries(directive.Dimensions.flat().map((name) => [name, record[name]])),
        })),
      );
    });
}

function named(name: string, dimensions: Record<string, string>): EmittedMetric[] {
  return emitted().filter(
    (metric) =>
      metric.name === name && Object.entries(dimensions).every(([key, value]) => metric.dimensions[key] === value),
  );
}

beforeAll(async () => {
  const tableName = await createTestTable();
  // The environment the construct gives the functions, metrics on (vitest.config turns them off for other tests).
  Object.assign(process.env, {
    ...localAwsEnvironment({
      dynamoDbEndpoint: inject('dynamoDbEndpoint'),
      stepFunctionsEndpoint: inject('stepFunctionsEndpoint'),
    }),
    [ENV.tableName]: tableName,
    POWERTOOLS_METRICS_DISABLED: 'false',
    POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
    POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
  });
  // Imported first here, so it reads this environment. No vi.resetModules(): modules imported lazily after a reset
  // (the modern endpoint) would get their own copies of the error classes, which instanceof then tells apart.
  ({ handler } = await import('../../lambda/handlers/status-sync.js'));
  const metrics = new PowertoolsTaskMetrics();
  const clients = countAwsCallFailures(localAwsClients(), metrics);
  stepFunctions = clients.stepFunctions;
  backend = createBackend(
    { tableName, tools: exampleTools(), settings: DEFAULT_SETTINGS },
    clients,
    silentLogger,
    metrics,
  );
});

afterAll(() => {
  stepFunctions?.destroy();
  delete process.env.POWERTOOLS_METRICS_DISABLED;
});

beforeEach(() => {
  printed = [];
  // Captured, not passed through: the EMF lines are what is under test, and the run's output stays readable.
  vi.spyOn(process.stdout, 'write').mockImplementation(
    (chunk: string | Uint8Array) => (printed.push(String(chunk)), true),
  );
});

afterEach(() => vi.restoreAllMocks());

async function newTask(): Promise<TaskRecord> {
  return backend.service.createTask({
    owner: `owner-${randomUUID()}`,
    toolName: 'text_stats',
    arguments: { text: 'count these words' },
    origin: TaskOrigin.Mcp20251125,
  });
}

describe('task metrics (EMF on stdout)', () => {
  it('a created task counts once in TasksCreated, under its tool, the namespace and the service', async () => {
    await newTask();
    const created = named(METRIC.TasksCreated, { [DIMENSION.tool]: 'text_stats' });
    expect(created).toEqual([
      {
        namespace: METRICS_NAMESPACE,
        name: METRIC.TasksCreated,
        unit: 'Count',
        value: 1,
        dimensions: { service: SERVICE_NAME, tool: 'text_stats' },
      },
    ]);
  });

  it('a task the status-sync handler completes counts once in TasksCompleted, with its time to completion', async () => {
    const task = await newTask();
    await vi.waitUntil(
      async () =>
        (await stepFunctions.send(new DescribeExecutionCommand({ executionArn: task.executionArn }))).status !==
        'RUNNING',
      GENEROUS_WAIT,
    );
    // Output dropped from the event (as for a large one), so the handler describes the execution.
    await handler(statusEvent(task, { status: 'SUCCEEDED', output: null, outputDetails: { included: false } }));
    const stored = await backend.store.get(task.owner, task.taskId);
    expect(stored?.status).toBe(TaskStatus.Completed);

    const completed = named(METRIC.TasksCompleted, { [DIMENSION.tool]: 'text_stats' });
    expect(completed.map((metric) => metric.value)).toEqual([1]);
    const [duration] = named(METRIC.TimeToCompletion, { [DIMENSION.tool]: 'text_stats' });
    expect(duration?.unit).toBe('Milliseconds');
    // From creation to the completion the store recorded: derived from the task, not from a clock read by the test.
    expect(duration?.value).toBe(stored!.completedAt! - stored!.createdAt);
    expect(named(METRIC.TasksFailed, {})).toEqual([]);
  });

  it('every throttled attempt of an AWS call counts in AwsCallThrottles and AwsCallErrors, by service and operation', async () => {
    const clients = localAwsClients();
    countAwsCallFailures(clients, new PowertoolsTaskMetrics());
    // The fault alone is made up: Step Functions answering every DescribeExecution with a throttle.
    clients.stepFunctions.middlewareStack.add(
      () => async () => {
        throw Object.assign(new Error('Rate exceeded'), {
          name: 'ThrottlingException',
          $metadata: { httpStatusCode: 400 },
        });
      },
      { step: 'deserialize', name: 'throttleFault' },
    );
    const executionArn = `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT}:execution:none:task-x`;
    await expect(clients.stepFunctions.send(new DescribeExecutionCommand({ executionArn }))).rejects.toMatchObject({
      name: 'ThrottlingException',
    });
    clients.stepFunctions.destroy();
    clients.dynamoDb.destroy();

    const where = { [DIMENSION.awsService]: 'SFN', [DIMENSION.operation]: 'DescribeExecution' };
    const throttles = named(METRIC.AwsCallThrottles, where);
    // The SDK's default of three attempts: the retries absorbed none, and each shows.
    expect(throttles.map((metric) => metric.value)).toEqual([1, 1, 1]);
    expect(named(METRIC.AwsCallErrors, where)).toHaveLength(3);
  });

  it('a failed DynamoDB call of the store counts under the API operation (GetItem, UpdateItem), not the document client command', async () => {
    const clients = localAwsClients();
    countAwsCallFailures(clients, new PowertoolsTaskMetrics());
    // The fault alone is made up: DynamoDB throttling every call.
    clients.dynamoDb.middlewareStack.add(
      () => async () => {
        throw Object.assign(new Error('Rate exceeded'), {
          name: 'ProvisionedThroughputExceededException',
          $metadata: { httpStatusCode: 400 },
        });
      },
      { step: 'deserialize', name: 'throttleFault' },
    );
    const store = new DynamoDbTaskStore({ client: DynamoDBDocumentClient.from(clients.dynamoDb), tableName: 'any' });
    await expect(store.get('owner', 'task')).rejects.toMatchObject({ name: 'ProvisionedThroughputExceededException' });
    const quotas = new DynamoDbOwnerQuotas({
      client: DynamoDBDocumentClient.from(clients.dynamoDb),
      tableName: 'any',
      tasks: store,
    });
    await expect(quotas.countCreation('owner', { start: 0, ms: 60_000 }, 5)).rejects.toMatchObject({
      name: 'ProvisionedThroughputExceededException',
    });
    clients.stepFunctions.destroy();
    clients.dynamoDb.destroy();

    const operations = named(METRIC.AwsCallThrottles, { [DIMENSION.awsService]: 'DynamoDB' }).map(
      (metric) => metric.dimensions[DIMENSION.operation],
    );
    // Every attempt of each call (the SDK retries a throttle), under the name CloudWatch and IAM give the operation.
    expect(new Set(operations)).toEqual(new Set(['GetItem', 'UpdateItem']));
    expect(named(METRIC.AwsCallErrors, { [DIMENSION.awsService]: 'DynamoDB' })).toHaveLength(operations.length);
  });

  it('an answer the store expects (a conditional write that lost) counts as no error', async () => {
    const clients = localAwsClients();
    countAwsCallFailures(clients, new PowertoolsTaskMetrics());
    clients.dynamoDb.middlewareStack.add(
      () => async () => {
        throw Object.assign(new Error('The conditional request failed'), {
          name: 'ConditionalCheckFailedException',
          $metadata: { httpStatusCode: 400 },
        });
      },
      { step: 'deserialize', name: 'conditionFault' },
    );
    await expect(clients.dynamoDb.send(new DescribeTableCommand({ TableName: 'any' }))).rejects.toMatchObject({
      name: 'ConditionalCheckFailedException',
    });
    clients.stepFunctions.destroy();
    clients.dynamoDb.destroy();
    expect(named(METRIC.AwsCallErrors, {})).toEqual([]);
  });
});

describe('OAuth proxy limits (EMF on stdout)', () => {
  it('a request the OAuth proxy refuses for a limit counts once in OAuthRequestsLimited, under that limit', () => {
    new PowertoolsTaskMetrics().limitReached('sign-ins-per-source');
    expect(named(METRIC.OAuthRequestsLimited, { [DIMENSION.limit]: 'sign-ins-per-source' })).toEqual([
      expect.objectContaining({ namespace: METRICS_NAMESPACE, unit: 'Count', value: 1 }),
    ]);
  });
});

describe('input wait (EMF on stdout, through the MCP handler)', () => {
  // The example refund_order workflow asks for approval; both servers record into CloudWatch metrics. Made before the
  // environment above is set, so the service name is given here, as the environment would give it.
  const inputs = useInputBackend({
    metrics: new PowertoolsTaskMetrics(new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME })),
  });
  const where = { [DIMENSION.tool]: 'refund_order' };

  async function askedRefund(orderId: string): Promise<{ taskId: string; key: string }> {
    const created = await callModern(
      inputs.servers[0].url,
      modernRequest('tools/call', { name: 'refund_order', arguments: { orderId, approvalTimeoutSeconds: 600 } }),
    );
    const taskId = created.result!['taskId'] as string;
    const key = await vi.waitUntil(async () => {
      const task = (await callModern(inputs.servers[0].url, modernRequest('tasks/get', { taskId }))).result!;
      return task['status'] === 'input_required'
        ? Object.keys(task['inputRequests'] as Record<string, unknown>)[0]
        : undefined;
    }, GENEROUS_WAIT);
    return { taskId, key };
  }

  const answer = (taskId: string, inputResponses: Record<string, unknown>) =>
    callModern(inputs.servers[1].url, modernRequest('tasks/update', { taskId, inputResponses }));

  /** The stored request's ask and answer times (the TOKENS.alice owner is `alice`). */
  async function storedRequest(taskId: string, key: string): Promise<{ askedAt: number; settledAt?: number }> {
    const documents = DynamoDBDocumentClient.from(localAwsClients().dynamoDb);
    const read = new GetCommand({
      TableName: inputs.servers[0].tableName,
      Key: { [PARTITION_KEY]: taskKey('alice', taskId) },
      ConsistentRead: true,
    });
    const { Item } = await documents.send(read);
    return (Item!['inputRequests'] as Record<string, { askedAt: number; settledAt?: number }>)[key]!;
  }

  it('an answered input request records its wait once, under its tool: from the ask to the answer the store recorded', async () => {
    const { taskId, key } = await askedRefund('W-1');
    expect(named(METRIC.InputWaitTime, {})).toEqual([]);
    const response = { [key]: { action: 'accept', content: { approve: true } } };
    expect(await answer(taskId, response)).toMatchObject({ result: {} });
    // A repeated answer is ignored, and records nothing more.
    expect(await answer(taskId, response)).toMatchObject({ result: {} });

    const stored = await storedRequest(taskId, key);
    expect(stored.settledAt).toBeGreaterThanOrEqual(stored.askedAt);
    expect(named(METRIC.InputWaitTime, where)).toEqual([
      {
        namespace: METRICS_NAMESPACE,
        name: METRIC.InputWaitTime,
        unit: 'Milliseconds',
        value: stored.settledAt! - stored.askedAt,
        dimensions: { service: SERVICE_NAME, tool: 'refund_order' },
      },
    ]);
  });

  it('an answer refused for not fitting the request records no wait; the request stays open', async () => {
    const { taskId, key } = await askedRefund('W-2');
    const refused = await answer(taskId, { [key]: { action: 'accept', content: { amount: 3 } } });
    expect(refused.error).toMatchObject({ code: -32602 });
    expect(named(METRIC.InputWaitTime, {})).toEqual([]);
    expect((await storedRequest(taskId, key)).settledAt).toBeUndefined();
    await callModern(inputs.servers[0].url, modernRequest('tasks/cancel', { taskId }));
  });
});
