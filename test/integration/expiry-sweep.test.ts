// The expiry sweep over DynamoDB Local and the Step Functions emulator, through the real AWS SDK clients. The sweep's
// clock is injected, so a task's retention "ends" without waiting for it; faults are injected only where the
// stand-ins cannot produce them (a store that fails on one task).
import { randomUUID } from 'node:crypto';
import { DescribeExecutionCommand } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { TaskOrigin, type TaskRecord } from '../../lambda/core/task.js';
import { isTerminal, TaskStatus } from '../../lambda/core/task-status.js';
import { taskKey } from '../../lambda/core/task-key.js';
import { StepFunctionsExecutor } from '../../lambda/executor/step-functions-executor.js';
import type { TaskExecutor } from '../../lambda/executor/task-executor.js';
import { AuditEvent } from '../../lambda/core/audit-event.js';
import type { AuditRecord } from '../../lambda/service/audit.js';
import { EXPIRED_STATUS_MESSAGE, ExpirySweep } from '../../lambda/service/expiry-sweep-service.js';
import { DEFAULT_SETTINGS } from '../../lambda/service/settings.js';
import type { Logger } from '../../lambda/core/logger.js';
import { TaskService } from '../../lambda/service/task-service.js';
import { DynamoDbExpirySweepStore } from '../../lambda/store/dynamodb-expiry-sweep-store.js';
import { DynamoDbOwnerQuotas } from '../../lambda/store/dynamodb-owner-quotas.js';
import { DynamoDbTaskStore } from '../../lambda/store/dynamodb-task-store.js';
import type { ExpiredTask, ExpirySweepStore } from '../../lambda/store/expiry-sweep-store.js';
import {
  ACTIVE_EXPIRY_PARTITION_KEY,
  CHECK_DUE_PARTITION_KEY,
  PARTITION_KEY,
} from '../../lambda/contract/task-table-schema.js';
import { activeTasksKey } from '../../lambda/store/task-table-keys.js';
import { ToolRegistry } from '../../lambda/tools/tool-registry.js';
import {
  createTestTable,
  exampleTools,
  GENEROUS_WAIT,
  localAwsClients,
  silentLogger,
} from '../support/local-backend.js';

const clients = localAwsClients();
const documents = DynamoDBDocumentClient.from(clients.dynamoDb);
const executor = new StepFunctionsExecutor({ client: clients.stepFunctions });

/** A logger that keeps the audit records, so a test can count them. */
function auditLog(): { logger: Logger; records: AuditRecord[] } {
  const records: AuditRecord[] = [];
  const logger = {
    ...silentLogger,
    info: (message: string, extra: Record<string, unknown>) =>
      void (message === 'audit' && records.push(extra['audit'] as AuditRecord)),
  };
  return { logger, records };
}

/**
 * A fresh table (a sweep reads the whole table, so tests must not see each other's tasks), a task service and sweeps on
 * it.
 */
async function fixture() {
  const tableName = await createTestTable();
  const store = new DynamoDbTaskStore({ client: documents, tableName });
  const quotas = new DynamoDbOwnerQuotas({ client: documents, tableName, tasks: store });
  const service = new TaskService({
    store,
    quotas,
    executor,
    tools: new ToolRegistry(exampleTools()),
    settings: { ...DEFAULT_SETTINGS, pollIntervalMs: 100 },
    logger: silentLogger,
  });
  const sweepStore = new DynamoDbExpirySweepStore({ client: documents, tableName });
  const sweep = (parts: { at: number; executor?: TaskExecutor; store?: ExpirySweepStore; logger?: Logger }) =>
    new ExpirySweep({
      store: parts.store ?? sweepStore,
      slots: quotas,
      executor: parts.executor ?? executor,
      logger: parts.logger ?? silentLogger,
      clock: { now: () => parts.at },
    });
  const item = async (task: TaskRecord) =>
    (
      await documents.send(
        new GetCommand({
          TableName: tableName,
          Key: { [PARTITION_KEY]: taskKey(task.owner, task.taskId) },
          ConsistentRead: true,
        }),
      )
    ).Item;
  const activeSlots = async (owner: string) => [
    ...(((
      await documents.send(
        new GetCommand({ TableName: tableName, Key: { [PARTITION_KEY]: activeTasksKey(owner) }, ConsistentRead: true }),
      )
    ).Item?.['activeTasks'] as Set<string> | undefined) ?? []),
  ];
  return { service, sweepStore, sweep, item, activeSlots };
}

type Fixture = Awaited<ReturnType<typeof fixture>>;

