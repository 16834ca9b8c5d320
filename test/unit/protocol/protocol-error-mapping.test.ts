// Start refusals and unanswered starts leave as definite JSON-RPC errors that say whether to retry.
import { describe, expect, it } from 'vitest';
import {
  ExecutionStartError,
  ExecutionStopError,
  ServiceBusyError,
  StartOutcomeUnknownError,
  TaskLimitExceededError,
} from '../../../lambda/core/errors.js';
import { toMcpError } from '../../../lambda/protocol/protocol-errors.js';

const logger = { info: () => {}, warn: () => {}, error: () => {} };

describe('toMcpError', () => {
  it('answers a refused input as invalid params with the reason', () => {
    expect(
      toMcpError(new ExecutionStartError('Step Functions refused the tool input: too long', 'input'), logger),
    ).toMatchObject({ code: -32602, message: expect.stringMatching(/too long/) });
  });

  it('answers a capacity refusal as a retryable server error naming the quota, with when to retry', () => {
    expect(toMcpError(new ExecutionStartError('Execution limit exceeded', 'capacity'), logger)).toMatchObject({
      code: -32000,
      message: expect.stringMatching(/open-executions quota\); nothing was started\. Retry in 30 s/),
      data: { retryable: true, retryAfterSeconds: 30, limit: 'step-functions-open-executions' },
    });
  });

  it('answers a throttled start as a retryable server error naming the rate, with when to retry', () => {
    const busy = new ServiceBusyError('Step Functions', 'StartExecution', 1);
    expect(
      toMcpError(new ExecutionStartError('Step Functions refused', 'throttled', { cause: busy }), logger),
    ).toMatchObject({
      code: -32000,
      message: expect.stringMatching(/StartExecution rate\); nothing was started\. Retry in 1 s/),
      data: { retryable: true, retryAfterSeconds: 1, limit: 'step-functions-start-execution-rate' },
    });
  });

  it('answers any other throttled AWS call as a retryable server error, never an internal error', () => {
    expect(toMcpError(new ServiceBusyError('DynamoDB', 'GetItem', 1), logger)).toMatchObject({
      code: -32000,
      message: 'The server is busy (DynamoDB is throttling GetItem); retry in 1 s.',
      data: { retryable: true, retryAfterSeconds: 1, limit: 'aws-throttle' },
    });
  });

  it('answers a stop that kept failing as a retryable server error saying the task was left as it was', () => {
    expect(toMcpError(new ExecutionStopError('t-1', 2), logger)).toMatchObject({
      code: -32000,
      message: expect.stringMatching(/^Task t-1 could not be cancelled yet: .* left as it was\. Retry in 2 s\.$/),
      data: { retryable: true, retryAfterSeconds: 2, limit: 'aws-fault' },
    });
  });

  it('answers a configuration refusal without the vendor message', () => {
    const error = toMcpError(
      new ExecutionStartError('arn:aws:states:us-east-1:123456789012:stateMachine:x does not exist', 'configuration'),
      logger,
    );
    expect(error).toMatchObject({
      code: -32603,
      message: expect.stringMatching(/unavailable/),
      data: { retryable: false },
    });
    expect(error.message).not.toMatch(/arn:/);
  });

  it('answers an unanswered start with whether the call is safe to retry', () => {
    expect(toMcpError(new StartOutcomeUnknownError('t1', true), logger)).toMatchObject({
      code: -32603,
      message: expect.stringMatching(/Retry the call/),
      data: { retryable: true },
    });
  });

  it('answers a per-owner limit as a retryable server error naming the limit and when to retry', () => {
    expect(toMcpError(new TaskLimitExceededError('creations-per-minute', 60, 17), logger)).toMatchObject({
      code: -32000,
      message: expect.stringMatching(/60 per minute; retry in 17 s/),
      data: { retryable: true, retryAfterSeconds: 17, limit: 'creations-per-minute', max: 60 },
    });
    expect(toMcpError(new TaskLimitExceededError('active-tasks', 100, 2), logger)).toMatchObject({
      code: -32000,
      message: expect.stringMatching(/100 active tasks \(the limit\)/),
    });
  });
});
