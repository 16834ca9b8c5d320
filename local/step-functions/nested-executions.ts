// Step Functions as a service integration of itself: a Task state whose Resource is
// `arn:aws:states:::states:startExecution` starts an execution of another state machine on this emulator; with
// `.sync` or `.sync:2` it waits for that execution and ends as it did. That is how an EXPRESS tool's STANDARD wrapper
// (lambda/contract/express-wrapper.ts) runs its EXPRESS machine.
//
// When the parent is stopped, the Task handler's wait is released (lambda-tasks.ts) and the child is left to run to
// its end: an EXPRESS child cannot be stopped at all (StopExecution does not apply to EXPRESS executions), so in AWS
// it, too, runs on until it ends, at most 5 minutes.
import { SfnApiError } from './api-error.js';
import { isRecord, stateError, type JsonValue } from './lambda-invoke.js';
import { MAX_TIMER_SECONDS } from './task-tokens.js';

/** What the integration reads of a started execution: what DescribeExecution would answer, and when it ends. */
export interface ChildExecution {
  readonly arn: string;
  readonly name: string;
  readonly machine: { readonly arn: string };
  readonly input: string;
  readonly startDate: Date;
  readonly status: string;
  readonly stopDate?: Date;
  readonly output?: string;
  readonly error?: string;
  readonly cause?: string;
  /** Resolves once the run has ended and the fields above hold its final state. */
  readonly settled?: Promise<void>;
}

/** Starts an execution as the StartExecution API does, its refusals thrown as SfnApiError. */
export type StartChild = (request: { stateMachineArn: string; name?: string; input?: string }) => ChildExecution;

const START_EXECUTION = /^arn:aws[a-z-]*:states:::states:startExecution(\.sync(:2)?)?$/;

export function isStartExecutionResource(resource: string): boolean {
  return START_EXECUTION.test(resource);
}

/**
 * Readies a Task state of the copy the library runs, when it is a `states:startExecution` one that waits for its child:
 * where AWS waits as long as the child runs (99999999 s by default), the library would end the wait after its own
 * default Task timeout of 60 s, before an EXPRESS child (up to 5 minutes) could end.
 */
export function prepareStartExecutionState(state: Record<string, unknown>): void {
  const waits = typeof state.Resource === 'string' && START_EXECUTION.exec(state.Resource)?.[1] !== undefined;
  if (waits && state.TimeoutSeconds === undefined && state.TimeoutSecondsPath === undefined)
    state.TimeoutSeconds = MAX_TIMER_SECONDS;
}

/** The integration's Parameters as a StartExecution request: an Input that is not a string is sent as its JSON. */
function startRequest(params: Record<string, unknown>): Parameters<StartChild>[0] {
  if (typeof params.StateMachineArn !== 'string')
    throw stateError('States.Runtime', 'The startExecution integration needs StateMachineArn', false);
  const input = params.Input;
  return {
    stateMachineArn: params.StateMachineArn,
    ...(typeof params.Name === 'string' ? { name: params.Name } : {}),
    ...(input === undefined ? {} : { input: typeof input === 'string' ? input : JSON.stringify(input) }),
  };
}

/** The API's refusal as the state error AWS reports for it (`StepFunctions.ExecutionLimitExceededException`, ...). */
function refusedAs(error: unknown): unknown {
  if (!(error instanceof SfnApiError)) return error;
  return stateError(`StepFunctions.${error.type.replace(/Exception$/, '')}Exception`, error.message, true);
}

/**
 * The child as the `.sync` integrations answer it: DescribeExecution's members in PascalCase, dates in epoch
 * milliseconds; `.sync:2` parses the input and output JSON, `.sync` leaves them as text.
 */
export function describedChild(child: ChildExecution, parsed: boolean): Record<string, unknown> {
  const data = (text: string): unknown => (parsed ? JSON.parse(text) : text);
  return {
    ExecutionArn: child.arn,
    StateMachineArn: child.machine.arn,
    Name: child.name,
    Status: child.status,
    StartDate: child.startDate.getTime(),
    ...(child.stopDate === undefined ? {} : { StopDate: child.stopDate.getTime() }),
    Input: data(child.input),
    InputDetails: { Included: true },
    ...(child.output === undefined ? {} : { Output: data(child.output), OutputDetails: { Included: true } }),
    ...(child.error === undefined ? {} : { Error: child.error }),
    ...(child.cause === undefined ? {} : { Cause: child.cause }),
  };
}

/**
 * The Task handler of a `states:startExecution` resource. Without `.sync` it answers the start (ExecutionArn,
 * StartDate); with it, the ended child described, or, when the child did not succeed, the state fails with
 * `States.TaskFailed` whose cause is that description as JSON, as in AWS.
 */
export function startExecutionHandler(
  resource: string,
  startChild: StartChild,
): ((input: JsonValue) => Promise<JsonValue>) | undefined {
  const pattern = START_EXECUTION.exec(resource);
  if (pattern === null) return undefined;
  const waits = pattern[1] !== undefined;
  const parsed = pattern[2] !== undefined;
  return async (input) => {
    let child: ChildExecution;
    try {
      child = startChild(startRequest(isRecord(input) ? input : {}));
    } catch (error) {
      throw refusedAs(error);
    }
    if (!waits) return { ExecutionArn: child.arn, StartDate: child.startDate.getTime() };
    await child.settled;
    const described = describedChild(child, parsed) as JsonValue;
    if (child.status === 'SUCCEEDED') return described;
    throw stateError('States.TaskFailed', JSON.stringify(described), true);
  };
}
