// Turns Task states into aws-local-stepfunctions local handlers that call the emulator's in-process Lambda functions.
import type { RunOptions } from 'aws-local-stepfunctions';
import { SfnApiError } from './api-error.js';

export type LambdaHandler = (event: unknown) => Promise<unknown> | unknown;
export type LambdaHandlers = Readonly<Record<string, LambdaHandler>>;

type TaskHandlers = NonNullable<NonNullable<RunOptions['overrides']>['taskResourceLocalHandlers']>;
type TaskHandler = TaskHandlers[string];
type JsonValue = Parameters<TaskHandler>[0];

const DIRECT_LAMBDA_ARN = /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:([A-Za-z0-9_-]+)(:[A-Za-z0-9_$-]+)?$/;
const LAMBDA_INVOKE_INTEGRATION = /^arn:aws[a-z-]*:states:::lambda:invoke$/;
// FunctionName of the lambda:invoke integration: a name, `account:function:name` or a full ARN, each optionally qualified.
const FUNCTION_NAME = /^(?:(?:arn:aws[a-z-]*:lambda:[a-z0-9-]+:)?\d{12}:function:)?([A-Za-z0-9_-]+)(:[A-Za-z0-9_$-]+)?$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Task state name -> Resource over the whole definition, Map and Parallel sub-machines included.
 * The library looks local handlers up by state *name* (also inside sub-machines), so two Task states that share a
 * name but call different resources cannot be told apart; such definitions are refused rather than run wrongly.
 */
export function collectTaskResources(definition: unknown): Map<string, string> {
  const resources = new Map<string, string>();
  const walk = (machine: unknown): void => {
    if (!isRecord(machine) || !isRecord(machine.States)) return;
    for (const [name, state] of Object.entries(machine.States)) {
      if (!isRecord(state)) continue;
      if (state.Type === 'Task' && typeof state.Resource === 'string') {
        const known = resources.get(name);
        if (known !== undefined && known !== state.Resource) {
          throw new SfnApiError(
            'InvalidDefinition',
            `Task states named '${name}' call different resources; the local emulator needs Task state names ` +
              'to identify their resource uniquely',
          );
        }
        resources.set(name, state.Resource);
      } else if (state.Type === 'Map') {
        walk(state.ItemProcessor ?? state.Iterator);
      } else if (state.Type === 'Parallel' && Array.isArray(state.Branches)) {
        state.Branches.forEach(walk);
      }
    }
  };
  walk(definition);
  return resources;
}

/** An error as the library reads it: `name` is the ASL error, `message` the cause, the flags gate Retry/Catch. */
function stateError(name: string, message: string, recoverable: boolean): Error {
  const error = new Error(message);
  error.name = name;
  return recoverable ? error : Object.assign(error, { isRetryable: false, isCatchable: false });
}

/**
 * A fresh Error carrying only name and message, so a handler's own properties cannot leak into the library's
 * Retry/Catch decisions. AWS reports the Lambda errorType as the error; its Cause is a JSON document
 * ({errorType, errorMessage, trace}) whereas the emulator uses the plain message, which is easier to assert on.
 */
function lambdaError(thrown: unknown): Error {
  if (thrown instanceof Error) {
    return stateError(thrown.name === '' ? 'Error' : thrown.name, thrown.message, true);
  }
  return stateError('Error', typeof thrown === 'string' ? thrown : String(thrown), true);
}

/** Mirrors the JSON round trip of a real invocation: no shared references, undefined becomes null. */
function viaJson(value: unknown): JsonValue {
  const text = JSON.stringify(value);
  return text === undefined ? null : (JSON.parse(text) as JsonValue);
}

/** Stop waiting for a handler once the execution is stopped, so its pending Task timeout timer is cleared. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  const aborted = (): Error => stateError('States.Runtime', 'Execution was stopped', false);
  if (signal.aborted) return Promise.reject(aborted());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(aborted());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

async function invoke(lambdas: LambdaHandlers, functionName: string, event: JsonValue): Promise<JsonValue> {
  const handler = Object.hasOwn(lambdas, functionName) ? lambdas[functionName] : undefined;
  if (handler === undefined) {
    throw stateError('Lambda.ResourceNotFoundException', `Function not found: ${functionName}`, true);
  }
  let result: unknown;
  try {
    result = await handler(viaJson(event));
  } catch (thrown) {
    throw lambdaError(thrown);
  }
  return viaJson(result);
}

function handlerFor(resource: string, lambdas: LambdaHandlers): (input: JsonValue) => Promise<JsonValue> {
  const direct = DIRECT_LAMBDA_ARN.exec(resource);
  // Region and account of the ARN are not checked: definitions written for a real account still run locally.
  if (direct?.[1] !== undefined) {
    const functionName = direct[1];
    return (input) => invoke(lambdas, functionName, input);
  }
  if (LAMBDA_INVOKE_INTEGRATION.test(resource)) {
    // The optimised integration wraps the function's result; AWS adds SDK metadata fields that are omitted here.
    return async (input) => {
      const params = isRecord(input) ? input : {};
      const name = typeof params.FunctionName === 'string' ? FUNCTION_NAME.exec(params.FunctionName)?.[1] : undefined;
      if (name === undefined) {
        throw stateError('Lambda.InvalidParameterValueException', 'FunctionName is missing or malformed', true);
      }
      const payload = await invoke(lambdas, name, (params.Payload as JsonValue | undefined) ?? {});
      return { ExecutedVersion: '$LATEST', Payload: payload, StatusCode: 200 };
    };
  }
  // Without a local handler the library would call real AWS Lambda; fail like a runtime error instead.
  return () =>
    Promise.reject(
      stateError('States.Runtime', `Resource '${resource}' is not supported by the local Step Functions emulator`, false),
    );
}

/** One handler per Task state name, bound to an execution's abort signal. */
export function buildTaskHandlers(
  resources: ReadonlyMap<string, string>,
  lambdas: LambdaHandlers,
  signal: AbortSignal,
): TaskHandlers {
  const handlers: TaskHandlers = {};
  for (const [stateName, resource] of resources) {
    const handler = handlerFor(resource, lambdas);
    handlers[stateName] = (input) => untilAborted(handler(input), signal);
  }
  return handlers;
}
