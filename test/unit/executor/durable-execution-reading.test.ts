// What GetDurableExecution and GetDurableExecutionHistory answers mean for a task: the snapshot, mapped by the same
// outcomeOfExecution as a Step Functions execution's, and the step the execution is in.
import {
  ExecutionStatus as LambdaApiStatus,
  type Event,
  type GetDurableExecutionResponse,
} from '@aws-sdk/client-lambda';
import { describe, expect, it } from 'vitest';
import { outcomeOfExecution } from '../../../lambda/core/execution-status.js';
import { toolResultOf } from '../../../lambda/core/task.js';
import {
  currentDurableStepOf,
  snapshotOfDurableExecution,
} from '../../../lambda/executor/durable-execution-reading.js';

type Answer = Pick<GetDurableExecutionResponse, 'Status' | 'Result' | 'Error'>;

/** The task outcome, and the tool result it gives, of an execution Lambda describes so. */
const outcomeOf = (answer: Answer) => outcomeOfExecution(snapshotOfDurableExecution(answer));

describe('snapshotOfDurableExecution', () => {
  it('RUNNING is running, and the task working', () => {
    expect(snapshotOfDurableExecution({ Status: 'RUNNING' })).toEqual({ status: 'RUNNING' });
    expect(outcomeOf({ Status: 'RUNNING' })).toEqual({ status: 'working' });
  });

  it('SUCCEEDED with a Result has it as the output, and the task completes with that tool result', () => {
    const Result = JSON.stringify({ content: [{ type: 'text', text: 'Reviewed 2 documents.' }] });
    expect(snapshotOfDurableExecution({ Status: 'SUCCEEDED', Result })).toEqual({
      status: 'SUCCEEDED',
      output: Result,
    });
    const outcome = outcomeOf({ Status: 'SUCCEEDED', Result });
    expect(outcome).toEqual({ status: 'completed', output: Result });
    expect(toolResultOf(outcome)).toEqual({ content: [{ type: 'text', text: 'Reviewed 2 documents.' }] });
  });

  it('SUCCEEDED with plain JSON is mapped as a state machine output is: structured content and its text', () => {
    expect(toolResultOf(outcomeOf({ Status: 'SUCCEEDED', Result: '{"words":5}' }))).toEqual({
      content: [{ type: 'text', text: '{"words":5}' }],
      structuredContent: { words: 5 },
    });
  });

  it('SUCCEEDED with a Result marked isError completes the task with a tool error', () => {
    const outcome = outcomeOf({
      Status: 'SUCCEEDED',
      Result: '{"isError":true,"content":[{"type":"text","text":"not answered"}]}',
    });
    expect(outcome).toMatchObject({ status: 'completed', toolError: true });
  });

  it('SUCCEEDED without a Result (a handler returning nothing) completes with a null result', () => {
    expect(snapshotOfDurableExecution({ Status: 'SUCCEEDED' })).toEqual({ status: 'SUCCEEDED' });
    expect(toolResultOf(outcomeOf({ Status: 'SUCCEEDED' }))).toEqual({ content: [{ type: 'text', text: 'null' }] });
  });

  it("FAILED has the Error's type and message as error and cause, and fails the task saying both", () => {
    const Error = { ErrorType: 'DocumentRejectedError', ErrorMessage: 'Document 2 is rejected.' };
    expect(snapshotOfDurableExecution({ Status: 'FAILED', Error })).toEqual({
      status: 'FAILED',
      error: 'DocumentRejectedError',
      cause: 'Document 2 is rejected.',
    });
    expect(outcomeOf({ Status: 'FAILED', Error })).toEqual({
      status: 'failed',
      statusMessage: 'Execution failed: DocumentRejectedError: Document 2 is rejected.',
    });
  });

  it('FAILED without an Error fails the task all the same', () => {
    expect(snapshotOfDurableExecution({ Status: 'FAILED' })).toEqual({ status: 'FAILED' });
    expect(outcomeOf({ Status: 'FAILED' })).toEqual({ status: 'failed', statusMessage: 'Execution failed' });
  });

  it('TIMED_OUT fails the task as timed out', () => {
    const Error = { ErrorType: 'CallbackTimeoutError', ErrorMessage: 'Callback timed out' };
    expect(outcomeOf({ Status: 'TIMED_OUT', Error })).toEqual({
      status: 'failed',
      statusMessage: 'Execution timed out: CallbackTimeoutError: Callback timed out',
    });
    expect(outcomeOf({ Status: 'TIMED_OUT' })).toEqual({ status: 'failed', statusMessage: 'Execution timed out' });
  });

  it("STOPPED is Step Functions' ABORTED: the task is cancelled with the stop's reason", () => {
    const Error = { ErrorType: 'TaskCancelled', ErrorMessage: 'The client cancelled the task.' };
    expect(snapshotOfDurableExecution({ Status: 'STOPPED', Error })).toEqual({
      status: 'ABORTED',
      error: 'TaskCancelled',
      cause: 'The client cancelled the task.',
    });
    expect(outcomeOf({ Status: 'STOPPED', Error })).toEqual({
      status: 'cancelled',
      statusMessage: 'Execution was stopped: TaskCancelled: The client cancelled the task.',
    });
  });

  it('maps every status the Lambda API defines for a durable execution to a task status of its own', () => {
    const outcomes = Object.fromEntries(
      Object.values(LambdaApiStatus).map((Status) => [Status, outcomeOf({ Status }).status]),
    );
    expect(outcomes).toEqual({
      RUNNING: 'working',
      PAUSING: 'working',
      PAUSED: 'working',
      SUCCEEDED: 'completed',
      FAILED: 'failed',
      TIMED_OUT: 'failed',
      STOPPED: 'cancelled',
      DELETING: 'failed',
    });
  });

  it('PAUSING and PAUSED are running: a paused execution goes on when resumed, and its task stays working', () => {
    expect(snapshotOfDurableExecution({ Status: 'PAUSED' })).toEqual({ status: 'RUNNING' });
    expect(snapshotOfDurableExecution({ Status: 'PAUSING' })).toEqual({ status: 'RUNNING' });
  });

  it('DELETING is an execution gone, as one Lambda no longer has: the task fails saying so', () => {
    expect(snapshotOfDurableExecution({ Status: 'DELETING' })).toBeNull();
    expect(outcomeOf({ Status: 'DELETING' })).toMatchObject({
      status: 'failed',
      statusMessage: expect.stringContaining('has been deleted'),
    });
  });

  it('a status this backend does not know is passed on, and the task ends unknown', () => {
    const answer = { Status: 'HIBERNATING' } as unknown as Answer;
    expect(snapshotOfDurableExecution(answer)).toEqual({ status: 'HIBERNATING' });
    expect(outcomeOf(answer)).toMatchObject({
      status: 'unknown',
      statusMessage: expect.stringContaining('HIBERNATING'),
    });
  });
});

