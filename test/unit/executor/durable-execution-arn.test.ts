// A durable execution's reference (what a task stores) and its real ARN (what Lambda answers with): both computed
// or normalised by string rules alone, so the server and the workflow agree on the reference without asking Lambda.
import { describe, expect, it } from 'vitest';
import {
  compactExecutionNameFor,
  executionNameOf,
  taskKey,
  taskKeyFromExecutionName,
} from '../../../lambda/core/task-key.js';
import {
  durableExecutionRefFor,
  durableExecutionRefOf,
  durableExecutionNameOf,
  isDurableExecutionArn,
  isDurableExecutionRef,
  isFunctionArn,
  isQualifiedFunctionArn,
  unqualifiedFunctionArnOf,
} from '../../../lambda/executor/durable-execution-arn.js';

const FUNCTION = 'arn:aws:lambda:eu-west-1:123456789012:function:durable-review';
const NAME = compactExecutionNameFor(taskKey('owner', 'task'), '0123456789');
const REF = `${FUNCTION}/durable-execution/${NAME}`;
const REAL = `${FUNCTION}:7/durable-execution/${NAME}/5f0c3a9e-8d1b-4c2e-9f7a-1b2c3d4e5f60`;
const STATE_MACHINE = 'arn:aws:states:eu-west-1:123456789012:stateMachine:text-stats';

describe('durable execution references', () => {
  it('are the same from an unqualified function ARN, a version, an alias and $LATEST', () => {
    for (const functionArn of [FUNCTION, `${FUNCTION}:7`, `${FUNCTION}:live`, `${FUNCTION}:$LATEST`])
      expect(durableExecutionRefFor(functionArn, NAME)).toBe(REF);
  });

  it('normalise a real execution ARN to the reference, and leave a reference as it is', () => {
    expect(durableExecutionRefOf(REAL)).toBe(REF);
    expect(durableExecutionRefOf(`${FUNCTION}:$LATEST.PUBLISHED/durable-execution/${NAME}/abc`)).toBe(REF);
    expect(durableExecutionRefOf(REF)).toBe(REF);
  });

  it('keep the partition', () => {
    const china = 'arn:aws-cn:lambda:cn-north-1:123456789012:function:review';
    expect(durableExecutionRefFor(`${china}:1`, 'run-1')).toBe(`${china}/durable-execution/run-1`);
  });

  it('end with the execution name, which carries the task key as a Step Functions execution ARN does', () => {
    expect(durableExecutionNameOf(REF)).toBe(NAME);
    expect(durableExecutionNameOf(REAL)).toBe(NAME);
    expect(taskKeyFromExecutionName(executionNameOf(REF))).toBe(taskKey('owner', 'task'));
  });

  it('tell a reference from a real ARN', () => {
    expect(isDurableExecutionRef(REF)).toBe(true);
    expect(isDurableExecutionRef(REAL)).toBe(false);
    expect(isDurableExecutionArn(REF)).toBe(true);
    expect(isDurableExecutionArn(REAL)).toBe(true);
  });

  it('refuse what is not a durable execution', () => {
    expect(isDurableExecutionArn(FUNCTION)).toBe(false);
    expect(isDurableExecutionArn(`${STATE_MACHINE.replace(':stateMachine:', ':execution:')}:${NAME}`)).toBe(false);
    expect(() => durableExecutionRefOf(STATE_MACHINE)).toThrow(/Not a durable execution ARN/);
    expect(() => durableExecutionNameOf(FUNCTION)).toThrow(/Not a durable execution ARN/);
  });
});

describe('function ARNs', () => {
  it('are Lambda function ARNs, qualified or not; a state machine is not one', () => {
    expect(isFunctionArn(FUNCTION)).toBe(true);
    expect(isFunctionArn(`${FUNCTION}:$LATEST`)).toBe(true);
    expect(isFunctionArn(STATE_MACHINE)).toBe(false);
    expect(isFunctionArn(REF)).toBe(false);
  });

  it('are qualified by a version, an alias or $LATEST', () => {
    expect(isQualifiedFunctionArn(`${FUNCTION}:7`)).toBe(true);
    expect(isQualifiedFunctionArn(`${FUNCTION}:live`)).toBe(true);
    expect(isQualifiedFunctionArn(`${FUNCTION}:$LATEST`)).toBe(true);
    expect(isQualifiedFunctionArn(FUNCTION)).toBe(false);
  });

  it('lose their qualifier, and a durable execution its execution part, when unqualified', () => {
    expect(unqualifiedFunctionArnOf(`${FUNCTION}:live`)).toBe(FUNCTION);
    expect(unqualifiedFunctionArnOf(FUNCTION)).toBe(FUNCTION);
    expect(unqualifiedFunctionArnOf(REAL)).toBe(FUNCTION);
    expect(unqualifiedFunctionArnOf(REF)).toBe(FUNCTION);
    expect(() => unqualifiedFunctionArnOf(STATE_MACHINE)).toThrow(/Not a Lambda function/);
  });
});
