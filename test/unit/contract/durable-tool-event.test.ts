// The payload a durable tool is started with, told from anything else that might invoke the function.
import { describe, expect, it } from 'vitest';
import { isDurableToolEvent } from '../../../lambda/contract/durable-tool-event.js';

const EXECUTION = 'arn:aws:lambda:eu-west-1:123456789012:function:durable-review/durable-execution/task-abc-0123456789';

describe('isDurableToolEvent', () => {
  it('accepts the arguments object and the execution reference', () => {
    expect(isDurableToolEvent({ arguments: { documents: ['a'] }, execution: EXECUTION })).toBe(true);
    expect(isDurableToolEvent({ arguments: {}, execution: EXECUTION })).toBe(true);
  });

  it.each([
    ['nothing', undefined],
    ['null', null],
    ['an array', [{ arguments: {}, execution: EXECUTION }]],
    ['no arguments', { execution: EXECUTION }],
    ['arguments that are an array', { arguments: ['a'], execution: EXECUTION }],
    ['arguments that are null', { arguments: null, execution: EXECUTION }],
    ['no execution', { arguments: {} }],
    ['an execution that is not a string', { arguments: {}, execution: 42 }],
    ['a Step Functions execution', { arguments: {}, execution: 'arn:aws:states:eu-west-1:1:execution:m:task-x' }],
    ['a function ARN', { arguments: {}, execution: 'arn:aws:lambda:eu-west-1:1:function:durable-review' }],
    ['a bare name', { arguments: {}, execution: 'task-abc-0123456789' }],
  ])('refuses %s', (_what, value) => {
    expect(isDurableToolEvent(value)).toBe(false);
  });
});