/** The reproduction: a slow tool (a 240 s review window) with a short ttl, left unread. */
function slowTask(f: Fixture, ttlMs = 1_000, owner = `owner-${randomUUID()}`): Promise<TaskRecord> {
  return f.service.createTask({
    owner,
    toolName: 'analyze_documents',
    arguments: { documents: ['one two three'], reviewSeconds: 240 },
    origin: TaskOrigin.Mcp20251125,
    requestedRetentionMs: ttlMs,
  });
}

async function executionStatus(executionArn: string): Promise<string | undefined> {
  return (await clients.stepFunctions.send(new DescribeExecutionCommand({ executionArn }))).status;
}

/** The executor, counting the stops it is asked for per execution. */
function countingStops(): { executor: TaskExecutor; stops: Map<string, number> } {
  const stops = new Map<string, number>();
  const counting: TaskExecutor = {
    executionArnFor: (workflow, name) => executor.executionArnFor(workflow, name),
    start: (request) => executor.start(request),
    describe: (arn) => executor.describe(arn),
    currentStep: (arn) => executor.currentStep(arn),
    resume: (arn, token, output) => executor.resume(arn, token, output),
    stop: async (arn, reason) => {
      stops.set(arn, (stops.get(arn) ?? 0) + 1);
      await executor.stop(arn, reason);
    },
  };
  return { executor: counting, stops };
}

