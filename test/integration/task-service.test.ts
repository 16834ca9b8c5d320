// The task service over DynamoDB Local and the Step Functions emulator, for what in-memory parts cannot show: a real
// execution run to its result, the emulator's idempotent start under a retried call, DynamoDB's item size limit, and
// DynamoDB failures as the SDK raises them (injected through its middleware). Every other behaviour of the service is
// specified by the fast unit tests in test/unit/service/, on in-memory parts with fake timers.
import { randomUUID } from 'node:crypto';
import { ListExecutionsCommand } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskAlreadyExistsError } from '../../lambda/core/errors.js';
import type { Logger } from '../../lambda/core/logger.js';
import { TaskOrigin } from '../../lambda/core/task.js';
import { StepFunctionsExecutor } from '../../lambda/executor/step-functions-executor.js';
import type { TaskExecutor } from '../../lambda/executor/task-executor.js';
import { DEFAULT_SETTINGS, type TaskServiceSettings } from '../../lambda/service/settings.js';
import { TaskService } from '../../lambda/service/task-service.js';
import { DynamoDbOwnerQuotas } from '../../lambda/store/dynamodb-owner-quotas.js';
import { DynamoDbTaskStore } from '../../lambda/store/dynamodb-task-store.js';
import type { TaskStore } from '../../lambda/store/task-store.js';
import { ToolRegistry } from '../../lambda/tools/tool-registry.js';
import type { LocalStatusEvents } from '../../local/status-events-stand-in.js';
import { bind } from '../support/bind-methods.js';
import { throttleWhen } from '../support/injected-throttle.js';
import {
  createTestTable,
  exampleTools,
  GENEROUS_WAIT,
  localAwsClients,
  silentLogger,
  startTestStatusEvents,
} from '../support/local-backend.js';

let tableName: string;
let statusEvents: LocalStatusEvents;
beforeAll(async () => {
  tableName = await createTestTable();
  // The status events (EventBridge and the status-sync function in AWS), on their own service: the waits read only the
  // table.
  statusEvents = await startTestStatusEvents(tableName);
});
afterAll(async () => {
  await statusEvents?.stop();
});

/** The store on its own DynamoDB client; `failing` makes it throttle the named operations while `now()` holds. */
function realStore(failing?: { operations: readonly string[]; now: () => boolean }): TaskStore {
  const { dynamoDb } = localAwsClients();
  if (failing !== undefined)
    throttleWhen(dynamoDb, 'dynamoDb', ({ command }) => failing.operations.includes(command) && failing.now());
  return new DynamoDbTaskStore({ client: DynamoDBDocumentClient.from(dynamoDb), tableName });
}
const realExecutor = (): TaskExecutor => new StepFunctionsExecutor({ client: localAwsClients().stepFunctions });

function service(
  parts: { store?: TaskStore; executor?: TaskExecutor; settings?: Partial<TaskServiceSettings>; logger?: Logger } = {},
): TaskService {
  const store = parts.store ?? realStore();
  return new TaskService({
    store,
    quotas: new DynamoDbOwnerQuotas({
      client: DynamoDBDocumentClient.from(localAwsClients().dynamoDb),
      tableName,
      tasks: store,
    }),
    executor: parts.executor ?? realExecutor(),
    tools: new ToolRegistry(exampleTools()),
    settings: { ...DEFAULT_SETTINGS, pollIntervalMs: 100, ...parts.settings },
    logger: parts.logger ?? silentLogger,
  });
}

async function executionCount(toolName: string, executionArn: string): Promise<number> {
  const stateMachineArn = exampleTools().find((tool) => tool.name === toolName)!.stateMachineArn;
  const { executions = [] } = await localAwsClients().stepFunctions.send(
    new ListExecutionsCommand({ stateMachineArn, maxResults: 1000 }),
  );
  return executions.filter((execution) => execution.executionArn === executionArn).length;
}

const textStats = (owner: string, text = 'one two three') => ({
  owner,
  toolName: 'text_stats',
  arguments: { text },
  origin: TaskOrigin.Mcp20251125,
});

