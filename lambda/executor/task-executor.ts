// The executor contract: runs a task's work somewhere and reports on it. Step Functions is the one implementation.
import type { ExecutionSnapshot } from '../core/execution-status.js';

export interface StartRequest {
  readonly stateMachineArn: string;
  /** Deterministic per task, so that a retried start can never run the work twice. */
  readonly executionName: string;
  /** JSON text. */
  readonly input: string;
}

export interface TaskExecutor {
  /** The ARN an execution of this name will have; known before it starts, so the task can be stored first. */
  executionArnFor(stateMachineArn: string, executionName: string): string;

  /**
   * Starts the execution. Idempotent: when an execution of this name already exists (running or closed)
   * nothing new starts and its ARN is returned. Throws `ExecutionStartError` when Step Functions refused
   * for good (unknown machine, bad input); other errors mean the outcome is unknown.
   */
  start(request: StartRequest): Promise<{ executionArn: string }>;

  /** The execution's state, or `null` when it does not exist. */
  describe(executionArn: string): Promise<ExecutionSnapshot | null>;

  /**
   * The name of the state the execution is in now (from its history: one GetExecutionHistory call), or `null` when
   * it has entered none. Throws `ExecutionDoesNotExist` and other errors as they come: callers treat it as optional.
   */
  currentStep(executionArn: string): Promise<string | null>;

  /** Stops a running execution; a no-op for one that is closed or does not exist. */
  stop(executionArn: string, reason: { error: string; cause: string }): Promise<void>;

  /**
   * Resumes the execution waiting on `taskToken` with `output` (JSON text): SendTaskSuccess. Returns `'delivered'`,
   * or `'gone'` when Step Functions no longer waits on that token (answered already, timed out, execution ended).
   * Any other error means the answer may not have been delivered: the caller keeps the request open.
   */
  sendTaskSuccess(taskToken: string, output: string): Promise<'delivered' | 'gone'>;
}
