// The current step of a running task, read by the reconciler's check from a real execution's history on the emulator
// (GetExecutionHistory, newest first) and stored in DynamoDB Local. When it is written, and that a check never fails
// over it, is specified by the unit tests in test/unit/service/current-step-recording.test.ts.
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { SYSTEM_CLOCK } from '../../lambda/core/clock.js';
import { MAX_CHECK_INTERVAL_MS, TaskOrigin } from '../../lambda/core/task.js';
import { StepFunctionsExecutor } from '../../lambda/executor/step-functions-executor.js';
import { DEFAULT_SETTINGS } from '../../lambda/service/settings.js';
import { TaskService } from '../../lambda/service/task-service.js';
import { DynamoDbOwnerQuotas } from '../../lambda/store/dynamodb-owner-quotas.js';
import { DynamoDbTaskStore } from '../../lambda/store/dynamodb-task-store.js';
import { ToolRegistry } from '../../lambda/tools/tool-registry.js';
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

describe('the current step of a running task', { timeout: 90_000 }, () => {
  it('is the state the execution waits in, read from its history and stored with the task', async () => {
    // One clock for the service and the store, moved on by the test: each check below is due.
    let clock = Date.now();
    const now = (): number => clock;
    const client = DynamoDBDocumentClient.from(localAwsClients().dynamoDb);
    const store = new DynamoDbTaskStore({ client, tableName, clock: { now } });
    const tasks = new TaskService({
      clock: { ...SYSTEM_CLOCK, now },
      store,
      quotas: new DynamoDbOwnerQuotas({ client, tableName, tasks: store }),
      executor: new StepFunctionsExecutor({ client: localAwsClients().stepFunctions }),
      tools: new ToolRegistry(exampleTools()),
      settings: { ...DEFAULT_SETTINGS, pollIntervalMs: 100 },
      logger: silentLogger,
    });
    // analyze_documents with a long review window ends up waiting in RequestedReviewWindow.
    const task = await tasks.createTask({
      owner: 'stepper',
      toolName: 'analyze_documents',
      arguments: { documents: ['one two three'], reviewSeconds: 600 },
      origin: TaskOrigin.Mcp20251125,
    });
    const check = async () => {
      clock += MAX_CHECK_INTERVAL_MS;
      await tasks.reconcileDue({ maxChecks: 100 });
      return tasks.getTask('stepper', task.taskId);
    };
    await vi.waitUntil(async () => (await check()).currentStep === 'RequestedReviewWindow', GENEROUS_WAIT);
    expect(await store.get('stepper', task.taskId)).toMatchObject({
      status: 'working',
      currentStep: 'RequestedReviewWindow',
    });
    await tasks.cancelTask('stepper', task.taskId);
  });
});
