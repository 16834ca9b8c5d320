// Calls the emulator's in-process Lambda functions as Step Functions would, and shapes errors as the library reads
// them.
import type { RunOptions } from 'aws-local-stepfunctions';

export type LambdaHandler = (event: unknown) => Promise<unknown> | unknown;
export type LambdaHandlers = Readonly<Record<string, LambdaHandler>>;

export type TaskHandlers = NonNullable<NonNullable<RunOptions['overrides']>['taskResourceLocalHandlers']>;
export type TaskHandler = TaskHandlers[string];
export type JsonValue = Parameters<TaskHandler>[0];

// FunctionName of the lambda:invoke integration: a name, `account:function:name` or a full ARN, each optionally
// qualified.
const FUNCTION_NAME =
  /^(?:(?:arn:aws[a-z-]*:lambda:[a-z0-9-]+:)?\d{12}:function:)?([A-Za-z0-9_-]+)(:[A-Za-z0-9_$-]+)?$/;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An error as the library reads it: `name` is the ASL error, `message` the cause, the flags gate Retry/Catch. */
export function stateError(name: string, message: string, recoverable: boolean): Error {
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

export async function invoke(lambdas: LambdaHandlers, functionName: string, event: JsonValue): Promise<JsonValue> {
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

/** The function a lambda:invoke integration's Parameters name; throws the state error AWS would report. */
export function invokedFunction(params: Record<string, unknown>): string {
  const name = typeof params.FunctionName === 'string' ? FUNCTION_NAME.exec(params.FunctionName)?.[1] : undefined;
  if (name === undefined) {
    throw stateError('Lambda.InvalidParameterValueException', 'FunctionName is missing or malformed', true);
  }
  return name;
}
