// TaskExecutor and SyncExecutor in memory, for fast unit tests: executions that a test drives by hand (succeed, fail,
// enter a step, wait on a task token) instead of state machines that run by themselves; a synchronous run answers once
// the test ends its execution. It keeps the contracts' guarantees as Step Functions does (one execution per name, stop
// a no-op once closed or for an EXPRESS execution, a token answered once) and counts every call, so a test can assert
// "exactly one execution" or "one describe per refresh interval". It stands in for either engine: an execution is
// named by its workflow's engine's rule. Not for production: nothing runs.
import { ExecutionStartError } from '../core/errors.js';
import type { ExecutionSnapshot } from '../core/execution-status.js';
import { ExecutionStatus } from '../contract/execution-status-events.js';
import { executionArnFor } from './workflow-engines.js';
import type { Workflow } from '../contract/workflow-engine.js';
import type { StartRequest, TaskExecutor } from './task-executor.js';
import type { SyncExecutor, SyncRunRequest } from './sync-executor.js';
import { MAX_EXECUTION_PAYLOAD_BYTES } from './step-functions-limits.js';

/** An execution as the in-memory executor holds it. */
export interface InMemoryExecution {
  readonly executionArn: string;
  readonly stateMachineArn: string;
  readonly name: string;
  /** The JSON text it was started with. */
  readonly input: string;
  readonly status: ExecutionStatus;
  readonly output?: string;
  readonly error?: string;
  readonly cause?: string;
  /** The state it is in, as `currentStep` reports it; `null` until a test enters one. */
  readonly currentStep: string | null;
  /** The task tokens it waits on (`waitForToken`), each until answered or the execution closes. */
  readonly waitingTokens: readonly string[];
  /** What `resume` delivered to it, in order (JSON text). */
  readonly answers: readonly string[];
}

/** How many times each executor method was called. */
export interface ExecutorCalls {
  start: number;
  describe: number;
  currentStep: number;
  stop: number;
  resume: number;
  runSync: number;
}

export interface InMemoryExecutorOptions {
  /**
   * The state machines that exist; a start of any other is refused for good (`ExecutionStartError`, `configuration`),
   * as Step Functions refuses one that does not exist. @default every machine exists
   */
  readonly stateMachineArns?: readonly string[];
}

/** The error Step Functions gives for an execution that does not exist (`ExecutionDoesNotExist`). */
function executionDoesNotExist(executionArn: string): Error {
  return Object.assign(new Error(`Execution Does Not Exist: '${executionArn}'`), { name: 'ExecutionDoesNotExist' });
}

const isExpress = (execution: InMemoryExecution): boolean => execution.executionArn.includes(':express:');

function snapshotOf(execution: Pick<InMemoryExecution, 'status' | 'output' | 'error' | 'cause'>): ExecutionSnapshot {
  return {
    status: execution.status,
    ...(execution.output !== undefined ? { output: execution.output } : {}),
    ...(execution.error !== undefined ? { error: execution.error } : {}),
    ...(execution.cause !== undefined ? { cause: execution.cause } : {}),
  };
}

export class InMemoryExecutor implements TaskExecutor, SyncExecutor {
  /** Calls so far, per method (reset with `resetCalls`). */
  readonly calls: ExecutorCalls = { start: 0, describe: 0, currentStep: 0, stop: 0, resume: 0, runSync: 0 };
  private readonly executionsByArn = new Map<string, InMemoryExecution>();
  /** The callers of `runSync` still waiting, by execution ARN: answered when the test ends the execution. */
  private readonly syncWaits = new Map<string, (execution: ExecutionSnapshot) => void>();
  private syncRuns = 0;
  private readonly stateMachineArns: ReadonlySet<string> | undefined;
  private tokens = 0;

  constructor(options: InMemoryExecutorOptions = {}) {
    this.stateMachineArns = options.stateMachineArns === undefined ? undefined : new Set(options.stateMachineArns);
  }