describe('ExpirySweep', () => {
  it('stops the execution of a task that expired unread, finishes the task cancelled and frees its active slot', async () => {
    const f = await fixture();
    const task = await slowTask(f);
    await vi.waitUntil(async () => (await executionStatus(task.executionArn)) === 'RUNNING', GENEROUS_WAIT);
    const { logger, records } = auditLog();

    const report = await f.sweep({ at: task.createdAt + 1_000, logger }).run();

    expect(report).toMatchObject({ found: 1, expired: 1, failed: 0 });
    await vi.waitUntil(async () => (await executionStatus(task.executionArn)) === 'ABORTED', GENEROUS_WAIT);
    const stored = await f.item(task);
    // Its TTL back at its end: nothing is left running, so DynamoDB may delete it.
    expect(stored).toMatchObject({
      status: TaskStatus.Cancelled,
      statusMessage: EXPIRED_STATUS_MESSAGE,
      expiresAt: Math.ceil((task.createdAt + 1_000) / 1000),
    });
    expect(stored?.[ACTIVE_EXPIRY_PARTITION_KEY]).toBeUndefined();
    expect(stored?.[CHECK_DUE_PARTITION_KEY]).toBeUndefined();
    expect(await f.activeSlots(task.owner)).not.toContain(taskKey(task.owner, task.taskId));
    expect(records).toEqual([
      {
        event: AuditEvent.Expired,
        owner: task.owner,
        taskId: task.taskId,
        tool: 'analyze_documents',
        outcome: TaskStatus.Cancelled,
      },
    ]);
  });

  it('leaves an active task whose retention has not ended alone', async () => {
    const f = await fixture();
    const task = await slowTask(f, 60_000);

    const report = await f.sweep({ at: task.createdAt + 59_999 }).run();

    expect(report.found).toBe(0);
    expect(await executionStatus(task.executionArn)).toBe('RUNNING');
    expect(await f.item(task)).toMatchObject({ status: task.status, lastUpdatedAt: task.lastUpdatedAt });
    await f.service.cancelTask(task.owner, task.taskId);
  });

  it('never touches a terminal task, however long ago it expired', async () => {
    const f = await fixture();
    const owner = `owner-${randomUUID()}`;
    const task = await f.service.createTask({
      owner,
      toolName: 'text_stats',
      arguments: { text: 'Done before it expires.' },
      origin: TaskOrigin.Mcp20251125,
      requestedRetentionMs: 60_000,
    });
    // Its end recorded as a status event records it (a poll reads only the table).
    await vi.waitUntil(async () => {
      const recorded = await f.service.recordExecutionEvent(task.executionArn, 'describe');
      return recorded !== null && isTerminal(recorded.status);
    }, GENEROUS_WAIT);
    const finished = await f.item(task);
    expect(finished?.[ACTIVE_EXPIRY_PARTITION_KEY]).toBeUndefined();
    expect(finished?.[CHECK_DUE_PARTITION_KEY]).toBeUndefined();
    const { executor: counting, stops } = countingStops();

    const report = await f.sweep({ at: task.createdAt + 24 * 60 * 60 * 1000, executor: counting }).run();

    expect(report.found).toBe(0);
    expect(stops.size).toBe(0);
    expect(await f.item(task)).toEqual(finished);
  });

  it('never finds a task whose retention runs from completion while it is active (it has no end yet)', async () => {
    const f = await fixture();
    const owner = `owner-${randomUUID()}`;
    const task = await f.service.createTask({
      owner,
      toolName: 'analyze_documents',
      arguments: { documents: ['a'], reviewSeconds: 240 },
      origin: TaskOrigin.Sep1686,
      taskId: 'keep-alive',
      requestedRetentionMs: 1_000,
    });

    expect((await f.sweep({ at: task.createdAt + 24 * 60 * 60 * 1000 }).run()).found).toBe(0);
    expect(await executionStatus(task.executionArn)).toBe('RUNNING');
    await f.service.cancelTask(owner, task.taskId);
  });

  it('stops each execution once and finishes each task once when two sweeps run at the same time', async () => {
    const f = await fixture();
    const tasks = await Promise.all([slowTask(f), slowTask(f), slowTask(f)]);
    const at = Math.max(...tasks.map((task) => task.createdAt)) + 1_000;
    const first = countingStops();
    const second = countingStops();
    const { logger, records } = auditLog();

    const reports = await Promise.all([
      f.sweep({ at, executor: first.executor, logger }).run(),
      f.sweep({ at, executor: second.executor, logger }).run(),
    ]);

    expect(reports[0]!.expired + reports[1]!.expired).toBe(3);
    for (const task of tasks) {
      expect((first.stops.get(task.executionArn) ?? 0) + (second.stops.get(task.executionArn) ?? 0)).toBe(1);
      expect(await executionStatus(task.executionArn)).toBe('ABORTED');
    }
    expect(records.map((record) => record.taskId).sort()).toEqual(tasks.map((task) => task.taskId).sort());
  });

  it('goes on with the other tasks when the store fails on one, and a later run finishes that one', async () => {
    const f = await fixture();
    const [failing, other] = await Promise.all([slowTask(f), slowTask(f)]);
    const at = Math.max(failing!.createdAt, other!.createdAt) + 1_000;
    // The store fails on the final write of one task, after its claim and its stop: the claim holds it for a while.
    const faulty: ExpirySweepStore = {
      findExpiredActive: (now, limit) => f.sweepStore.findExpiredActive(now, limit),
      claim: (task, now, until) => f.sweepStore.claim(task, now, until),
      finish: (task: ExpiredTask, change) =>
        task.taskId === failing!.taskId
          ? Promise.reject(new Error('ProvisionedThroughputExceededException'))
          : f.sweepStore.finish(task, change),
    };

    const report = await f.sweep({ at, store: faulty }).run();

    expect(report).toMatchObject({ found: 2, expired: 1, failed: 1 });
    expect(await f.item(other!)).toMatchObject({ status: TaskStatus.Cancelled });
    expect(await f.item(failing!)).toMatchObject({ status: failing!.status });
    // Within the claim, another run leaves the task to the one that holds it; once the claim lapses, it is finished.
    expect(await f.sweep({ at }).run()).toMatchObject({ found: 1, expired: 0, skipped: 1 });
    expect(await f.sweep({ at: at + 60_000 }).run()).toMatchObject({ found: 1, expired: 1 });
    expect(await f.item(failing!)).toMatchObject({ status: TaskStatus.Cancelled });
  });

  it('starts no task once its deadline has passed, leaving them for the next run', async () => {
    const f = await fixture();
    const task = await slowTask(f);
    const at = task.createdAt + 1_000;
    const { executor: counting, stops } = countingStops();

    expect(await f.sweep({ at, executor: counting }).run({ deadline: at })).toMatchObject({
      found: 1,
      expired: 0,
      deferred: 1,
    });
    expect(stops.size).toBe(0);
    expect(await f.sweep({ at }).run({ deadline: at + 1 })).toMatchObject({ found: 1, expired: 1 });
  });

  it('handles at most maxTasksPerRun tasks in one run, the earliest expired first', async () => {
    const f = await fixture();
    const tasks = await Promise.all([slowTask(f, 1_000), slowTask(f, 2_000), slowTask(f, 3_000)]);
    const at = Math.max(...tasks.map((task) => task.createdAt)) + 3_000;
    const bounded = (run: number) =>
      new ExpirySweep({
        store: f.sweepStore,
        slots: { releaseActiveSlot: async () => {} },
        executor,
        logger: silentLogger,
        clock: { now: () => at + run },
        settings: { maxTasksPerRun: 2 },
      });

    expect(await bounded(0).run()).toMatchObject({ found: 2, expired: 2 });
    expect((await f.item(tasks[2]!))?.['status']).not.toBe(TaskStatus.Cancelled);
    expect(await bounded(1).run()).toMatchObject({ found: 1, expired: 1 });
  });
});
