// TaskExecutor in memory, for fast unit tests: executions that a test drives by hand (succeed, fail, enter a step,
// wait on a task token) instead of state machines that run by themselves. It keeps the contract's guarantees as Step
// Functions does (one execution per name, stop a no-op once closed, a token answered once) and counts every call, so
// a test can assert "exactly one execution" or "one describe per refresh interval". Not for production: nothing runs.
import { ExecutionStartError } from '../core/errors.js';
import type { ExecutionSnapshot } from '../core/execution-status.js';
import { ExecutionStatus } from '../contract/execution-status-events.js';
import { executionArnFor } from './execution-arn.js';
import type { StartRequest, TaskExecutor } from './task-executor.js';
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
  /** What `sendTaskSuccess` delivered to it, in order (JSON text). */
  readonly answers: readonly string[];
}

/** How many times each executor method was called. */
export interface ExecutorCalls {
  start: number;
  describe: number;
  currentStep: number;
  stop: number;
  sendTaskSuccess: number;
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

export class InMemoryExecutor implements TaskExecutor {
  /** Calls so far, per method (reset with `resetCalls`). */
  readonly calls: ExecutorCalls = { start: 0, describe: 0, currentStep: 0, stop: 0, sendTaskSuccess: 0 };
  private readonly executionsByArn = new Map<string, InMemoryExecution>();
  private readonly stateMachineArns: ReadonlySet<string> | undefined;
  private tokens = 0;

  constructor(options: InMemoryExecutorOptions = {}) {
    this.stateMachineArns = options.stateMachineArns === undefined ? undefined : new Set(options.stateMachineArns);
  }

  executionArnFor(stateMachineArn: string, executionName: string): string {
    return executionArnFor(stateMachineArn, executionName);
  }

  async start(request: StartRequest): Promise<{ executionArn: string }> {
    this.calls.start++;
    const executionArn = this.executionArnFor(request.stateMachineArn, request.executionName);
    // The name is taken (running or closed): that execution, never a second run.
    if (this.executionsByArn.has(executionArn)) return { executionArn };
    if (this.stateMachineArns !== undefined && !this.stateMachineArns.has(request.stateMachineArn))
      throw new ExecutionStartError(
        `Step Functions refused to start the execution: State Machine Does Not Exist: '${request.stateMachineArn}'`,
        'configuration',
      );
    if (Buffer.byteLength(request.input, 'utf8') > MAX_EXECUTION_PAYLOAD_BYTES)
      throw new ExecutionStartError(
        `Step Functions refused the tool input: it is over ${MAX_EXECUTION_PAYLOAD_BYTES} bytes`,
        'input',
      );
    const execution: InMemoryExecution = {
      executionArn,
      stateMachineArn: request.stateMachineArn,
      name: request.executionName,
      input: request.input,
      status: ExecutionStatus.Running,
      currentStep: null,
      waitingTokens: [],
      answers: [],
    };
    this.executionsByArn.set(executionArn, execution);
    return { executionArn };
  }

  async describe(executionArn: string): Promise<ExecutionSnapshot | null> {
    this.calls.describe++;
    const execution = this.executionsByArn.get(executionArn);
    if (execution === undefined) return null;
    return {
      status: execution.status,
      ...(execution.output !== undefined ? { output: execution.output } : {}),
      ...(execution.error !== undefined ? { error: execution.error } : {}),
      ...(execution.cause !== undefined ? { cause: execution.cause } : {}),
    };
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
    if (execution === undefined || execution.status !== ExecutionStatus.Running) return;
    this.close(execution, { status: ExecutionStatus.Aborted, error: reason.error, cause: reason.cause });
  }

  async sendTaskSuccess(taskToken: string, output: string): Promise<'delivered' | 'gone'> {
    this.calls.sendTaskSuccess++;
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
   * branches of a Parallel or Map) and returns it; the token is answered once by `sendTaskSuccess`, and is gone once
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
  }
}
