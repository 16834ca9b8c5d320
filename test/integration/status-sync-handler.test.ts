// The deployed status-sync Lambda handler, fed real "Step Functions Execution Status Change" events, on the local
// stack.
import { randomUUID } from 'node:crypto';
import { DescribeExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { TaskOrigin, toolResultOf, type TaskRecord } from '../../lambda/core/task.js';
import { TaskStatus } from '../../lambda/core/task-status.js';
import { createBackend, type Backend } from '../../lambda/handlers/backend.js';
import { ENV } from '../../lambda/contract/environment-names.js';
import { DEFAULT_SETTINGS } from '../../lambda/service/settings.js';
import { localAwsEnvironment } from '../../local/local-aws.js';
import { createTestTable, exampleTools, localAwsClients, silentLogger } from '../support/local-backend.js';
import { statusEvent } from '../support/status-change-events.js';
import type { ExecutionStatusChangeEvent } from '../../lambda/handlers/execution-status-event.js';

type Handler = (event: ExecutionStatusChangeEvent) => Promise<void>;

let handler: Handler;
let backend: Backend;
let stepFunctions: SFNClient;

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
  ({ handler } = (await import('../../lambda/handlers/status-sync.js')) as { handler: Handler });
  // The MCP side of the deployment, which creates the tasks whose executions the events report.
  const clients = localAwsClients();
  stepFunctions = clients.stepFunctions;
  backend = createBackend({ tableName, tools: exampleTools(), settings: DEFAULT_SETTINGS }, clients, silentLogger);
});

afterAll(() => stepFunctions?.destroy());

async function newTask(text = 'Status events push task state into DynamoDB.'): Promise<TaskRecord> {
  return backend.service.createTask({
    owner: `owner-${randomUUID()}`,
    toolName: 'text_stats',
    arguments: { text },
    origin: TaskOrigin.Mcp20251125,
  });
}

/** The stored record, read straight from the store: no refresh from Step Functions can hide what the handler wrote. */
async function stored(task: TaskRecord): Promise<TaskRecord> {
  const record = await backend.store.get(task.owner, task.taskId);
  if (record === null) throw new Error(`task ${task.taskId} is gone`);
  return record;
}

