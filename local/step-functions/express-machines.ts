// What sets an EXPRESS state machine apart on the emulator, as in AWS: the integration patterns its definition may not
// use (refused when it is created) and its 5-minute limit (applied to every run).
import { SfnApiError } from './api-error.js';
import { isRecord } from './lambda-invoke.js';

/** The longest an EXPRESS execution runs: AWS ends it as TIMED_OUT after 5 minutes, whatever its TimeoutSeconds. */
export const EXPRESS_MAX_SECONDS = 300;

// EXPRESS supports neither the job-run (`.sync`, `.sync:2`) nor the callback (`.waitForTaskToken`) pattern, nor
// activities: each needs an execution that can wait and be found again, which is what EXPRESS gives up.
const STANDARD_ONLY_PATTERN = /\.(sync(?::\d+)?|waitForTaskToken)$/;
const ACTIVITY = /^arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:activity:/;

function refusal(resource: string, at: string): SfnApiError {
  const pattern = STANDARD_ONLY_PATTERN.exec(resource)?.[0];
  const what = pattern === undefined ? 'activities' : `'${pattern}' service integration`;
  return new SfnApiError(
    'InvalidDefinition',
    `Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: Express state machine does not support ${what} ` +
      `at ${at}/Resource'`,
  );
}

/**
 * Throws InvalidDefinition for the first Task state (Map and Parallel states' inner ones included) whose Resource
 * EXPRESS does not support, as CreateStateMachine does in AWS.
 */
export function assertExpressDefinition(definition: Record<string, unknown>): void {
  const walk = (machine: unknown, at: string): void => {
    if (!isRecord(machine) || !isRecord(machine.States)) return;
    for (const [name, state] of Object.entries(machine.States)) {
      if (!isRecord(state)) continue;
      const path = `${at}/States/${name}`;
      if (state.Type === 'Task' && typeof state.Resource === 'string') {
        if (STANDARD_ONLY_PATTERN.test(state.Resource) || ACTIVITY.test(state.Resource))
          throw refusal(state.Resource, path);
      } else if (state.Type === 'Map') {
        walk(state.ItemProcessor ?? state.Iterator, `${path}/${state.ItemProcessor ? 'ItemProcessor' : 'Iterator'}`);
      } else if (state.Type === 'Parallel' && Array.isArray(state.Branches)) {
        state.Branches.forEach((branch, index) => walk(branch, `${path}/Branches/${index}`));
      }
    }
  };
  walk(definition, '');
}

/** Holds the copy of the definition the library runs to the EXPRESS limit: its TimeoutSeconds, at most 5 minutes. */
export function withExpressTimeout(prepared: Record<string, unknown>): Record<string, unknown> {
  const own = typeof prepared.TimeoutSeconds === 'number' ? prepared.TimeoutSeconds : EXPRESS_MAX_SECONDS;
  return { ...prepared, TimeoutSeconds: Math.min(own, EXPRESS_MAX_SECONDS) };
}
