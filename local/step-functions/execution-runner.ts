// Runs one execution on aws-local-stepfunctions and reduces its result to a Step Functions outcome.
import './promise-polyfill.js';
import { ExecutionError, ExecutionTimeoutError, StateMachine, type RunOptions } from 'aws-local-stepfunctions';
import type { ExecutionScope } from './callback-tasks.js';
import type { EventLog } from './execution-history.js';
import { buildTaskHandlers } from './lambda-tasks.js';

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

export interface ExecutionOutcome {
  readonly status: Exclude<ExecutionStatus, 'RUNNING'>;
  /** JSON text, present only when SUCCEEDED. */
  readonly output?: string;
  readonly error?: string;
  readonly cause?: string;
}

export interface RunningExecution {
  /** Never rejects. */
  readonly outcome: Promise<ExecutionOutcome>;
  stop(): void;
}

export type JsonValue = Parameters<StateMachine['run']>[0];
export type ExecutionContext = NonNullable<RunOptions['context']>;

// The library's FailStateError fills in these when the Fail state has no Error / Cause; AWS reports none.
const FAIL_STATE_DEFAULT_ERROR = 'FailStateError';
const FAIL_STATE_DEFAULT_CAUSE = 'Execution failed because of a Fail state';

function failure(thrown: unknown): ExecutionOutcome {
  if (thrown instanceof ExecutionTimeoutError) return { status: 'TIMED_OUT' };
  // ExecutionError wraps the state error that ended the run; its name/message are the ASL Error/Cause.
  const stateError = thrown instanceof ExecutionError ? thrown.cause : thrown;
  if (stateError instanceof Error) {
    // An empty name is a SendTaskFailure without an error: AWS reports no error then.
    const named = stateError.name !== FAIL_STATE_DEFAULT_ERROR && stateError.name !== '';
    return {
      status: 'FAILED',
      ...(named ? { error: stateError.name } : {}),
      ...(stateError.message === FAIL_STATE_DEFAULT_CAUSE ? {} : { cause: stateError.message }),
    };
  }
  return { status: 'FAILED', error: 'States.Runtime', cause: String(stateError) };
}

/**
 * Starts `machine` (already validated) on `input`, passing each event of the run to `onEvent`. Stopping is reported by
 * the caller, which records ABORTED itself; the outcome promise then settles as ABORTED too and can be ignored.
 */
export function runExecution(
  machine: StateMachine,
  taskResources: ReadonlyMap<string, string>,
  scope: ExecutionScope,
  input: JsonValue,
  context: ExecutionContext,
  onEvent: (event: EventLog) => void,
): RunningExecution {
  // Separate from the library's own controller: it also releases Task handlers still pending when the run ends
  // by timeout or stop, whose Task timeout timers would otherwise keep the process alive for up to a minute.
  const release = new AbortController();
  const run = machine.run(input, {
    overrides: { taskResourceLocalHandlers: buildTaskHandlers(taskResources, scope, release.signal) },
    context,
    noThrowOnAbort: true,
  });
  // Consumed as they come, for GetExecutionHistory; unread, the library's queue of them would also grow without end.
  void (async () => {
    for await (const event of run.eventLogs) onEvent(event);
  })().catch((error: unknown) => console.error('[step-functions emulator] event log failed', error));
  const outcome = run.result.then(
    (result): ExecutionOutcome =>
      release.signal.aborted ? { status: 'ABORTED' } : { status: 'SUCCEEDED', output: JSON.stringify(result) },
    failure,
  );
  void outcome.finally(() => release.abort());
  return {
    outcome,
    stop: () => {
      release.abort();
      run.abort();
    },
  };
}
