// What each engine's EventBridge status event says of its execution (executionChangeOf): the task it belongs to, what
// to record, and what to describe when the event does not carry the outcome. Every status of both engines' APIs.
import { ExecutionStatus as LambdaApiStatus } from '@aws-sdk/client-lambda';
import { ExecutionStatus as SfnApiStatus } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import {
  DURABLE_EXECUTION_STATUS_CHANGE,
  DurableExecutionStatus,
  LAMBDA_EVENT_SOURCE,
} from '../../../lambda/contract/durable-execution-status-events.js';
import {
  EXECUTION_STATUS_CHANGE,
  ExecutionStatus,
  STEP_FUNCTIONS_EVENT_SOURCE,
} from '../../../lambda/contract/execution-status-events.js';
import {
  compactExecutionNameFor,
  executionNameFor,
  executionNameOf,
  taskKey,
  taskKeyFromExecutionName,
} from '../../../lambda/core/task-key.js';
import { durableExecutionRefFor } from '../../../lambda/executor/durable-execution-arn.js';
import {
  executionChangeOf,
  type DurableExecutionStatusChangeEvent,
  type ExecutionStatusChangeDetail,
  type ExecutionStatusChangeEvent,
} from '../../../lambda/handlers/execution-status-event.js';

const FUNCTION = 'arn:aws:lambda:eu-west-1:123456789012:function:durable-review';
const KEY = taskKey('alice', 'task-1');
const NAME = compactExecutionNameFor(KEY, '0123456789');
const SFN_NAME = executionNameFor(KEY, '0123456789');
/** The reference the task stores (the server computes it before the start, from the tool's ARN). */
const REFERENCE = durableExecutionRefFor(`${FUNCTION}:live`, NAME);

const envelope = { version: '0', id: 'e1', account: '123456789012', time: '2025-11-20T13:08:22Z', region: 'eu-west-1' };

/** A "Durable Execution Status Change" event as the documentation's example has it, for the execution of version 7. */
function durableEvent(status: string, version = '7'): DurableExecutionStatusChangeEvent {
  const arn = `${FUNCTION}:${version}/durable-execution/${NAME}/5f3c1a2b-0c4d-4e5f-8a9b-0c1d2e3f4a5b`;
  const terminal = status !== DurableExecutionStatus.Running;
  return {
    ...envelope,
    source: LAMBDA_EVENT_SOURCE,
    'detail-type': DURABLE_EXECUTION_STATUS_CHANGE,
    resources: [arn],
    detail: {
      durableExecutionArn: arn,
      durableExecutionName: NAME,
      functionArn: `${FUNCTION}:${version}`,
      status: status as DurableExecutionStatus,
      startTimestamp: '2025-11-20T13:08:22.345Z',
      ...(terminal ? { endTimestamp: '2025-11-20T13:09:01.012Z' } : {}),
    },
  };
}

const SFN_ARN = `arn:aws:states:eu-west-1:123456789012:execution:analyze-documents:${SFN_NAME}`;

function stepFunctionsEvent(detail: Partial<ExecutionStatusChangeDetail>): ExecutionStatusChangeEvent {
  return {
    ...envelope,
    source: STEP_FUNCTIONS_EVENT_SOURCE,
    'detail-type': EXECUTION_STATUS_CHANGE,
    resources: [SFN_ARN],
    detail: {
      executionArn: SFN_ARN,
      stateMachineArn: 'arn:aws:states:eu-west-1:123456789012:stateMachine:analyze-documents',
      name: SFN_NAME,
      status: ExecutionStatus.Running,
      ...detail,
    },
  };
}

describe('executionChangeOf, a durable execution event', () => {
  it('knows every status the Lambda API defines for a durable execution, and no other', () => {
    expect(Object.values(DurableExecutionStatus).sort()).toEqual(Object.values(LambdaApiStatus).sort());
  });

  it('RUNNING is recorded as it is: the execution runs, nothing to describe', () => {
    expect(executionChangeOf(durableEvent('RUNNING'))).toEqual({
      executionArn: REFERENCE,
      update: { status: ExecutionStatus.Running },
      describedArn: durableEvent('RUNNING').detail.durableExecutionArn,
      status: 'RUNNING',
    });
  });

  it.each(['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'STOPPED'])(
    '%s is described by the real ARN: the event carries neither result nor error',
    (status) => {
      const event = durableEvent(status);
      expect(executionChangeOf(event)).toEqual({
        executionArn: REFERENCE,
        update: 'describe',
        describedArn: event.detail.durableExecutionArn,
        status,
      });
    },
  );

  it('a status Lambda may add later is described too, not taken for running', () => {
    expect(executionChangeOf(durableEvent('PAUSED'))).toMatchObject({ update: 'describe', status: 'PAUSED' });
  });

  it.each(['7', '$LATEST'])(
    'names the task by the reference it stores, whatever version (here %s) runs the execution',
    (version) => {
      const { executionArn } = executionChangeOf(durableEvent('SUCCEEDED', version));
      expect(executionArn).toBe(REFERENCE);
      expect(taskKeyFromExecutionName(executionNameOf(executionArn))).toBe(KEY);
    },
  );
});

describe('executionChangeOf, a Step Functions execution event', () => {
  it('knows every status the Step Functions API defines, and no other', () => {
    expect(Object.values(ExecutionStatus).sort()).toEqual(Object.values(SfnApiStatus).sort());
  });

  it('names the execution by its own ARN, and describes it by the same', () => {
    expect(executionChangeOf(stepFunctionsEvent({}))).toEqual({
      executionArn: SFN_ARN,
      update: { status: 'RUNNING' },
      describedArn: SFN_ARN,
      status: 'RUNNING',
    });
    expect(taskKeyFromExecutionName(executionNameOf(SFN_ARN))).toBe(KEY);
  });

  it('SUCCEEDED carries its output, unless the output was too large for the event: then it is described', () => {
    expect(executionChangeOf(stepFunctionsEvent({ status: 'SUCCEEDED', output: '{"words":3}' })).update).toEqual({
      status: 'SUCCEEDED',
      output: '{"words":3}',
    });
    expect(
      executionChangeOf(stepFunctionsEvent({ status: 'SUCCEEDED', output: null, outputDetails: { included: false } }))
        .update,
    ).toBe('describe');
  });

  it.each(['FAILED', 'TIMED_OUT', 'ABORTED'] as const)('%s carries its error and cause', (status) => {
    expect(
      executionChangeOf(stepFunctionsEvent({ status, error: 'States.Timeout', cause: 'The wait timed out.' })).update,
    ).toEqual({ status, error: 'States.Timeout', cause: 'The wait timed out.' });
  });

  it('PENDING_REDRIVE and a null error are passed on as they are', () => {
    expect(executionChangeOf(stepFunctionsEvent({ status: 'PENDING_REDRIVE', error: null, cause: null }))).toEqual({
      executionArn: SFN_ARN,
      update: { status: 'PENDING_REDRIVE' },
      describedArn: SFN_ARN,
      status: 'PENDING_REDRIVE',
    });
  });
});
