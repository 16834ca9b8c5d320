// The CLI's plain-text views: the live line (with its progress bar), elapsed time, and how results read.
import { describe, expect, it } from 'vitest';
import { exitCodeOf, parseToolArgs } from '../../../cli/commands.js';
import { EXIT, UsageError } from '../../../cli/cli-errors.js';
import {
  formatElapsed,
  progressBar,
  renderDelivery,
  renderLiveLine,
  renderResult,
  renderTask,
  renderTaskEvent,
  renderTools,
} from '../../../cli/render.js';
import type { TaskEventOccurrence } from '../../../cli/task-client.js';

describe('renderLiveLine', () => {
  it('shows status and elapsed time when the server reports nothing more', () => {
    expect(renderLiveLine({ status: 'working', elapsedMs: 4_200 })).toBe('working · 4s');
  });

  it('shows the status message', () => {
    expect(renderLiveLine({ status: 'working', statusMessage: 'Reviewing', elapsedMs: 0 })).toBe(
      'working · Reviewing · 0s',
    );
  });

  it('shows a bar when progress comes with a total, and the progress message over the status message', () => {
    expect(
      renderLiveLine({
        status: 'working',
        statusMessage: 'old',
        progress: { progress: 3, total: 4, message: 'Document 3 of 4' },
        elapsedMs: 65_000,
      }),
    ).toBe('working · Document 3 of 4 · [###############-----] 75% · 1m 05s');
  });

  it('shows a count when progress comes without a total', () => {
    expect(renderLiveLine({ status: 'working', progress: { progress: 7 }, elapsedMs: 1_000 })).toBe(
      'working · 7 done · 1s',
    );
  });
});

describe('renderTask', () => {
  it('shows the count a task carries, with its total when known', () => {
    expect(
      renderTask({
        taskId: 't1',
        status: 'working',
        statusMessage: 'Analysed 2 of 5',
        progress: { progress: 2, total: 5 },
      }),
    ).toMatch(/^progress: 2 of 5$/m);
    expect(renderTask({ taskId: 't1', status: 'working', progress: { progress: 2 } })).toMatch(/^progress: 2 done$/m);
    expect(renderTask({ taskId: 't1', status: 'working' })).not.toMatch(/^progress:/m);
  });

  it('shows each question a waiting task asks, and where to answer it', () => {
    const question = { key: 'k1', message: 'Approve the refund?', requestedSchema: {} };
    expect(renderTask({ taskId: 't1', status: 'input_required', inputRequests: [question] })).toMatch(
      /^asks: {5}Approve the refund\? \(answer: mcp-tasks watch t1\)$/m,
    );
    expect(renderTask({ taskId: 't1', status: 'input_required', inputRequests: [] })).not.toMatch(/^asks:/m);
  });
});

describe('progressBar', () => {
  it('clamps progress beyond the total and below zero', () => {
    expect(progressBar(12, 10, 4)).toBe('[####] 100%');
    expect(progressBar(-1, 10, 4)).toBe('[----] 0%');
  });
});

describe('formatElapsed', () => {
  it('reads as seconds, minutes and seconds, or hours and minutes', () => {
    expect([formatElapsed(59_999), formatElapsed(60_000), formatElapsed(3_725_000)]).toEqual([
      '59s',
      '1m 00s',
      '1h 02m',
    ]);
  });
});