/** A history event as GetDurableExecutionHistory gives it (only the fields read). */
const event = (EventType: string, Id: string, Name?: string): Event =>
  ({ EventType, Id, ...(Name !== undefined ? { Name } : {}) }) as Event;

describe('currentDurableStepOf', () => {
  it('names the newest named step started and not finished', () => {
    expect(
      currentDurableStepOf([
        event('StepStarted', 's2', 'Count words in document 2'),
        event('StepSucceeded', 's1', 'Count words in document 1'),
        event('StepStarted', 's1', 'Count words in document 1'),
      ]),
    ).toBe('Count words in document 2');
  });

  it('names a wait while it lasts', () => {
    expect(currentDurableStepOf([event('InvocationCompleted', ''), event('WaitStarted', 'w', 'Review window')])).toBe(
      'Review window',
    );
  });

  it('names a waitForCallback by its name, past the callback and submitter it runs unnamed', () => {
    // As the SDK records a named waitForCallback: a named context, then an unnamed callback and submitter step.
    expect(
      currentDurableStepOf([
        event('InvocationCompleted', ''),
        event('StepSucceeded', 'submit'),
        event('StepStarted', 'submit'),
        event('CallbackStarted', 'callback'),
        event('ContextStarted', 'ask', 'approval'),
        event('WaitSucceeded', 'w', 'Review window'),
        event('WaitStarted', 'w', 'Review window'),
      ]),
    ).toBe('approval');
  });

  it('passes over an unnamed step (a progress report) started after the named one the workflow is in', () => {
    expect(
      currentDurableStepOf([event('StepStarted', 'report'), event('ContextStarted', 'batch', 'Review batch')]),
    ).toBe('Review batch');
  });

  it('falls back to the newest named operation when every one has finished, and to null when none was named', () => {
    expect(
      currentDurableStepOf([
        event('StepSucceeded', 'report'),
        event('StepStarted', 'report'),
        event('StepSucceeded', 's1', 'Count words in document 1'),
        event('StepStarted', 's1', 'Count words in document 1'),
      ]),
    ).toBe('Count words in document 1');
    expect(currentDurableStepOf([event('StepStarted', 'report'), event('ExecutionStarted', 'x')])).toBeNull();
    expect(currentDurableStepOf([])).toBeNull();
  });

  it.each([
    ['StepStarted', 'StepFailed'],
    ['CallbackStarted', 'CallbackTimedOut'],
    ['WaitStarted', 'WaitCancelled'],
    ['ChainedInvokeStarted', 'ChainedInvokeStopped'],
    ['ContextStarted', 'ContextFailed'],
  ])('counts %s ended by %s as finished', (started, ended) => {
    expect(
      currentDurableStepOf([event(ended, 'a', 'A'), event(started, 'a', 'A'), event('StepStarted', 'b', 'B')]),
    ).toBe('B');
  });
});
