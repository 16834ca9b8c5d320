import { describe, expect, it } from 'vitest';
import { RetentionClock, TaskOrigin, type TaskRecord } from '../../../lambda/core/task.js';
import { TaskStatus } from '../../../lambda/core/task-status.js';
import { toCreateTaskResult, toDetailedTask } from '../../../lambda/protocol/tasks-extension.js';

const CREATED = Date.UTC(2026, 6, 28, 10, 30);

function task(overrides: Partial<TaskRecord> = {}): TaskRecord {
  return {
    taskId: 'a1',
    owner: 'alice',
    toolName: 'text_stats',
    origin: TaskOrigin.TasksExtension,
    executionArn: 'arn:aws:states:us-east-1:123456789012:execution:m:task-x',
    status: TaskStatus.Working,
    createdAt: CREATED,
    lastUpdatedAt: CREATED + 1_000,
    retention: { ms: 60_000, clock: RetentionClock.FromCreation },
    pollIntervalMs: 2_000,
    inputDigest: 'd',
    ...overrides,
  };
}

describe('the Tasks extension wire shapes', () => {
  it('answers a created task flat, with resultType "task" and integer ttlMs and pollIntervalMs, and no payload', () => {
    expect(toCreateTaskResult(task({ status: TaskStatus.Submitted }))).toEqual({
      resultType: 'task',
      taskId: 'a1',
      status: 'working',
      createdAt: '2026-07-28T10:30:00.000Z',
      lastUpdatedAt: '2026-07-28T10:30:01.000Z',
      ttlMs: 60_000,
      pollIntervalMs: 2_000,
    });
  });

  it('carries an active task’s progress in _meta["mcp-tasks-sfn/progress"], count and total beside the statusMessage', () => {
    const progress = { message: 'Analysed {progress} of {total} documents', progress: 2, total: 5, at: CREATED };
    expect(toDetailedTask(task({ progress }), undefined)).toMatchObject({
      statusMessage: 'Analysed 2 of 5 documents',
      _meta: { 'mcp-tasks-sfn/progress': { statusMessage: 'Analysed 2 of 5 documents', progress: 2, total: 5 } },
    });
    expect(toDetailedTask(task({ currentStep: 'Compute' }), undefined)['_meta']).toEqual({
      'mcp-tasks-sfn/progress': { statusMessage: 'Running Compute' },
    });
    // A finished task's progress is history: no _meta at all.
    expect(toDetailedTask(task({ status: TaskStatus.Completed, progress }), { content: [] })).not.toHaveProperty(
      '_meta',
    );
  });

  it('inlines the tool result of a completed task, a tool error included, as the request would have answered it', () => {
    const result = { content: [{ type: 'text' as const, text: 'no words' }], isError: true };
    expect(toDetailedTask(task({ status: TaskStatus.Completed, toolError: true }), result)).toMatchObject({
      status: 'completed',
      result: { ...result, resultType: 'complete' },
    });
  });

  it('shows a failed execution as failed with a JSON-RPC error and no result', () => {
    const detailed = toDetailedTask(
      task({ status: TaskStatus.Failed, statusMessage: 'States.TaskFailed: upstream down' }),
      undefined,
    );
    expect(detailed).toMatchObject({
      status: 'failed',
      statusMessage: 'States.TaskFailed: upstream down',
      error: { code: -32603, message: 'States.TaskFailed: upstream down' },
    });
    expect(detailed).not.toHaveProperty('result');
  });

  it('shows an execution in a state nobody knows as failed, and a cancelled task with neither result nor error', () => {
    expect(toDetailedTask(task({ status: TaskStatus.Unknown }), undefined)).toMatchObject({
      status: 'failed',
      error: { code: -32603 },
    });
    const cancelled = toDetailedTask(task({ status: TaskStatus.Cancelled }), undefined);
    expect(cancelled['status']).toBe('cancelled');
    expect(cancelled).not.toHaveProperty('result');
    expect(cancelled).not.toHaveProperty('error');
  });

  it('reports a completion-clock retention as null until completion, then from creation to its end', () => {
    const keepAlive = { ms: 10_000, clock: RetentionClock.FromCompletion };
    expect(toDetailedTask(task({ retention: keepAlive }), undefined)['ttlMs']).toBeNull();
    expect(
      toDetailedTask(
        task({ retention: keepAlive, status: TaskStatus.Completed, completedAt: CREATED + 5_000 }),
        undefined,
      )['ttlMs'],
    ).toBe(15_000);
  });
});