  /** Each engine's own ARN rule, so an execution of a durable tool is named as the durable engine names it. */
  executionArnFor(workflow: Workflow, executionName: string): string {
    return executionArnFor(workflow, executionName);
  }

  async start(request: StartRequest): Promise<{ executionArn: string }> {
    this.calls.start++;
    const executionArn = this.executionArnFor(request.workflow, request.executionName);
    // The name is taken (running or closed): that execution, never a second run.
    if (this.executionsByArn.has(executionArn)) return { executionArn };
    this.launch(executionArn, request.workflow.arn, request);
    return { executionArn };
  }

  /**
   * Starts an EXPRESS execution (ARN `…:express:<machine>:<name>:<n>`, one per call, as EXPRESS names need not be
   * unique) and answers once the test ends it; an abort of `signal` rejects with an `AbortError` and leaves it
   * running, as an EXPRESS execution cannot be stopped.
   */
  async runSync(request: SyncRunRequest, signal?: AbortSignal): Promise<ExecutionSnapshot> {
    this.calls.runSync++;
    const executionArn =
      `${request.stateMachineArn.replace(':stateMachine:', ':express:')}:${request.executionName}:` +
      `${++this.syncRuns}`;
    this.launch(executionArn, request.stateMachineArn, request);
    return new Promise((resolve, reject) => {
      const abandon = (): void => {
        this.syncWaits.delete(executionArn);
        reject(Object.assign(new Error('The wait was aborted'), { name: 'AbortError' }));
      };
      if (signal?.aborted) return abandon();
      signal?.addEventListener('abort', abandon, { once: true });
      this.syncWaits.set(executionArn, (execution) => {
        signal?.removeEventListener('abort', abandon);
        resolve(execution);
      });
    });
  }

  async describe(executionArn: string): Promise<ExecutionSnapshot | null> {
    this.calls.describe++;
    const execution = this.executionsByArn.get(executionArn);
    return execution === undefined ? null : snapshotOf(execution);
  }

  async currentStep(executionArn: string): Promise<string | null> {
    this.calls.currentStep++;
    const execution = this.executionsByArn.get(executionArn);
    if (execution === undefined) throw executionDoesNotExist(executionArn);
    return execution.currentStep;
  }

  async stop(executionArn: string, reason: { error: string; cause: string }): Promise<void> {
    this.calls.stop++;
    const execution = this.executionsByArn.get(executionArn);
    if (execution === undefined || execution.status !== ExecutionStatus.Running || isExpress(execution)) return;
    this.close(execution, { status: ExecutionStatus.Aborted, error: reason.error, cause: reason.cause });
  }

  async resume(_executionArn: string, taskToken: string, output: string): Promise<'delivered' | 'gone'> {
    this.calls.resume++;
    const execution = [...this.executionsByArn.values()].find(
      (candidate) => candidate.status === ExecutionStatus.Running && candidate.waitingTokens.includes(taskToken),
    );
    if (execution === undefined) return 'gone';
    this.executionsByArn.set(execution.executionArn, {
      ...execution,
      waitingTokens: execution.waitingTokens.filter((token) => token !== taskToken),
      answers: [...execution.answers, output],
    });
    return 'delivered';
  }

  // Test controls. Each acts on a running execution and throws for one never started; on a closed one they change
  // nothing (an execution closes once).

  /** Every execution started, oldest first. */
  executions(): InMemoryExecution[] {
    return [...this.executionsByArn.values()];
  }

  /** The execution as it stands. */
  execution(executionArn: string): InMemoryExecution {
    const execution = this.executionsByArn.get(executionArn);
    // A control naming an execution never started is a mistake in the test.
    if (execution === undefined) throw executionDoesNotExist(executionArn);
    return execution;
  }

