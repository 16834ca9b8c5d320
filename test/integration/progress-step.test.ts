// The progress step against DynamoDB Local through the real AWS SDK: what it records on a task, and every
// report it must drop (late, after the end, for an execution that is not the task's).
import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { RetentionClock, TaskOrigin, type TaskRecord } from '../../lambda/core/task.js';
import { TaskStatus } from '../../lambda/core/task-status.js';
import { executionNameFor, newExecutionNonce, taskKey } from '../../lambda/core/task-key.js';
import { statusMessageOf } from '../../lambda/core/task-progress.js';
import { createProgressHandler } from '../../lambda/handlers/report-progress.js';
import { InvalidProgressReportError } from '../../lambda/progress/progress-recording.js';
import { DynamoDbTaskStore } from '../../lambda/store/dynamodb-task-store.js';
import { createTestTable, localAwsClients } from '../support/local-backend.js';

let tableName: string;
let report: ReturnType<typeof createProgressHandler>;
let store: DynamoDbTaskStore;

beforeAll(async () => {
  tableName = await createTestTable();
  report = createProgressHandler(tableName, localAwsClients().dynamoDb);
  store = new DynamoDbTaskStore({ client: DynamoDBDocumentClient.from(localAwsClients().dynamoDb), tableName });
});

/** A stored working task whose execution name carries its key, as the task service makes it. */
async function storedTask(overrides: Partial<TaskRecord> = {}): Promise<TaskRecord> {
  const owner = `owner-${randomUUID()}`;
  const taskId = randomUUID();
  const now = Date.now();
  const task: TaskRecord = {
    taskId,
    owner,
    toolName: 'analyze_documents',
    origin: TaskOrigin.Mcp20251125,
    executionArn:
      'arn:aws:states:us-east-1:000000000000:execution:analyze-documents:' +
      executionNameFor(taskKey(owner, taskId), newExecutionNonce()),
    status: TaskStatus.Working,
    createdAt: now,
    lastUpdatedAt: now,
    retention: { ms: 600_000, clock: RetentionClock.FromCreation },
    pollIntervalMs: 1_000,
    inputDigest: 'digest',
    ...overrides,
  };
  await store.create(task);
  return task;
}

const reread = async (task: TaskRecord): Promise<TaskRecord> => (await store.get(task.owner, task.taskId))!;

describe('progress step', () => {
  it('records a message, count and total that tasks/get shows as the status message', async () => {
    const task = await storedTask();
    expect(
      await report({
        execution: task.executionArn,
        message: 'Analysed {progress} of {total} documents',
        progress: 3,
        total: 5,
      }),
    ).toEqual({ recorded: true });
    const stored = await reread(task);
    expect(stored.progress).toMatchObject({
      message: 'Analysed {progress} of {total} documents',
      progress: 3,
      total: 5,
    });
    expect(statusMessageOf(stored)).toBe('Analysed 3 of 5 documents');
    expect(stored.lastUpdatedAt).toBeGreaterThanOrEqual(task.lastUpdatedAt);
  });

  it('adds up increments that reporters send concurrently, losing none', async () => {
    const task = await storedTask();
    const reports = Array.from({ length: 20 }, () =>
      report({
        execution: task.executionArn,
        message: 'Analysed {progress} of {total} documents',
        increment: 1,
        total: 20,
      }),
    );
    expect(await Promise.all(reports)).toEqual(Array.from({ length: 20 }, () => ({ recorded: true })));
    expect(statusMessageOf(await reread(task))).toBe('Analysed 20 of 20 documents');
  });

  it('drops a count that arrives after a higher one', async () => {
    const task = await storedTask();
    await report({ execution: task.executionArn, progress: 4, total: 5 });
    expect(await report({ execution: task.executionArn, progress: 2, total: 5 })).toEqual({ recorded: false });
    expect((await reread(task)).progress).toMatchObject({ progress: 4, total: 5 });
  });

  it('drops a message older than the one stored', async () => {
    const task = await storedTask();
    await report({ execution: task.executionArn, message: 'Waiting for review', at: '2026-01-01T00:00:10.000Z' });
    expect(
      await report({ execution: task.executionArn, message: 'Analysing', at: '2026-01-01T00:00:05.000Z' }),
    ).toEqual({ recorded: false });
    expect(statusMessageOf(await reread(task))).toBe('Waiting for review');
  });

  it('ignores a report once the task is finished, and shows no progress for it', async () => {
    const task = await storedTask();
    await report({ execution: task.executionArn, message: 'Half way', progress: 1, total: 2 });
    await store.update(task, { status: TaskStatus.Completed, output: '{}', at: Date.now() });
    expect(await report({ execution: task.executionArn, message: 'Too late', progress: 2, total: 2 })).toEqual({
      recorded: false,
    });
    const stored = await reread(task);
    expect(stored.progress?.message).toBe('Half way');
    expect(statusMessageOf(stored)).toBeUndefined();
  });

  it('ignores executions that are not the task’s own, and foreign executions', async () => {
    const task = await storedTask();
    const otherRun = task.executionArn.replace(/-[0-9a-f]{10}$/, '-0000000000');
    expect(await report({ execution: otherRun, message: 'Not mine' })).toEqual({ recorded: false });
    expect(
      await report({
        execution: 'arn:aws:states:us-east-1:000000000000:execution:analyze-documents:someone-elses-run',
        message: 'Foreign',
      }),
    ).toEqual({ recorded: false });
    expect((await reread(task)).progress).toBeUndefined();
  });

  it('does not fail the workflow when the table cannot take the report', async () => {
    const task = await storedTask();
    const unreachable = createProgressHandler('no-such-table', localAwsClients().dynamoDb);
    expect(await unreachable({ execution: task.executionArn, message: 'Lost' })).toEqual({ recorded: false });
  });

  it('refuses a payload without the execution ARN or with a negative count', async () => {
    await expect(report({ message: 'No execution' })).rejects.toBeInstanceOf(InvalidProgressReportError);
    const task = await storedTask();
    await expect(report({ execution: task.executionArn, progress: -1 })).rejects.toBeInstanceOf(
      InvalidProgressReportError,
    );
  });
});
