// The ask step's logic, which its Lambda entry point (handlers/ask-step) and the local stack wrap: a
// `lambda:invoke.waitForTaskToken` state calls it to ask the client for input. It records the input request on the task
// the execution serves (found from the execution's name, see core/task-key) with the state's task token, and returns;
// the execution then waits until an answer resumes it (SendTaskSuccess) or the state's TimeoutSeconds /
// HeartbeatSeconds pass.
import { SYSTEM_CLOCK, type Clock } from '../core/clock.js';
import { inputKeyFor, NAMED_INPUT_KEY, type InputRequestMessage } from '../core/input-request.js';
import { inputRequestProblems } from '../contract/input-request-problems.js';
import { executionNameOf, taskKeyFromExecutionName } from '../core/task-key.js';
import type { InputRequestStore } from '../store/input-request-store.js';

/**
 * The Payload the ask state passes: `taskToken` from `$$.Task.Token`, `executionArn` from `$$.Execution.Id`, the MCP
 * request to ask, and the state's timeout in seconds (the request's deadline; keep it equal to the state's
 * TimeoutSeconds or HeartbeatSeconds, whichever is shorter).
 */
export interface AskStepEvent {
  readonly taskToken: string;
  readonly executionArn: string;
  readonly request: InputRequestMessage;
  readonly timeoutSeconds?: number;
  /** The request's key, when the workflow names it (see NAMED_INPUT_KEY); by default a digest of the task token. */
  readonly key?: string;
}

/**
 * The ask step's refusal: the invocation fails, so the state fails (or its Catch routes it) instead of waiting for
 * nothing.
 */
export class AskStepError extends Error {
  override name = 'AskStepError';
}

export interface AskStepOptions {
  readonly inputs: InputRequestStore;
  /** @default SYSTEM_CLOCK */
  readonly clock?: Pick<Clock, 'now'>;
}

/** One question to record: the ask step's and the durable ask helper's (see durable-ask.ts) common shape. */
export interface InputRequestToRecord {
  /** What the engine answers the workflow with: a Step Functions task token, or a durable callback ID. */
  readonly taskToken: string;
  /** The execution the question is asked from: a Step Functions execution ARN or a durable execution reference. */
  readonly executionArn: string;
  readonly request: InputRequestMessage;
  readonly timeoutSeconds?: number;
  readonly key?: string;
}

/**
 * Records the question on the task the execution serves, with the token the engine resumes the wait with, and
 * returns its key. Throws {@link AskStepError} for a malformed question, a foreign execution, or a task that is gone.
 */
export async function recordInputRequest(
  inputs: InputRequestStore,
  ask: InputRequestToRecord,
  now: number,
): Promise<{ key: string }> {
  const problems = inputRequestProblems(ask.request);
  if (problems.length > 0) throw new AskStepError(`The ask step's request is malformed: ${problems.join('; ')}`);
  const taskKey = taskKeyFromExecutionName(executionNameOf(ask.executionArn));
  if (taskKey === null)
    throw new AskStepError(`Execution ${ask.executionArn} was not started for an MCP task, so nobody can be asked.`);
  if (ask.key !== undefined && (typeof ask.key !== 'string' || !NAMED_INPUT_KEY.test(ask.key))) {
    throw new AskStepError(
      `The ask step's key must be 1-64 letters, digits, '_', '-' or '.', got ${JSON.stringify(ask.key)}.`,
    );
  }
  const key = ask.key ?? inputKeyFor(ask.taskToken);
  const timeout = ask.timeoutSeconds;
  const recorded = await inputs.record(taskKey, ask.executionArn, {
    key,
    request: ask.request,
    taskToken: ask.taskToken,
    askedAt: now,
    ...(typeof timeout === 'number' && timeout > 0 ? { deadlineAt: now + timeout * 1000 } : {}),
  });
  if (!recorded)
    throw new AskStepError('The task this execution serves is gone or finished; nobody is left to answer.');
  return { key };
}

/** The ask step's handler; the Lambda entry point (handlers/ask-step) and the local stack build it with their store. */
export function createAskStep(options: AskStepOptions): (event: AskStepEvent) => Promise<{ key: string }> {
  const clock = options.clock ?? SYSTEM_CLOCK;
  return async (event) => {
    if (typeof event?.taskToken !== 'string' || event.taskToken === '')
      throw new AskStepError('The ask step needs taskToken ($$.Task.Token) in its Payload.');
    if (typeof event.executionArn !== 'string')
      throw new AskStepError('The ask step needs executionArn ($$.Execution.Id) in its Payload.');
    return recordInputRequest(options.inputs, event, clock.now());
  };
}