describe('renderResult', () => {
  it('prints text blocks, else structured content as JSON', () => {
    expect(
      renderResult({
        content: [
          { type: 'text', text: 'a' },
          { type: 'image', data: '' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toBe('a\nb');
    expect(renderResult({ content: [], structuredContent: { words: 2 } })).toBe('{\n  "words": 2\n}');
  });
});

describe('exitCodeOf', () => {
  it('is 0 only for a completed task whose tool reported no error', () => {
    expect(exitCodeOf({ status: 'completed', result: { content: [] } })).toBe(EXIT.ok);
    expect(exitCodeOf({ status: 'completed', result: { content: [], isError: true } })).toBe(EXIT.failed);
    expect(exitCodeOf({ status: 'failed', error: 'x' })).toBe(EXIT.failed);
    expect(exitCodeOf({ status: 'cancelled' })).toBe(EXIT.cancelled);
  });
});

describe('parseToolArgs', () => {
  it('accepts a JSON object and refuses anything else', () => {
    expect(parseToolArgs('{"a":1}')).toEqual({ a: 1 });
    expect(() => parseToolArgs('[1]')).toThrow(UsageError);
    expect(() => parseToolArgs('{oops')).toThrow(/not valid JSON/);
  });
});

describe('renderTaskEvent', () => {
  const event = (task: Partial<TaskEventOccurrence['data']['task']>): TaskEventOccurrence => ({
    eventId: 'evt_t1_4',
    name: 'task.events',
    timestamp: '2026-12-03T00:52:21.211Z',
    data: {
      taskId: 't1',
      seq: 4,
      changes: ['progress'],
      task: { taskId: 't1', toolName: 'x', status: 'working', ...task },
    },
    cursor: '4',
  });

  it('shows the number, status, message, a bar or a count, the step and the open input requests', () => {
    expect(
      renderTaskEvent(
        event({ statusMessage: 'Analysed 1 of 2', progress: { progress: 1, total: 2 }, currentStep: 'Analyse' }),
      ),
    ).toBe('#4 working · Analysed 1 of 2 · [##########----------] 50% · step Analyse');
    expect(
      renderTaskEvent(event({ status: 'input_required', progress: { progress: 3 }, openInputRequests: ['a', 'b'] })),
    ).toBe('#4 input_required · 3 done · waiting for input: a, b');
    expect(renderTaskEvent(event({ status: 'completed', progress: { total: 2 } }))).toBe('#4 completed');
  });
});

describe('renderDelivery', () => {
  const at = new Date('2026-12-03T01:00:00.000Z');

  it('reads a tasks.updated event (no cursor) as a task.events one', () => {
    expect(
      renderDelivery(
        {
          eventId: 'evt_t1_2',
          name: 'tasks.updated',
          timestamp: '2026-12-03T00:00:02.000Z',
          data: { taskId: 't1', seq: 2, changes: [], task: { taskId: 't1', status: 'failed' } },
          cursor: null,
        },
        'sub_1',
        at,
      ),
    ).toBe('2026-12-03T00:00:02.000Z  sub_1  tasks.updated  t1  failed  #2');
  });

  it('shows an unknown body as its JSON, with the arrival time', () => {
    expect(renderDelivery({ type: 'surprise' }, 'sub_1', at)).toBe(
      '2026-12-03T01:00:00.000Z  sub_1  surprise  {"type":"surprise"}',
    );
  });
});

describe('renderTools', () => {
  const tools = [
    {
      name: 'analyze_documents',
      description: 'Analyses each document. Runs for tens of seconds: call it as a task.',
      taskSupport: 'optional' as const,
    },
    { name: 'durable_review', description: 'Reviews.\nAsks a person.', taskSupport: 'required' as const },
    { name: 'greet', title: 'Greets someone' },
  ];

  it('on a pipe: one line per tool, name first, with its whole description', () => {
    expect(renderTools(tools).split('\n')).toEqual([
      'analyze_documents  task: optional    Analyses each document. Runs for tens of seconds: call it as a task.',
      'durable_review     task: required    Reviews. Asks a person.',
      'greet              task: undeclared  Greets someone',
    ]);
  });

  it('at a terminal: the description wraps into its column, nothing cut', () => {
    expect(renderTools(tools.slice(0, 1), 70).split('\n')).toEqual([
      'analyze_documents  task: optional  Analyses each document. Runs for',
      '                                   tens of seconds: call it as a task.',
    ]);
  });

  it('at a narrow terminal: the description goes on indented lines under the name', () => {
    expect(renderTools(tools.slice(0, 1), 50).split('\n')).toEqual([
      'analyze_documents  task: optional',
      '    Analyses each document. Runs for tens of',
      '    seconds: call it as a task.',
    ]);
  });

  it('a tool without a description or title is its name and task support', () => {
    expect(renderTools([{ name: 'bare', taskSupport: 'forbidden' }], 80)).toBe('bare  task: forbidden');
    expect(renderTools([])).toBe('This server has no tools.');
  });
});
