// Task metrics as CloudWatch receives them: the EMF lines the real handlers print, read back from stdout, for tasks
// created through the task service and finished by the status-sync handler with a real execution on the emulator.
import { randomUUID } from 'node:crypto';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DescribeExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { TaskOrigin, TaskStatus, type TaskRecord } from '../../lambda/core/task.js';
import { createBackend, type Backend } from '../../lambda/handlers/backend.js';
import { ENV } from '../../lambda/handlers/environment.js';
import { countAwsCallFailures, PowertoolsTaskMetrics } from '../../lambda/handlers/powertools-metrics.js';
import { DIMENSION, METRIC, METRICS_NAMESPACE } from '../../lambda/handlers/metric-names.js';
import { DEFAULT_SETTINGS } from '../../lambda/service/settings.js';
import { LOCAL_ACCOUNT, LOCAL_REGION, localAwsEnvironment } from '../../local/local-aws.js';
import { createTestTable, exampleTools, GENEROUS_WAIT, localAwsClients, silentLogger } from '../support/local-backend.js';
import { statusEvent } from '../support/status-events.js';
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
      const record = JSON.parse(line) as Record<string, unknown> & { _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] } };
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
  return emitted().filter((metric) => metric.name === name && Object.entries(dimensions).every(([key, value]) => metric.dimensions[key] === value));
}

beforeAll(async () => {
  const tableName = await createTestTable();
  // The environment the construct gives the functions, metrics on (vitest.config turns them off for other tests).
  Object.assign(process.env, {
    ...localAwsEnvironment({ dynamoDbEndpoint: inject('dynamoDbEndpoint'), stepFunctionsEndpoint: inject('stepFunctionsEndpoint') }),
    [ENV.tableName]: tableName,
    POWERTOOLS_METRICS_DISABLED: 'false',
    POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
    POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
  });
  vi.resetModules();
  ({ handler } = await import('../../lambda/handlers/status-sync.js'));
  const metrics = new PowertoolsTaskMetrics();
  const clients = countAwsCallFailures(localAwsClients(), metrics);
  stepFunctions = clients.stepFunctions;
  backend = createBackend({ tableName, tools: exampleTools(), settings: DEFAULT_SETTINGS }, clients, silentLogger, metrics);
});

afterAll(() => {
  stepFunctions?.destroy();
  delete process.env.POWERTOOLS_METRICS_DISABLED;
});

beforeEach(() => {
  printed = [];
  // Captured, not passed through: the EMF lines are what is under test, and the run's output stays readable.
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (printed.push(String(chunk)), true));
});

afterEach(() => vi.restoreAllMocks());

async function newTask(): Promise<TaskRecord> {
  return backend.service.createTask({ owner: `owner-${randomUUID()}`, toolName: 'text_stats', arguments: { text: 'count these words' }, origin: TaskOrigin.Mcp20251125 });
}


describe('task metrics (EMF on stdout)', () => {
  it('a created task counts once in TasksCreated, under its tool, the namespace and the service', async () => {
    await newTask();
    const created = named(METRIC.TasksCreated, { [DIMENSION.tool]: 'text_stats' });
    expect(created).toEqual([{ namespace: METRICS_NAMESPACE, name: METRIC.TasksCreated, unit: 'Count', value: 1, dimensions: { service: SERVICE_NAME, tool: 'text_stats' } }]);
  });

  it('a task the status-sync handler completes counts once in TasksCompleted, with its time to completion', async () => {
    const task = await newTask();
    await vi.waitUntil(async () => (await stepFunctions.send(new DescribeExecutionCommand({ executionArn: task.executionArn }))).status !== 'RUNNING', GENEROUS_WAIT);
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
        throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException', $metadata: { httpStatusCode: 400 } });
      },
      { step: 'deserialize', name: 'throttleFault' },
    );
    const executionArn = `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT}:execution:none:task-x`;
    await expect(clients.stepFunctions.send(new DescribeExecutionCommand({ executionArn }))).rejects.toMatchObject({ name: 'ThrottlingException' });
    clients.stepFunctions.destroy();
    clients.dynamoDb.destroy();

    const where = { [DIMENSION.awsService]: 'SFN', [DIMENSION.operation]: 'DescribeExecution' };
    const throttles = named(METRIC.AwsCallThrottles, where);
    // The SDK's default of three attempts: the retries absorbed none, and each shows.
    expect(throttles.map((metric) => metric.value)).toEqual([1, 1, 1]);
    expect(named(METRIC.AwsCallErrors, where)).toHaveLength(3);
  });

  it('an answer the store expects (a conditional write that lost) counts as no error', async () => {
    const clients = localAwsClients();
    countAwsCallFailures(clients, new PowertoolsTaskMetrics());
    clients.dynamoDb.middlewareStack.add(
      () => async () => {
        throw Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException', $metadata: { httpStatusCode: 400 } });
      },
      { step: 'deserialize', name: 'conditionFault' },
    );
    await expect(clients.dynamoDb.send(new DescribeTableCommand({ TableName: 'any' }))).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    clients.stepFunctions.destroy();
    clients.dynamoDb.destroy();
    expect(named(METRIC.AwsCallErrors, {})).toEqual([]);
  });
});
