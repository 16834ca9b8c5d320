// Plain calls of an EXPRESS tool on in-memory parts: one synchronous run of the EXPRESS machine, no task, its end
// mapped to the tool result as a task's is; refusals as tool errors; the owner's creation limit; and a wait given up
// (caller gone, bound passed) that leaves the unstoppable execution running.
import { describe, expect, it, vi } from 'vitest';
import { ExecutionStatus } from '../../../lambda/contract/execution-status-events.js';
import { StartOutcomeUnknownError, TaskLimitExceededError } from '../../../lambda/core/errors.js';
import { TaskService } from '../../../lambda/service/task-service.js';
import type { SyncExecutor } from '../../../lambda/executor/sync-executor.js';
import {
  hugeDocuments,
  inMemoryBackend,
  lastExecution,
  plainResult,
  settle,
  TEST_TOOLS,
  useFakeTime,
  type InMemoryBackend,
} from '../../support/in-memory-backend.js';

useFakeTime();

const TOOL = 'extract_keywords';
const express = TEST_TOOLS.find((tool) => tool.name === TOOL)!;

/** A plain call of the EXPRESS tool, and its execution once it runs. */
async function call(
  b: InMemoryBackend,
  args: Record<string, unknown> = { text: 'cats and dogs' },
  signal?: AbortSignal,
) {
  const answer = b.service().runToCompletion('owner', TOOL, args, signal).then(plainResult);
  await vi.advanceTimersByTimeAsync(0);
  return { answer, execution: lastExecution(b) };
}

describe('a plain call of an EXPRESS tool', () => {
  it('runs the EXPRESS machine once, synchronously, on the arguments, and stores no task', async () => {
    const b = inMemoryBackend();
    const { answer, execution } = await call(b);
    b.executor.succeed(execution.executionArn, { keywords: ['cats', 'dogs'] });
    expect((await settle(answer)).structuredContent).toEqual({ keywords: ['cats', 'dogs'] });
    expect(execution).toMatchObject({
      stateMachineArn: express.expressStateMachineArn,
      input: '{"text":"cats and dogs"}',
    });
    expect(execution.name).toMatch(/^task-[0-9a-f]{64}-[0-9a-f]{10}$/);
    expect(b.executor.calls).toMatchObject({ runSync: 1, start: 0 });
    expect((await b.store.list('owner', { limit: 10 })).tasks).toEqual([]);
  });

  it('names each run anew, so that two calls with the same arguments are two runs', async () => {
    const b = inMemoryBackend();
    const first = await call(b);
    b.executor.succeed(first.execution.executionArn, {});
    await settle(first.answer);
    const second = await call(b);
    expect(second.execution.name).not.toBe(first.execution.name);
  });

  it('answers a failed run with the tool error a failed task gives', async () => {
    const b = inMemoryBackend();
    const { answer, execution } = await call(b);
    b.executor.fail(execution.executionArn, 'NoKeywords', 'The text has no keywords.');
    expect(await settle(answer)).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Execution failed: NoKeywords: The text has no keywords.' }],
    });
  });

  it('answers a run that timed out as a tool error that says so', async () => {
    const b = inMemoryBackend();
    const { answer, execution } = await call(b);
    b.executor.timeOut(execution.executionArn);
    expect(await settle(answer)).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Execution timed out: States.Timeout' }],
    });
  });

  it('passes a tool-level error of the output (isError) through as the result', async () => {
    const b = inMemoryBackend();
    const { answer, execution } = await call(b);
    b.executor.succeed(execution.executionArn, {
      isError: true,
      content: [{ type: 'text', text: 'Nothing to pick.' }],
    });
    expect(await settle(answer)).toEqual({ isError: true, content: [{ type: 'text', text: 'Nothing to pick.' }] });
  });

  it('answers arguments the schema refuses with a tool error, and runs nothing', async () => {
    const b = inMemoryBackend();
    const result = plainResult(await b.service().runToCompletion('owner', TOOL, { text: '' }));
    expect(result).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/^Invalid arguments/) }] });
    expect(b.executor.calls.runSync).toBe(0);
  });

  it('answers an input Step Functions refuses with a tool error', async () => {
    const b = inMemoryBackend();
    const result = plainResult(await b.service().runToCompletion('owner', TOOL, { text: hugeDocuments().join(' ') }));
    expect(result).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/over \d+ bytes/) }] });
  });

  it('counts against the owner’s creations per minute', async () => {
    const b = inMemoryBackend({ settings: { maxTaskCreationsPerMinute: 1 } });
    const { answer, execution } = await call(b);
    b.executor.succeed(execution.executionArn, {});
    await settle(answer);
    await expect(b.service().runToCompletion('owner', TOOL, { text: 'again' })).rejects.toBeInstanceOf(
      TaskLimitExceededError,
    );
    expect(b.executor.calls.runSync).toBe(1);
  });

  it('audits the run as created and then as it ended, with no task ID', async () => {
    const b = inMemoryBackend();
    const { answer, execution } = await call(b);
    b.executor.succeed(execution.executionArn, { keywords: [] });
    await settle(answer);
    expect(b.logger.audits()).toEqual([
      { event: 'task.created', owner: 'owner', tool: TOOL, outcome: 'working' },
      { event: 'task.completed', owner: 'owner', tool: TOOL, outcome: 'completed' },
    ]);
  });

  it('is answered as a result when the caller can answer questions too (an EXPRESS machine asks none)', async () => {
    const b = inMemoryBackend();
    const round = b.service().runUntilInput('owner', TOOL, { text: 'cats' });
    await vi.advanceTimersByTimeAsync(0);
    b.executor.succeed(lastExecution(b).executionArn, { keywords: ['cats'] });
    expect(await settle(round)).toEqual({
      kind: 'result',
      result: expect.objectContaining({ structuredContent: { keywords: ['cats'] } }),
    });
  });
});