async function executionFinished(executionArn: string): Promise<void> {
  for (;;) {
    const { status } = await stepFunctions.send(new DescribeExecutionCommand({ executionArn }));
    if (status !== 'RUNNING') return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Runs `use` with a fresh copy of the handler module built from the environment with `overrides`, restoring the
 * environment afterwards (the SDK reads endpoints from it lazily, at the first request).
 */
async function withHandlerIn<T>(overrides: Record<string, string>, use: (fresh: Handler) => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(overrides).map((name) => [name, process.env[name]]));
  Object.assign(process.env, overrides);
  try {
    vi.resetModules();
    const fresh = ((await import('../../lambda/handlers/status-sync.js')) as { handler: Handler }).handler;
    return await use(fresh);
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

describe('status-sync handler', () => {
  describe('each execution status', () => {
    it('RUNNING moves a submitted task to working', async () => {
      const task = await newTask();
      await handler(statusEvent(task, { status: 'RUNNING' }));
      expect((await stored(task)).status).toBe(TaskStatus.Working);
    });

    it('SUCCEEDED completes the task with the output the event carries, without describing the execution', async () => {
      const task = await newTask();
      // Not what the execution really returns: only the event can have put it in the task.
      await handler(statusEvent(task, { status: 'SUCCEEDED', output: '{"words":42,"from":"event"}' }));
      const record = await stored(task);
      expect(record.status).toBe(TaskStatus.Completed);
      expect(toolResultOf(record)?.structuredContent).toEqual({ words: 42, from: 'event' });
    });

    it('SUCCEEDED with the output dropped from the event completes the task with the output DescribeExecution returns', async () => {
      const task = await newTask('one two three four');
      await executionFinished(task.executionArn);
      await handler(statusEvent(task, { status: 'SUCCEEDED', output: null, outputDetails: { included: false } }));
      const record = await stored(task);
      expect(record.status).toBe(TaskStatus.Completed);
      expect(toolResultOf(record)?.structuredContent).toMatchObject({ words: 4 });
    });

    it('FAILED fails the task, naming the error and its cause', async () => {
      const task = await newTask();
      await handler(
        statusEvent(task, { status: 'FAILED', error: 'UpstreamUnavailable', cause: 'The reporting service is down' }),
      );
      const record = await stored(task);
      expect(record.status).toBe(TaskStatus.Failed);
      expect(record.statusMessage).toContain('UpstreamUnavailable');
      expect(record.statusMessage).toContain('The reporting service is down');
    });

    it('TIMED_OUT fails the task as timed out', async () => {
      const task = await newTask();
      await handler(statusEvent(task, { status: 'TIMED_OUT', error: 'States.Timeout' }));
      const record = await stored(task);
      expect(record.status).toBe(TaskStatus.Failed);
      expect(record.statusMessage).toMatch(/timed out/i);
    });

    it('ABORTED cancels the task', async () => {
      const task = await newTask();
      await handler(
        statusEvent(task, { status: 'ABORTED', error: 'TaskCancelled', cause: 'Stopped from the console' }),
      );
      expect((await stored(task)).status).toBe(TaskStatus.Cancelled);
    });

    it('PENDING_REDRIVE leaves a task that is not finished working', async () => {
      const task = await newTask();
      await handler(statusEvent(task, { status: 'PENDING_REDRIVE' }));
      expect((await stored(task)).status).toBe(TaskStatus.Working);
    });
  });

  describe('delivery', () => {
    it('applies a duplicate event once: the second delivery changes nothing', async () => {
      const task = await newTask();
      const event = statusEvent(task, { status: 'SUCCEEDED', output: '{"words":7}' });
      await handler(event);
      const first = await stored(task);
      await handler(event);
      expect(await stored(task)).toEqual(first);
    });

    it('never lets a late RUNNING event reopen a finished task', async () => {
      const task = await newTask();
      await handler(statusEvent(task, { status: 'SUCCEEDED', output: '{"words":7}' }));
      await handler(statusEvent(task, { status: 'RUNNING' }));
      expect((await stored(task)).status).toBe(TaskStatus.Completed);
    });

    it('never lets a second terminal status overwrite the first', async () => {
      const task = await newTask();
      await handler(statusEvent(task, { status: 'ABORTED', error: 'TaskCancelled' }));
      await handler(statusEvent(task, { status: 'SUCCEEDED', output: '{"words":7}' }));
      const record = await stored(task);
      expect(record.status).toBe(TaskStatus.Cancelled);
      expect(record.output).toBeUndefined();
    });

    it('ignores executions that no task of this backend started', async () => {
      const task = await newTask();
      const foreign = statusEvent(task, { status: 'SUCCEEDED', output: '{}' });
      const executionArn = task.executionArn.replace(/:[^:]+$/, ':nightly-batch-2024-06-01');
      await expect(
        handler({ ...foreign, detail: { ...foreign.detail, executionArn, name: 'nightly-batch-2024-06-01' } }),
      ).resolves.toBeUndefined();
      expect((await stored(task)).status).toBe(TaskStatus.Submitted);
    });

    it('ignores an execution that is not the task’s own, even under the task’s key', async () => {
      const task = await newTask();
      const event = statusEvent(task, { status: 'SUCCEEDED', output: '{}' });
      // Same execution name (so the same task key), another state machine: an older or foreign execution.
      const executionArn = task.executionArn.replace(/:execution:[^:]+:/, ':execution:another-machine:');
      await handler({ ...event, detail: { ...event.detail, executionArn } });
      expect((await stored(task)).status).toBe(TaskStatus.Submitted);
    });

    it('ignores an execution whose task has been deleted', async () => {
      const task = await newTask();
      await backend.store.delete(task.owner, task.taskId);
      await expect(handler(statusEvent(task, { status: 'SUCCEEDED', output: '{}' }))).resolves.toBeUndefined();
      expect(await backend.store.get(task.owner, task.taskId)).toBeNull();
    });
  });

  describe('failures (Lambda retries, then the dead-letter queue)', () => {
    it('rejects when DynamoDB fails, so the event is retried rather than dropped', async () => {
      const task = await newTask();
      const event = statusEvent(task, { status: 'SUCCEEDED', output: '{"words":7}' });
      await withHandlerIn({ [ENV.tableName]: `no-such-table-${randomUUID()}` }, async (fresh) => {
        await expect(fresh(event)).rejects.toThrow(/resource not found|ResourceNotFound|non-existent table/i);
      });
      expect((await stored(task)).status).toBe(TaskStatus.Submitted);
    });

    it('rejects when DescribeExecution fails for an output left out of the event, leaving the task to the retry', async () => {
      const task = await newTask('one two three four');
      await executionFinished(task.executionArn);
      const event = statusEvent(task, { status: 'SUCCEEDED', output: null, outputDetails: { included: false } });
      // Nothing listens on port 9 (discard) locally: every attempt is refused.
      await withHandlerIn({ AWS_ENDPOINT_URL_SFN: 'http://127.0.0.1:9' }, async (fresh) => {
        await expect(fresh(event)).rejects.toThrow(/ECONNREFUSED|connect/i);
      });
      expect((await stored(task)).status).not.toBe(TaskStatus.Completed);
      // The retry, with Step Functions reachable again, applies it.
      await handler(event);
      expect(toolResultOf(await stored(task))?.structuredContent).toMatchObject({ words: 4 });
    });
  });
});
