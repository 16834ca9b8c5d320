// What a model reads of a task it was handed: the handoff, the status tools' answers, and an unknown id's answer.
import { describe, expect, it } from 'vitest';
import { InputRequestState } from '../../../lambda/core/input-request.js';
import { TaskStatus } from '../../../lambda/core/task-status.js';
import { RELATED_TASK_META_KEY_2025 } from '../../../lambda/protocol/mcp-2025-11-25.js';
import {
  durationText,
  handoffResult,
  standingResult,
  unknownTaskResult,
} from '../../../lambda/protocol/task-handle-text.js';
import { newTask } from '../../contract/task-fixtures.js';

const NOW = Date.UTC(2026, 11, 7, 12);
const clock = { now: () => NOW - 95_000 };
const TASK_ID = 'a'.repeat(32);
const textOf = (result: { content: readonly { type: string; text?: unknown }[] }): string =>
  result.content.map((block) => String(block.text)).join('\n');

describe('the answer to a plain call handed off as a task', () => {
  const task = newTask(clock, {
    taskId: TASK_ID,
    toolName: 'analyze_documents',
    progress: { message: 'Reviewed {progress} of {total}', progress: 2, total: 5, at: NOW },
  });
  const result = handoffResult(task, NOW, 25_000);

  it('is a successful result that names the tool, the id exactly, the status, progress and age', () => {
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toBeUndefined();
    const text = textOf(result);
    expect(text).toContain(`analyze_documents is still running, as task ${TASK_ID}.`);
    expect(text).toContain('Status: working.');
    expect(text).toContain('Progress: Reviewed 2 of 5');
    expect(text).toContain('Done: 2 of 5.');
    expect(text).toContain('Running for 1 min.');
  });

  it('says what to call next, with the exact arguments, and not to end the turn waiting', () => {
    const text = textOf(result);
    expect(text).toContain(`call task_result with {"taskId":"${TASK_ID}"} to wait up to 25 s`);
    expect(text).toMatch(/Do not end your turn saying you are waiting/);
    expect(text).toMatch(/task_status with the same arguments looks without waiting; task_cancel stops it/);
  });

  it('carries the handle in _meta under 2025-11-25’s related-task key', () => {
    expect(result._meta).toEqual({ [RELATED_TASK_META_KEY_2025]: { taskId: TASK_ID } });
  });
});

describe('where a task stands', () => {
  it('shows the question a task waits on and where a person answers it, never the means to answer it', () => {
    const waiting = newTask(clock, {
      taskId: TASK_ID,
      toolName: 'refund_order',
      status: TaskStatus.InputRequired,
      inputRequests: {
        approve: {
          key: 'approve',
          state: InputRequestState.Outstanding,
          askedAt: NOW,
          request: {
            method: 'elicitation/create',
            params: { message: 'Refund 12.50 for order A-1?', requestedSchema: { type: 'object' } },
          },
        },
      },
    });
    const text = textOf(standingResult(waiting, NOW, 25_000));
    expect(text).toContain('Status: input_required.');
    expect(text).toContain('It waits for a person to answer: Refund 12.50 for order A-1?');
    expect(text).toContain('they answer it in the task view, or with `mcp-tasks watch <taskId>`');
  });

  it('of an ended task: how long it ran, and where its result is', () => {
    const ended = newTask(clock, { taskId: TASK_ID, status: TaskStatus.Completed, completedAt: NOW - 35_000 });
    const text = textOf(standingResult(ended, NOW, 25_000));
    expect(text).toContain('Status: completed.');
    expect(text).toContain('Ran for 1 min.');
    expect(text).toContain(`Call task_result with {"taskId":"${TASK_ID}"} for its result.`);
  });
});

describe('the answer to an id the caller has no task under', () => {
  it('is a tool error listing the caller’s own active tasks by id, tool and age', () => {
    const mine = newTask(clock, { taskId: 'b'.repeat(32), toolName: 'analyze_documents' });
    const result = unknownTaskResult('garbled', [mine], NOW);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'You have no task with id "garbled": it never was, or it has expired.\n' +
        'Your active tasks (use the id exactly):\n' +
        `- ${'b'.repeat(32)}: analyze_documents, started 1 min ago`,
    );
  });

  it('says so when the caller has none', () => {
    expect(textOf(unknownTaskResult('x', [], NOW))).toContain('You have no active tasks.');
  });
});

describe('a duration, for a person', () => {
  it('reads in seconds, minutes, or hours and minutes', () => {
    expect(durationText(42_400)).toBe('42 s');
    expect(durationText(3 * 60_000 + 5_000)).toBe('3 min');
    expect(durationText(2 * 3_600_000)).toBe('2 h');
    expect(durationText(2 * 3_600_000 + 5 * 60_000)).toBe('2 h 5 min');
    expect(durationText(-5)).toBe('0 s');
  });
});
