// The executor contract: runs a task's work on a workflow engine and reports on it. Each engine has its own
// implementation (Step Functions, and an in-memory one for tests); `WorkflowEngines` (workflow-engines.ts) is the one
// the service holds, and hands each call to the engine the workflow or the execution ARN names.
import type { ExecutionSnapshot } from '../core/execution-status.js';
import type { Workflow } from '../contract/workflow-engine.js';

export interface StartRequest {
  /** The engine, and the ARN of what it runs (a state machine, a durable function's qualified ARN). */
  readonly workflow: Workflow;
  /** Deterministic per task, so that a retried start can never run the work twice. */
  readonly executionName: string;
  /** JSON text: the tool's arguments. */
  readonly input: string;
}

export interface TaskExecutor {
  /**
   * The ARN an execution of this name will have; known before it starts, so the task can be stored first. Every later
   * call names the execution by it, and its engine is read from it (`engineOfExecutionArn`).
   */
  executionArnFor(workflow: Workflow, executionName: string): string;

  /**
   * Starts the execution. Idempotent: when an execution of this name already exists (running or closed)
   * nothing new starts and its ARN is returned. Throws `ExecutionStartError` when the engine refused
   * for good (unknown workflow, bad input); other errors mean the outcome is unknown.
   */
  start(request: StartRequest): Promise<{ executionArn: string }>;

  /**
   * The execution's state, or `null` when it does not exist. The status is in Step Functions' terms, which every
   * engine's statuses map onto, so one translation (`outcomeOfExecution`) serves them all.
   */
  describe(executionArn: string): Promise<ExecutionSnapshot | null>;

  /**
   * The name of the step the execution is in now (one small history read), or `null` when it has entered none.
   * Throws as the engine does when the execution does not exist, and other errors as they come: callers treat it as
   * optional.
   */
  currentStep(executionArn: string): Promise<string | null>;

  /**
   * Stops a running execution; a no-op for one that is closed or does not exist. Idempotent, so a failed stop may be
   * sent again; {@link isEngineRefusal} tells a refusal, which no retry mends, from a fault.
   */
  stop(executionArn: string, reason: { error: string; cause: string }): Promise<void>;

  /**
   * Resumes the execution `executionArn`, waiting on `token` (a Step Functions task token, a durable execution's
   * callback ID), with `output` (JSON text). Returns `'delivered'`, or `'gone'` when nothing waits on that token any
   * more (answered already, timed out, execution ended). Any other error means the answer may not have been
   * delivered: the caller keeps the request open.
   */
  resume(executionArn: string, token: string, output: string): Promise<'delivered' | 'gone'>;
}

/**
 * Whether an engine's error refuses the request itself (an AWS service error marked the caller's fault: access denied,
 * a malformed ARN), which sending it again cannot mend. A server fault (a 5xx), a timeout, a lost connection and a
 * throttle (translated to `ServiceBusyError` by the client) are not: the same call may succeed a moment later.
 */
export function isEngineRefusal(error: unknown): boolean {
  return (error as { $fault?: unknown } | null)?.$fault === 'client';
}