  /** Ends the execution SUCCEEDED with `output`, a value (stored as its JSON text) or, with `raw`, JSON text as is. */
  succeed(executionArn: string, output: unknown, options: { raw?: boolean } = {}): void {
    const text = options.raw && typeof output === 'string' ? output : JSON.stringify(output);
    this.closeRunning(executionArn, { status: ExecutionStatus.Succeeded, output: text });
  }

  /** Ends the execution FAILED with Step Functions' `error` and `cause`. */
  fail(executionArn: string, error: string, cause?: string): void {
    this.closeRunning(executionArn, {
      status: ExecutionStatus.Failed,
      error,
      ...(cause !== undefined ? { cause } : {}),
    });
  }

  /** Ends the execution TIMED_OUT (its TimeoutSeconds passed, or a task state's). */
  timeOut(executionArn: string, error = 'States.Timeout', cause?: string): void {
    this.closeRunning(executionArn, {
      status: ExecutionStatus.TimedOut,
      error,
      ...(cause !== undefined ? { cause } : {}),
    });
  }

  /** Moves the running execution into the state `name`. */
  enterStep(executionArn: string, name: string): void {
    const execution = this.execution(executionArn);
    if (execution.status !== ExecutionStatus.Running) return;
    this.executionsByArn.set(executionArn, { ...execution, currentStep: name });
  }

  /**
   * Makes the running execution wait on a new task token (a `.waitForTaskToken` state; several at once for the
   * branches of a Parallel or Map) and returns it; the token is answered once by `resume`, and is gone once
   * the execution closes.
   */
  waitForToken(executionArn: string): string {
    const execution = this.execution(executionArn);
    if (execution.status !== ExecutionStatus.Running)
      throw new Error(`Execution ${executionArn} is ${execution.status}: it waits on no token`);
    const token = `token-${++this.tokens}-${execution.name}`;
    this.executionsByArn.set(executionArn, { ...execution, waitingTokens: [...execution.waitingTokens, token] });
    return token;
  }

  /** Sets every call count back to zero. */
  resetCalls(): void {
    for (const method of Object.keys(this.calls) as (keyof ExecutorCalls)[]) this.calls[method] = 0;
  }

  /** Records a new running execution, refusing it first as Step Functions would (unknown machine, input too large). */
  private launch(
    executionArn: string,
    stateMachineArn: string,
    request: Pick<StartRequest, 'executionName' | 'input'>,
  ) {
    if (this.stateMachineArns !== undefined && !this.stateMachineArns.has(stateMachineArn))
      throw new ExecutionStartError(
        `Step Functions refused to start the execution: State Machine Does Not Exist: '${stateMachineArn}'`,
        'configuration',
      );
    if (Buffer.byteLength(request.input, 'utf8') > MAX_EXECUTION_PAYLOAD_BYTES)
      throw new ExecutionStartError(
        `Step Functions refused the tool input: it is over ${MAX_EXECUTION_PAYLOAD_BYTES} bytes`,
        'input',
      );
    this.executionsByArn.set(executionArn, {
      executionArn,
      stateMachineArn,
      name: request.executionName,
      input: request.input,
      status: ExecutionStatus.Running,
      currentStep: null,
      waitingTokens: [],
      answers: [],
    });
  }

  private closeRunning(
    executionArn: string,
    end: Pick<InMemoryExecution, 'status' | 'output' | 'error' | 'cause'>,
  ): void {
    const execution = this.execution(executionArn);
    if (execution.status === ExecutionStatus.Running) this.close(execution, end);
  }

  private close(
    execution: InMemoryExecution,
    end: Pick<InMemoryExecution, 'status' | 'output' | 'error' | 'cause'>,
  ): void {
    this.executionsByArn.set(execution.executionArn, { ...execution, ...end, waitingTokens: [] });
    const waiting = this.syncWaits.get(execution.executionArn);
    this.syncWaits.delete(execution.executionArn);
    waiting?.(snapshotOf({ ...execution, ...end }));
  }
}
