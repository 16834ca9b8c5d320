import { describe, expect, it } from 'vitest';
import { outcomeOfExecution, type ExecutionSnapshot } from '../../../lambda/core/execution-status.js';
import { toolResultOf } from '../../../lambda/core/task.js';

/** The tool result a task ending with this execution returns. */
const resultOf = (execution: ExecutionSnapshot | null) => toolResultOf(outcomeOfExecution(execution));

describe('execution status translation', () => {
  it('RUNNING is working, with no result', () => {
    expect(outcomeOfExecution({ status: 'RUNNING' })).toEqual({ status: 'working' });
  });

  it('PENDING_REDRIVE is working', () => {
    expect(outcomeOfExecution({ status: 'PENDING_REDRIVE' })).toEqual({ status: 'working' });
  });

  it('SUCCEEDED with an object output is completed with structured content and its text', () => {
    const outcome = outcomeOfExecution({ status: 'SUCCEEDED', output: '{"total":3}' });
    expect(outcome).toEqual({ status: 'completed', output: '{"total":3}' });
    expect(toolResultOf(outcome)).toEqual({
      content: [{ type: 'text', text: '{"total":3}' }],
      structuredContent: { total: 3 },
    });
  });

  it('SUCCEEDED with a non-object output is completed with text only', () => {
    expect(resultOf({ status: 'SUCCEEDED', output: '"done"' })).toEqual({ content: [{ type: 'text', text: 'done' }] });
    expect(resultOf({ status: 'SUCCEEDED', output: '[1,2]' })).toEqual({ content: [{ type: 'text', text: '[1,2]' }] });
    expect(resultOf({ status: 'SUCCEEDED', output: 'not json' })).toEqual({
      content: [{ type: 'text', text: 'not json' }],
    });
  });

  it('SUCCEEDED with an output marked isError is completed with a tool error result', () => {
    const outcome = outcomeOfExecution({
      status: 'SUCCEEDED',
      output: '{"isError":true,"content":[{"type":"text","text":"no words"}]}',
    });
    expect(outcome).toMatchObject({ status: 'completed', toolError: true });
    expect(toolResultOf(outcome)).toEqual({ content: [{ type: 'text', text: 'no words' }], isError: true });
  });

  it('FAILED is failed with the error and cause in the status message and an error result', () => {
    const outcome = outcomeOfExecution({ status: 'FAILED', error: 'UpstreamUnavailable', cause: 'service down' });
    expect(outcome.status).toBe('failed');
    expect(outcome.statusMessage).toBe('Execution failed: UpstreamUnavailable: service down');
    expect(toolResultOf(outcome)).toEqual({
      content: [{ type: 'text', text: 'Execution failed: UpstreamUnavailable: service down' }],
      isError: true,
    });
  });

  it('TIMED_OUT is failed and says it timed out', () => {
    const outcome = outcomeOfExecution({ status: 'TIMED_OUT', error: 'States.Timeout' });
    expect(outcome.status).toBe('failed');
    expect(outcome.statusMessage).toBe('Execution timed out: States.Timeout');
  });

  it('ABORTED is cancelled', () => {
    const outcome = outcomeOfExecution({ status: 'ABORTED', error: 'TaskCancelled', cause: 'by client' });
    expect(outcome.status).toBe('cancelled');
    expect(outcome.statusMessage).toBe('Execution was stopped: TaskCancelled: by client');
  });

  it('a status this backend does not know is the terminal fallback unknown', () => {
    const outcome = outcomeOfExecution({ status: 'PAUSED' as never });
    expect(outcome.status).toBe('unknown');
    expect(outcome.statusMessage).toMatch(/PAUSED/);
  });

  it('an execution that cannot be found is failed with a clear message', () => {
    const outcome = outcomeOfExecution(null);
    expect(outcome.status).toBe('failed');
    expect(outcome.statusMessage).toMatch(/execution for this task was not found/);
    expect(toolResultOf(outcome)?.isError).toBe(true);
  });
});
