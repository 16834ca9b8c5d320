// The deployed expiry-sweep Lambda handler and the local stack's sweep timer, on the local stand-ins with the real
// clock: a task with the shortest ttl on a slow tool, left unread, has its execution stopped.
import { randomUUID } from 'node:crypto';
import { DescribeExecutionCommand } from '@aws-sdk/client-sfn';
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { TaskOrigin, type TaskRecord } from '../../lambda/core/task.js';
import { createBackend, type Backend } from '../../lambda/handlers/backend.js';
import { ENV } from '../../lambda/contract/environment-names.js';
import { createExpirySweep } from '../../lambda/handlers/expiry-sweep-core.js';
import type { ExpirySweepReport } from '../../lambda/service/expiry-sweep-service.js';
import { DEFAULT_SETTINGS } from '../../lambda/service/settings.js';
import { startScheduleTimer } from '../../local/schedule-timer.js';
import { localAwsEnvironment } from '../../local/local-aws.js';
import {
  createTestTable,
  exampleTools,
  GENEROUS_WAIT,
  localAwsClients,
  silentLogger,
} from '../support/local-backend.js';

type Handler = (event: unknown, context: { getRemainingTimeInMillis(): number }) => Promise<ExpirySweepReport>;

const clients = localAwsClients();

async function backendOn(tableName: string): Promise<Backend> {
  return createBackend({ tableName, tools: exampleTools(), settings: DEFAULT_SETTINGS }, clients, silentLogger);
}

/** The reproduction: `analyze_documents` with a 240 s review window and the shortest ttl, never read again. */
function unreadSlowTask(backend: Backend): Promise<TaskRecord> {
  return backend.service.createTask({
    owner: `owner-${randomUUID()}`,
    toolName: 'analyze_documents',
    arguments: { documents: ['left unread'], reviewSeconds: 240 },
    origin: TaskOrigin.Mcp20251125,
    requestedRetentionMs: 1_000,
  });
}

async function executionStatus(executionArn: string): Promise<string | undefined> {
  return (await clients.stepFunctions.send(new DescribeExecutionCommand({ executionArn }))).status;
}

describe('expiry-sweep Lambda handler', () => {
  let handler: Handler;
  let backend: Backend;

  beforeAll(async () => {
    const tableName = await createTestTable();
    // The environment the construct gives the function; the SDK reaches the stand-ins through AWS_ENDPOINT_URL_*.
    Object.assign(process.env, {
      ...localAwsEnvironment({
        dynamoDbEndpoint: inject('dynamoDbEndpoint'),
        stepFunctionsEndpoint: inject('stepFunctionsEndpoint'),
      }),
      [ENV.tableName]: tableName,
    });
    ({ handler } = (await import('../../lambda/handlers/expiry-sweep.js')) as { handler: Handler });
    backend = await backendOn(tableName);
  });

  it('stops the execution of a task once its ttl has passed unread, and reports it', async () => {
    const task = await unreadSlowTask(backend);
    let report: ExpirySweepReport | undefined;
    await vi.waitUntil(async () => {
      report = await handler({}, { getRemainingTimeInMillis: () => 60_000 });
      return report.found > 0;
    }, GENEROUS_WAIT);

    expect(report).toMatchObject({ found: 1, expired: 1, failed: 0 });
    expect(await executionStatus(task.executionArn)).toBe('ABORTED');
    // Gone to clients, as before the sweep; the next run finds nothing left to do.
    await expect(backend.service.getTask(task.owner, task.taskId)).rejects.toThrow(/expired/i);
    expect(await handler({}, { getRemainingTimeInMillis: () => 60_000 })).toMatchObject({ found: 0 });
  });
});

describe('local expiry sweep timer', () => {
  it('runs the sweep until stopped, so an unread task’s execution is stopped on the local stack too', async () => {
    const tableName = await createTestTable();
    const backend = await backendOn(tableName);
    const errors: unknown[] = [];
    const sweep = createExpirySweep({ tableName }, clients, silentLogger);
    const timer = startScheduleTimer(() => sweep.run(), {
      intervalMs: 100,
      onError: (error) => errors.push(error),
    });
    try {
      const task = await unreadSlowTask(backend);
      await vi.waitUntil(async () => (await executionStatus(task.executionArn)) === 'ABORTED', GENEROUS_WAIT);
    } finally {
      await timer.stop();
    }
    expect(errors).toEqual([]);
  });
});
