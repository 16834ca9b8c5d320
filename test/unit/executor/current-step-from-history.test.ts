// Which state an execution is in, judged from its newest history events (what GetExecutionHistory answers with
// reverseOrder).
import type { HistoryEvent } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { currentStepOf } from '../../../lambda/executor/step-functions-executor.js';

const entered = (type: string, name: string): HistoryEvent => ({
  type: `${type}StateEntered` as HistoryEvent['type'],
  stateEnteredEventDetails: { name },
  id: 0,
  timestamp: new Date(0),
});
const exited = (type: string, name: string): HistoryEvent => ({
  type: `${type}StateExited` as HistoryEvent['type'],
  stateExitedEventDetails: { name },
  id: 0,
  timestamp: new Date(0),
});

describe('currentStepOf', () => {
  it('names the newest state entered and not exited', () => {
    expect(currentStepOf([entered('Wait', 'Review'), exited('Task', 'Prepare'), entered('Task', 'Prepare')])).toBe(
      'Review',
    );
  });

  it('looks past inner states a Map iteration entered and left after the Map itself was entered', () => {
    expect(
      currentStepOf([
        exited('Task', 'AnalyzeDocument'),
        entered('Task', 'AnalyzeDocument'),
        { type: 'MapIterationStarted', id: 0, timestamp: new Date(0) },
        entered('Map', 'AnalyzeDocuments'),
      ]),
    ).toBe('AnalyzeDocuments');
  });

  it('falls back to the newest state entered when every one has exited, and to null when none was entered', () => {
    expect(currentStepOf([exited('Pass', 'Last'), entered('Pass', 'Last')])).toBe('Last');
    expect(currentStepOf([{ type: 'ExecutionStarted', id: 1, timestamp: new Date(0) }])).toBeNull();
  });
});