describe('a plain call of an EXPRESS tool whose wait is given up', () => {
  it('stops waiting when the caller goes away, and leaves the execution running (it cannot be stopped)', async () => {
    const b = inMemoryBackend();
    const caller = new AbortController();
    const { answer, execution } = await call(b, undefined, caller.signal);
    caller.abort();
    expect(await settle(answer)).toMatchObject({ isError: true, content: [{ text: /client went away/ }] });
    expect(b.executor.execution(execution.executionArn).status).toBe(ExecutionStatus.Running);
    expect(b.executor.calls.stop).toBe(0);
  });

  it('stops waiting when the plain-call bound passes, and says to call the tool as a task', async () => {
    const b = inMemoryBackend({ settings: { directCallTimeoutMs: 10_000 } });
    const { answer, execution } = await call(b);
    await vi.advanceTimersByTimeAsync(9_000);
    expect(await settle(answer)).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/did not finish within 10 s.*as a task/) }],
    });
    expect(b.executor.execution(execution.executionArn).status).toBe(ExecutionStatus.Running);
  });

  it('reports a run whose answer was lost as an unknown outcome that may still run', async () => {
    const b = inMemoryBackend();
    const lost: SyncExecutor = { runSync: () => Promise.reject(new Error('socket hang up')) };
    const answer = b.service({ syncExecutor: lost }).runToCompletion('owner', TOOL, { text: 'cats' });
    await expect(answer).rejects.toBeInstanceOf(StartOutcomeUnknownError);
    await expect(answer).rejects.toMatchObject({ stopped: false });
  });
});

describe('a plain call of an EXPRESS tool on a backend that cannot run one synchronously', () => {
  it('runs the tool’s STANDARD wrapper as a task instead', async () => {
    const b = inMemoryBackend();
    const service = new TaskService({
      store: b.store,
      quotas: b.quotas,
      executor: b.executor,
      tools: b.tools,
      settings: b.settings,
      logger: b.logger,
    });
    const answer = service.runToCompletion('owner', TOOL, { text: 'cats' }).then(plainResult);
    await vi.advanceTimersByTimeAsync(0);
    const execution = lastExecution(b);
    expect(execution.stateMachineArn).toBe(express.stateMachineArn);
    b.executor.succeed(execution.executionArn, { keywords: ['cats'] });
    await b.statusEvent(execution);
    expect((await settle(answer)).structuredContent).toEqual({ keywords: ['cats'] });
    expect(b.executor.calls.runSync).toBe(0);
  });
});
