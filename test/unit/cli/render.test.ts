// The CLI's plain-text views: the live line (with its progress bar), elapsed time, and how results read.
import { describe, expect, it } from 'vitest';
import { exitCodeOf, parseToolArgs } from '../../../cli/commands.js';
import { EXIT, UsageError } from '../../../cli/cli-errors.js';
import { formatElapsed, progressBar, renderLiveLine, renderResult, renderTask } from '../../../cli/render.js';

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
