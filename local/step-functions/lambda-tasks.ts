// Turns Task states into aws-local-stepfunctions local handlers: the emulator's in-process Lambda functions, the
// callback pattern (callback-tasks.ts) and executions of other state machines (nested-executions.ts).
import { SfnApiError } from './api-error.js';
import { callbackTaskHandler, isCallbackResource, type ExecutionScope } from './callback-tasks.js';
import { invoke, invokedFunction, isRecord, stateError, type JsonValue, type TaskHandlers } from './lambda-invoke.js';
import { startExecutionHandler } from './nested-executions.js';

export type { LambdaHandler, LambdaHandlers } from './lambda-invoke.js';

const DIRECT_LAMBDA_ARN = /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:([A-Za-z0-9_-]+)(:[A-Za-z0-9_$-]+)?$/;
const LAMBDA_INVOKE_INTEGRATION = /^arn:aws[a-z-]*:states:::lambda:invoke$/;

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

function handlerFor(resource: string, scope: ExecutionScope): (input: JsonValue) => Promise<JsonValue> {
  const { lambdas } = scope;
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
      const payload = await invoke(lambdas, invokedFunction(params), (params.Payload as JsonValue | undefined) ?? {});
      return { ExecutedVersion: '$LATEST', Payload: payload, StatusCode: 200 };
    };
  }
  const nested = startExecutionHandler(resource, scope.startChild);
  if (nested !== undefined) return nested;
  const callback = isCallbackResource(resource) ? callbackTaskHandler(resource, scope) : undefined;
  if (callback !== undefined) return callback;
  // Without a local handler the library would call real AWS Lambda; fail like a runtime error instead.
  return () =>
    Promise.reject(
      stateError(
        'States.Runtime',
        `Resource '${resource}' is not supported by the local Step Functions emulator`,
        false,
      ),
    );
}

/** One handler per Task state name, bound to an execution and its abort signal. */
export function buildTaskHandlers(
  resources: ReadonlyMap<string, string>,
  scope: ExecutionScope,
  signal: AbortSignal,
): TaskHandlers {
  const handlers: TaskHandlers = {};
  for (const [stateName, resource] of resources) {
    const handler = handlerFor(resource, scope);
    handlers[stateName] = (input) => {
      const work = untilAborted(handler(input), signal);
      // The library evaluates TimeoutSecondsPath after calling the handler; when that throws, it never awaits this
      // promise, and an unobserved rejection would take the whole emulator process down.
      work.catch(() => undefined);
      return work;
    };
  }
  return handlers;
}
