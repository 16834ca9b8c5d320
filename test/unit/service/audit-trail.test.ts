// The audit trail and the per-tool metrics beside it, on in-memory parts: one record per lifecycle event of a task,
// made once however many callers see the event.
import { describe, expect, it, vi } from 'vitest';
import type { AuditEvent } from '../../../lambda/core/audit-event.js';
import { TaskOrigin } from '../../../lambda/core/task.js';
import type { TaskMetrics } from '../../../lambda/core/task-metrics.js';
import {
  analyze,
  inMemoryBackend,
  lastExecution,
  settle,
  textStats,
  useFakeTime,
} from '../../support/in-memory-backend.js';

useFakeTime();

/** Metrics that keep every event they are told of. */
function recordingMetrics(): TaskMetrics & { events: [AuditEvent, string, number?][] } {
  const events: [AuditEvent, string, number?][] = [];
  return {
    events,
    taskEvent: (event, tool, durationMs) =>
      void events.push(durationMs === undefined ? [event, tool] : [event, tool, durationMs]),
    inputAnswered: () => {},
  };
}

describe('the audit trail', () => {
  it('records created, completed, retrieved and deleted, once each, for a task run to the end', async () => {
    const b = inMemoryBackend();
    const audited = b.service();
    await audited.createTask({
      ...textStats('auditor'),
      origin: TaskOrigin.Sep1686,
      taskId: 'audited',
      requestId: 'req-1',
    });
    const waiting = audited.waitForTerminal('auditor', 'audited', { timeoutMs: 60_000 });
    b.executor.succeed(lastExecution(b).executionArn, { words: 2 });
    await b.statusEvent(lastExecution(b));
    // A second status event of the same news, and a reader, record nothing more.
    const done = await settle(waiting);
    await b.statusEvent(lastExecution(b));
    await b.service().getTask('auditor', 'audited');
    await audited.resultOf(done);
    await audited.deleteTask('auditor', 'audited');
    const record = { owner: 'auditor', taskId: 'audited', tool: 'text_stats', requestId: 'req-1' };
    expect(b.logger.audits()).toEqual([
      { event: 'task.created', ...record, outcome: 'submitted' },
      { event: 'task.completed', ...record, outcome: 'completed' },
      { event: 'task.retrieved', ...record, outcome: 'completed' },
      { event: 'task.deleted', ...record, outcome: 'completed' },
    ]);
  });

  it('records created and cancelled for a cancelled task, and nothing more when it is polled after', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(analyze('auditor'));
    await b.service().cancelTask('auditor', task.taskId);
    await vi.advanceTimersByTimeAsync(60_000);
    await b.service().getTask('auditor', task.taskId);
    const record = { owner: 'auditor', taskId: task.taskId, tool: 'analyze_documents' };
    expect(b.logger.audits()).toEqual([
      { event: 'task.created', ...record, outcome: 'submitted' },
      { event: 'task.cancelled', ...record, outcome: 'cancelled' },
    ]);
  });

  it('records a failed task as failed', async () => {
    const b = inMemoryBackend();
    const task = await b.service().createTask(textStats('auditor'));
    b.executor.fail(task.executionArn, 'Boom');
    await b.statusEvent(task);
    expect(b.logger.audits().map((record) => [record.event, record.outcome])).toEqual([
      ['task.created', 'submitted'],
      ['task.failed', 'failed'],
    ]);
  });

  it('records a refusal with the limit that refused, and no creation', async () => {
    const b = inMemoryBackend({ settings: { maxActiveTasksPerOwner: 1, maxTaskCreationsPerMinute: 2 } });
    await b.service().createTask(analyze('auditor'));
    await expect(b.service().createTask(analyze('auditor', { requestId: '9' }))).rejects.toThrow();
    await expect(b.service().createTask(analyze('auditor'))).rejects.toThrow();
    const refusals = b.logger.audits().filter((record) => record.event === 'task.refused');
    expect(refusals).toEqual([
      expect.objectContaining({
        owner: 'auditor',
        tool: 'analyze_documents',
        requestId: '9',
        outcome: 'limit:active-tasks',
      }),
      { owner: 'auditor', tool: 'analyze_documents', event: 'task.refused', outcome: 'limit:creations-per-minute' },
    ]);
    expect(b.logger.audits().filter((record) => record.event === 'task.created')).toHaveLength(1);
  });

  it('never records a plain call’s result as retrieved: its caller never asked for a task', async () => {
    const b = inMemoryBackend();
    const call = b.service().runToCompletion('auditor', 'text_stats', { text: 'a' });
    await vi.advanceTimersByTimeAsync(0);
    b.executor.succeed(lastExecution(b).executionArn, { words: 1 });
    await b.statusEvent(lastExecution(b));
    await settle(call);
    expect(b.logger.audits().map((record) => record.event)).toEqual(['task.created', 'task.completed']);
  });
});

describe('the task metrics', () => {
  it('count each lifecycle event per tool, the terminal ones with the task’s time from creation', async () => {
    const b = inMemoryBackend({ settings: { maxActiveTasksPerOwner: 1 } });
    const metrics = recordingMetrics();
    const tasks = b.service({ metrics });
    const task = await tasks.createTask(textStats('counted'));
    await expect(tasks.createTask(textStats('counted'))).rejects.toThrow();
    await vi.advanceTimersByTimeAsync(4_000);
    b.executor.succeed(task.executionArn, { words: 3 });
    await tasks.recordExecutionEvent(task.executionArn, 'describe');
    expect(metrics.events).toEqual([
      ['task.created', 'text_stats'],
      ['task.refused', 'text_stats'],
      ['task.completed', 'text_stats', 4_000],
    ]);
  });
});
