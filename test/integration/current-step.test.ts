// A refresh of a running task reads the state its execution is in, over DynamoDB Local and the emulator:
// stored once per change, never a write when it stands still, and never a failed poll when the history cannot be read.
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { TaskOrigin } from '../../lambda/core/task.js';
import { StepFunctionsExecutor } from '../../lambda/executor/step-functions-executor.js';
import type { TaskExecutor } from '../../lambda/executor/task-executor.js';
import { DEFAULT_SETTINGS } from '../../lambda/service/settings.js';
import { TaskService, type Logger } from '../../lambda/service/task-service.js';
import { DynamoDbTaskStore } from '../../lambda/store/dynamodb-task-store.js';
import type { TaskStore } from '../../lambda/store/task-store.js';
import { ToolRegistry } from '../../lambda/tools/tool-registry.js';
import { bind } from '../support/bind-methods.js';
import {
  createTestTable,
  exampleTools,
  GENEROUS_WAIT,
  localAwsClients,
  silentLogger,
} from '../support/local-backend.js';

let tableName: string;
beforeAll(async () => {
  tableName = await createTestTable();
});

// One clock for the service and the store, moved on by the test: each poll below is due for a refresh.
let clock = Date.now();
const now = (): number => clock;
const realStore = (): TaskStore =>
  new DynamoDbTaskStore({ client: DynamoDBDocumentClient.from(localAwsClients().dynamoDb), tableName, now });
const realExecutor = (): TaskExecutor => new StepFunctionsExecutor({ client: localAwsClients().stepFunctions });

function service(parts: { store?: TaskStore; executor?: TaskExecutor; logger?: Logger }): TaskService {
  return new TaskService({
    now,
    store: parts.store ?? realStore(),
    executor: parts.executor ?? realExecutor(),
    tools: new ToolRegistry(exampleTools()),
    settings: { ...DEFAULT_SETTINGS, pollIntervalMs: 100, refreshIntervalMs: 100 },
    logger: parts.logger ?? silentLogger,
  });
}

// analyze_documents with a long review window ends up waiting in RequestedReviewWindow.
const reviewing = (owner: string) => ({
  owner,
  toolName: 'analyze_documents',
  arguments: { documents: ['one two three'], reviewSeconds: 600 },
  origin: TaskOrigin.Mcp20251125,
});

describe('the current step of a running task', { timeout: 90_000 }, () => {
  it('is stored when a refresh finds it changed, and not written again while it stands still', async () => {
    const store = realStore();
    let writes = 0;
    let refreshes = 0;
    const counting: TaskStore = {
      ...bind(store),
      recordCurrentStep: async (task, step) => (writes++, store.recordCurrentStep(task, step)),
    };
    const executor = realExecutor();
    const describing: TaskExecutor = {
      ...bind(executor),
      describe: async (arn) => (refreshes++, executor.describe(arn)),
    };
    const tasks = service({ store: counting, executor: describing });
    const task = await tasks.createTask(reviewing('stepper'));
    const poll = async () => ((clock += 1_000), tasks.getTask('stepper', task.taskId));
    await vi.waitUntil(async () => (await poll()).currentStep === 'RequestedReviewWindow', GENEROUS_WAIT);
    expect((await store.get('stepper', task.taskId))?.currentStep).toBe('RequestedReviewWindow');
    const [writesBefore, refreshesBefore] = [writes, refreshes];
    for (let index = 0; index < 3; index++) expect((await poll()).currentStep).toBe('RequestedReviewWindow');
    expect(refreshes).toBe(refreshesBefore + 3);
    expect(writes).toBe(writesBefore);
    await tasks.cancelTask('stepper', task.taskId);
  });

  it('never fails a poll: a history that cannot be read is logged and the status still moves on', async () => {
    const warnings: string[] = [];
    const logger: Logger = { ...silentLogger, warn: (message: string) => void warnings.push(message) };
    const noHistory: TaskExecutor = {
      ...bind(realExecutor()),
      currentStep: async () => Promise.reject(new Error('AccessDeniedException')),
    };
    const tasks = service({ executor: noHistory, logger });
    const task = await tasks.createTask(reviewing('no-history'));
    await vi.waitUntil(
      async () => ((clock += 1_000), (await tasks.getTask('no-history', task.taskId)).status === 'working'),
      GENEROUS_WAIT,
    );
    expect(warnings).toContain('Could not read the current step');
    expect((await realStore().get('no-history', task.taskId))?.currentStep).toBeUndefined();
    await tasks.cancelTask('no-history', task.taskId);
  });
});
