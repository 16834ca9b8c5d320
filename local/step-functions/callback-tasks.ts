// The callback pattern (`.waitForTaskToken`) on top of aws-local-stepfunctions, which has none of it.
//
// What the library could not do, and how this file fills the gap:
// - `$$.Task.Token`: the library passes our context object through, so TaskTokens.contextFor puts a getter there.
// - Pausing: a Task state's local handler may return a promise; ours settles when the token is answered.
// - HeartbeatSeconds(Path): the library ignores both. The prepared definition copies them into the state's Parameters
//   under reserved keys, so the library itself resolves the path; the handler reads and strips those keys.
// - TimeoutSeconds: the library applies it (and its States.Timeout, which States.TaskFailed does not match), but
//   defaults to 60 s where AWS waits for up to a year, and evaluates TimeoutSecondsPath against the Parameters
//   output instead of the state input. The prepared definition sets a default and routes the path through Parameters.
// - A heartbeat timeout must also match Catch/Retry on States.Timeout, as in AWS; the prepared definition adds
//   States.HeartbeatTimeout next to States.Timeout in those ErrorEquals.
import { invoke, invokedFunction, isRecord, stateError, type JsonValue, type LambdaHandlers } from './lambda-invoke.js';
import { prepareStartExecutionState, type StartChild } from './nested-executions.js';
import { MAX_TIMER_SECONDS, type TaskTokens, type WaitLimits } from './task-tokens.js';

/** What a Task handler needs to know about the execution it serves. */
export interface ExecutionScope {
  readonly executionArn: string;
  readonly lambdas: LambdaHandlers;
  readonly tokens: TaskTokens;
  /** Starts another execution on the emulator (the `states:startExecution` integrations). */
  readonly startChild: StartChild;
}

const CALLBACK_RESOURCE = /^arn:aws[a-z-]*:states:::[a-z0-9-]+:[A-Za-z]+\.waitForTaskToken$/;
const LAMBDA_INVOKE_CALLBACK = /^arn:aws[a-z-]*:states:::lambda:invoke\.waitForTaskToken$/;
const HEARTBEAT_KEY = '__emulatorHeartbeatSeconds';
const TIMEOUT_KEY = '__emulatorTimeoutSeconds';

export function isCallbackResource(resource: string): boolean {
  return CALLBACK_RESOURCE.test(resource);
}

function addHeartbeatTimeout(handlers: unknown): void {
  if (!Array.isArray(handlers)) return;
  for (const handler of handlers) {
    if (!isRecord(handler) || !Array.isArray(handler.ErrorEquals)) continue;
    const errors = handler.ErrorEquals as unknown[];
    if (errors.includes('States.Timeout') && !errors.includes('States.HeartbeatTimeout')) {
      errors.push('States.HeartbeatTimeout');
    }
  }
}

function prepareCallbackState(state: Record<string, unknown>): void {
  addHeartbeatTimeout(state.Retry);
  addHeartbeatTimeout(state.Catch);
  const params = isRecord(state.Parameters) ? state.Parameters : undefined;
  if (typeof state.HeartbeatSeconds === 'number') {
    if (params) params[HEARTBEAT_KEY] = state.HeartbeatSeconds;
  } else if (typeof state.HeartbeatSecondsPath === 'string') {
    if (params) params[`${HEARTBEAT_KEY}.$`] = state.HeartbeatSecondsPath;
  }
  if (typeof state.TimeoutSeconds === 'number') {
    state.TimeoutSeconds = Math.min(state.TimeoutSeconds, MAX_TIMER_SECONDS);
    if (params) params[TIMEOUT_KEY] = state.TimeoutSeconds;
  } else if (typeof state.TimeoutSecondsPath === 'string' && params) {
    params[`${TIMEOUT_KEY}.$`] = state.TimeoutSecondsPath;
    state.TimeoutSecondsPath = `$.${TIMEOUT_KEY}`;
  } else if (state.TimeoutSecondsPath === undefined) {
    state.TimeoutSeconds = MAX_TIMER_SECONDS; // AWS's default is 99999999 s: in practice, no timeout
  }
}

/**
 * The definition the library runs: a copy of `definition` with the callback states adjusted as described at the top
 * of this file, and the `states:startExecution` ones as nested-executions.ts does. DescribeStateMachine keeps
 * answering with the definition as written.
 */
export function prepareForLibrary(definition: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(definition);
  const walk = (machine: unknown): void => {
    if (!isRecord(machine) || !isRecord(machine.States)) return;
    for (const state of Object.values(machine.States)) {
      if (!isRecord(state)) continue;
      if (state.Type === 'Task' && typeof state.Resource === 'string' && isCallbackResource(state.Resource)) {
        prepareCallbackState(state);
      } else if (state.Type === 'Task') {
        prepareStartExecutionState(state);
      } else if (state.Type === 'Map') {
        walk(state.ItemProcessor ?? state.Iterator);
      } else if (state.Type === 'Parallel' && Array.isArray(state.Branches)) {
        state.Branches.forEach(walk);
      }
    }
  };
  walk(copy);
  return copy;
}

/** A resolved HeartbeatSeconds / TimeoutSeconds: AWS fails the state with States.Runtime for a bad path value. */
function seconds(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw stateError('States.Runtime', `${field} must be a positive integer, got ${JSON.stringify(value)}`, false);
  }
  return Math.min(value, MAX_TIMER_SECONDS);
}

/** Splits the reserved keys off a copy of the Parameters output; the library still reads the original. */
function takeLimits(input: JsonValue): { params: Record<string, unknown>; limits: WaitLimits } {
  const params: Record<string, unknown> = isRecord(input) ? { ...input } : {};
  const heartbeatSeconds = seconds(params[HEARTBEAT_KEY], 'HeartbeatSeconds');
  const timeoutSeconds = seconds(params[TIMEOUT_KEY], 'TimeoutSeconds');
  delete params[HEARTBEAT_KEY];
  delete params[TIMEOUT_KEY];
  return {
    params,
    limits: {
      ...(heartbeatSeconds === undefined ? {} : { heartbeatSeconds }),
      ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
    },
  };
}

/**
 * `lambda:invoke.waitForTaskToken`: invokes the function with its Payload (where `$$.Task.Token` put the token), then
 * waits for SendTaskSuccess / SendTaskFailure. The function's result is discarded, as in AWS; if it throws (and was
 * not invoked with InvocationType Event), the state fails with its error. Other callback integrations (SQS, SNS,
 * EventBridge, ...) have no local stand-in: undefined makes the caller report them as unsupported.
 */
export function callbackTaskHandler(
  resource: string,
  scope: ExecutionScope,
): ((input: JsonValue) => Promise<JsonValue>) | undefined {
  if (!LAMBDA_INVOKE_CALLBACK.test(resource)) return undefined;
  return (input) => {
    let params: Record<string, unknown>;
    let limits: WaitLimits;
    let functionName: string;
    try {
      ({ params, limits } = takeLimits(input));
      functionName = invokedFunction(params);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    // Opened before the function runs: it may hand the token on and see it answered before it returns.
    const { token, result } = scope.tokens.open(scope.executionArn, limits);
    const fireAndForget = params.InvocationType === 'Event';
    invoke(scope.lambdas, functionName, (params.Payload as JsonValue | undefined) ?? {}).catch((error: unknown) => {
      if (!fireAndForget) scope.tokens.abandon(token, error as Error);
    });
    return result;
  };
}
