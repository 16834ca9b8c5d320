// One executor over every workflow engine. A start names its engine in the workflow; every later call names the
// execution, whose ARN tells the engine (engineOfExecutionArn), so a stored task, however old, needs no field of its
// own for it and every caller keeps one executor.
import { EngineNotConfiguredError, ExecutionStartError } from '../core/errors.js';
import type { ExecutionSnapshot } from '../core/execution-status.js';
import { engineOfExecutionArn, WorkflowEngine, type Workflow } from '../contract/workflow-engine.js';
import { compactExecutionNameFor, executionNameFor } from '../core/task-key.js';
import { durableExecutionRefFor } from './durable-execution-arn.js';
import { executionArnFor as stepFunctionsExecutionArnFor } from './execution-arn.js';
import type { SyncExecutor, SyncRunRequest } from './sync-executor.js';
import type { StartRequest, TaskExecutor } from './task-executor.js';

/**
 * The ARN an execution of `executionName` will have: a string rule per engine, no SDK, so that callers that need it
 * before the AWS SDK loads (see handlers/loaded-on-first-call.ts) can have it.
 */
export function executionArnFor(workflow: Workflow, executionName: string): string {
  switch (workflow.engine) {
    case WorkflowEngine.StepFunctions:
      return stepFunctionsExecutionArnFor(workflow.arn, executionName);
    case WorkflowEngine.DurableFunctions:
      return durableExecutionRefFor(workflow.arn, executionName);
    default:
      throw new EngineNotConfiguredError(String(workflow.engine));
  }
}

/**
 * The name of a task's execution on the engine: within each engine's limits (Step Functions' 80 characters, a durable
 * execution's 64), and carrying the task key, so that a status event naming the execution finds its task.
 */
export function executionNameOn(engine: WorkflowEngine, key: string, nonce: string): string {
  return engine === WorkflowEngine.DurableFunctions
    ? compactExecutionNameFor(key, nonce)
    : executionNameFor(key, nonce);
}

export interface WorkflowEnginesOptions {
  /** Also runs EXPRESS machines synchronously: only Step Functions has such runs. */
  readonly stepFunctions: TaskExecutor & SyncExecutor;
  /** @default - none: a durable function's task is refused at its start, as a misconfigured tool is */
  readonly durableFunctions?: TaskExecutor;
}

export class WorkflowEngines implements TaskExecutor, SyncExecutor {
  private readonly engines: Readonly<Partial<Record<WorkflowEngine, TaskExecutor>>>;
  private readonly sync: SyncExecutor;

  constructor(options: WorkflowEnginesOptions) {
    this.sync = options.stepFunctions;
    this.engines = {
      [WorkflowEngine.StepFunctions]: options.stepFunctions,
      ...(options.durableFunctions ? { [WorkflowEngine.DurableFunctions]: options.durableFunctions } : {}),
    };
  }

  executionArnFor(workflow: Workflow, executionName: string): string {
    return executionArnFor(workflow, executionName);
  }

  async start(request: StartRequest): Promise<{ executionArn: string }> {
    const engine = this.engines[request.workflow.engine];
    // Nothing started, and the same request cannot succeed: the operator's to fix, like an unknown state machine.
    if (engine === undefined)
      throw new ExecutionStartError(
        `This backend has no ${request.workflow.engine} engine to start ${request.workflow.arn} on`,
        'configuration',
      );
    return engine.start(request);
  }

  runSync(request: SyncRunRequest, signal?: AbortSignal): Promise<ExecutionSnapshot> {
    return this.sync.runSync(request, signal);
  }

  async describe(executionArn: string): Promise<ExecutionSnapshot | null> {
    return this.engineOf(executionArn).describe(executionArn);
  }

  async currentStep(executionArn: string): Promise<string | null> {
    return this.engineOf(executionArn).currentStep(executionArn);
  }

  async stop(executionArn: string, reason: { error: string; cause: string }): Promise<void> {
    return this.engineOf(executionArn).stop(executionArn, reason);
  }

  async resume(executionArn: string, token: string, output: string): Promise<'delivered' | 'gone'> {
    return this.engineOf(executionArn).resume(executionArn, token, output);
  }

  /** The engine of an execution; an ARN of no known engine is Step Functions', as every task was before engines. */
  private engineOf(executionArn: string): TaskExecutor {
    return this.engine(engineOfExecutionArn(executionArn) ?? WorkflowEngine.StepFunctions);
  }

  private engine(engine: WorkflowEngine): TaskExecutor {
    const executor = this.engines[engine];
    if (executor === undefined) throw new EngineNotConfiguredError(engine);
    return executor;
  }
}