describe('TaskService on DynamoDB Local and the Step Functions emulator', () => {
  it('runs a task to its result: one execution, the task completed with the tool result, and gone once deleted', async () => {
    const task = await service().createTask(textStats('runner'));
    expect(await realStore().get('runner', task.taskId)).toMatchObject({ status: 'submitted' });
    const done = await service().waitForTerminal('runner', task.taskId, { timeoutMs: GENEROUS_WAIT.timeout });
    expect(done.status).toBe('completed');
    expect((await service().resultOf(done))?.structuredContent).toMatchObject({ words: 3 });
    expect(await executionCount('text_stats', task.executionArn)).toBe(1);
    await service().deleteTask('runner', task.taskId);
    expect(await realStore().get('runner', task.taskId)).toBeNull();
  });

  it('finds the one execution again when a call whose start answer was lost is retried (SEP-1686), and it completes', async () => {
    const executor = realExecutor();
    const lossy: TaskExecutor = {
      ...bind(executor),
      start: async (request) => (await executor.start(request), Promise.reject(new Error('socket hang up'))),
    };
    const call = { ...textStats('retrier', 'same words'), origin: TaskOrigin.Sep1686, taskId: `retry-${randomUUID()}` };
    const first = await service({ executor: lossy }).createTask(call);
    // The retry issues the start again under the stored execution name: the emulator answers with that execution.
    await expect(service().createTask(call)).rejects.toBeInstanceOf(TaskAlreadyExistsError);
    const done = await service().waitForTerminal('retrier', call.taskId, { timeoutMs: GENEROUS_WAIT.timeout });
    expect(done.status).toBe('completed');
    expect(await executionCount('text_stats', first.executionArn)).toBe(1);
  });

  it('stores a large result once and returns it whole, within the DynamoDB item limit', async () => {
    // Close to Step Functions' 256 KB output limit; stored twice (text and structured) it would not fit in 400 KB.
    const output = JSON.stringify({
      rows: Array.from({ length: 2_500 }, (_, index) => ({ index, text: 'x'.repeat(80) })),
    });
    expect(output.length).toBeGreaterThan(240_000);
    const bigOutput: TaskExecutor = {
      ...bind(realExecutor()),
      describe: async () => ({ status: 'SUCCEEDED', output }),
    };
    const task = await service().createTask({
      owner: 'big',
      toolName: 'analyze_documents',
      arguments: { documents: ['x'], reviewSeconds: 1 },
      origin: TaskOrigin.Mcp20251125,
    });
    // A status event that leaves a large output out: status sync describes the execution for it.
    await service({ executor: bigOutput }).recordExecutionEvent(task.executionArn, 'describe');
    const done = await service().waitForTerminal('big', task.taskId, { timeoutMs: 10_000 });
    expect(done.status).toBe('completed');
    const result = await service().resultOf(done);
    expect((result?.structuredContent as { rows: unknown[] }).rows).toHaveLength(2_500);
  });

  it('starts nothing when DynamoDB throttles the task write', async () => {
    const executor = realExecutor();
    let started = 0;
    const counting: TaskExecutor = {
      ...bind(executor),
      start: async (request) => (started++, executor.start(request)),
    };
    const throttled = realStore({ operations: ['PutItemCommand', 'TransactWriteItemsCommand'], now: () => true });
    await expect(
      service({ store: throttled, executor: counting }).createTask(textStats('no-store')),
    ).rejects.toMatchObject({ name: 'ProvisionedThroughputExceededException' });
    expect(started).toBe(0);
  });

  it('stops the execution on the emulator when DynamoDB fails while a plain call waits', async () => {
    const executor = realExecutor();
    let executionArn = '';
    const capturing: TaskExecutor = {
      ...bind(executor),
      start: async (request) => {
        const started = await executor.start(request);
        executionArn = started.executionArn;
        return started;
      },
    };
    // Every read throttled once the execution has started, for longer than the call may wait.
    const dying = realStore({ operations: ['GetItemCommand'], now: () => executionArn !== '' });
    const call = service({
      store: dying,
      executor: capturing,
      settings: { directCallTimeoutMs: 1_000 },
    }).runToCompletion('store-dies', 'analyze_documents', {
      documents: ['x'],
      reviewSeconds: 60,
    });
    await expect(call).rejects.toMatchObject({ name: 'ProvisionedThroughputExceededException' });
    expect(await executor.describe(executionArn)).toMatchObject({ status: 'ABORTED', error: 'TaskAbandoned' });
  });

  it('rides out reads failing for a while after the create: the waiting caller still gets its result', async () => {
    let failUntil = Number.POSITIVE_INFINITY;
    const flaky = realStore({ operations: ['GetItemCommand'], now: () => Date.now() < failUntil });
    const task = await service().createTask(textStats('reads-fail'));
    failUntil = Date.now() + 1_500;
    const done = await service({ store: flaky }).waitForTerminal('reads-fail', task.taskId, {
      timeoutMs: GENEROUS_WAIT.timeout,
    });
    expect(Date.now()).toBeGreaterThanOrEqual(failUntil);
    expect(done.status).toBe('completed');
    expect(await executionCount('text_stats', task.executionArn)).toBe(1);
  });

  it('answers a poll with the stored task while the refresh claim cannot be written', async () => {
    const noWrites = realStore({ operations: ['UpdateItemCommand'], now: () => true });
    const task = await service().createTask(textStats('claims-fail'));
    await expect(service({ store: noWrites }).getTask('claims-fail', task.taskId)).resolves.toMatchObject({
      taskId: task.taskId,
      status: 'submitted',
    });
  });
});
