// TaskExecutor over AWS Step Functions (STANDARD state machines), and the synchronous runs of EXPRESS ones
// (StartSyncExecution) that plain calls of EXPRESS tools make.
import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  ExecutionLimitExceeded,
  GetExecutionHistoryCommand,
  InvalidArn,
  InvalidExecutionInput,
  InvalidName,
  InvalidToken,
  KmsAccessDeniedException,
  KmsInvalidStateException,
  StartExecutionCommand,
  StateMachineDeleting,
  SendTaskSuccessCommand,
  StateMachineDoesNotExist,
  StateMachineTypeNotSupported,
  TaskDoesNotExist,
  TaskTimedOut,
  StopExecutionCommand,
  ValidationException,
  type HistoryEvent,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import { ExecutionStartError, ServiceBusyError, type ExecutionStartFault } from '../core/errors.js';
import type { ExecutionSnapshot } from '../core/execution-status.js';
import type { ExecutionStatus } from '../contract/execution-status-events.js';
import type { Workflow } from '../contract/workflow-engine.js';
import { executionArnFor } from './execution-arn.js';
import { startSyncExecutionOnce, SYNC_REQUEST_TIMEOUT_MS } from './start-sync-execution.js';
import type { SyncExecutor, SyncRunRequest } from './sync-executor.js';
import type { StartRequest, TaskExecutor } from './task-executor.js';

export interface StepFunctionsExecutorOptions {
  readonly client: SFNClient;
}

export class StepFunctionsExecutor implements TaskExecutor, SyncExecutor {
  private readonly client: SFNClient;

  constructor(options: StepFunctionsExecutorOptions) {
    this.client = options.client;
  }

  executionArnFor(workflow: Workflow, executionName: string): string {
    return executionArnFor(workflow.arn, executionName);
  }

  async start(request: StartRequest): Promise<{ executionArn: string }> {
    try {
      const { executionArn } = await this.client.send(
        new StartExecutionCommand({
          stateMachineArn: request.workflow.arn,
          name: request.executionName,
          input: request.input,
        }),
      );
      return { executionArn: executionArn! };
    } catch (error) {
      // The name is taken: this task's execution already started (an earlier attempt whose answer was lost).
      if (error instanceof ExecutionAlreadyExists)
        return { executionArn: this.executionArnFor(request.workflow, request.executionName) };
      // Anything but a refusal (a timeout, a refused connection, a 5xx): the outcome is unknown.
      throw startRefusal(error) ?? error;
    }
  }

  /**
   * StartSyncExecution, sent once with a request timeout past the EXPRESS limit (see start-sync-execution.ts); an
   * abort of `signal` gives up the wait and rejects with the SDK's AbortError.
   */
  async runSync(request: SyncRunRequest, signal?: AbortSignal): Promise<ExecutionSnapshot> {
    try {
      return executionSnapshotOf(
        await this.client.send(startSyncExecutionOnce(request), {
          requestTimeout: SYNC_REQUEST_TIMEOUT_MS,
          ...(signal !== undefined ? { abortSignal: signal } : {}),
        }),
      );
    } catch (error) {
      // Sent once, a throttle (translated by the client, see handlers/aws-throttling.ts) started nothing: a refusal.
      throw startRefusal(error) ?? error;
    }
  }

  async describe(executionArn: string): Promise<ExecutionSnapshot | null> {
    try {
      return executionSnapshotOf(await this.client.send(new DescribeExecutionCommand({ executionArn })));
    } catch (error) {
      if (error instanceof ExecutionDoesNotExist) return null;
      throw error;
    }
  }

  async currentStep(executionArn: string): Promise<string | null> {
    // Newest first and without input/output: the current state is among the last few events, and one small page
    // keeps this to a single call however long the history has grown.
    const { events } = await this.client.send(
      new GetExecutionHistoryCommand({
        executionArn,
        reverseOrder: true,
        maxResults: CURRENT_STEP_EVENTS,
        includeExecutionData: false,
      }),
    );
    return currentStepOf(events ?? []);
  }

  async stop(executionArn: string, reason: { error: string; cause: string }): Promise<void> {
    try {
      await this.client.send(new StopExecutionCommand({ executionArn, error: reason.error, cause: reason.cause }));
    } catch (error) {
      if (error instanceof ExecutionDoesNotExist) return;
      throw error;
    }
  }

  /** SendTaskSuccess: the token alone names the execution's waiting state. */
  async resume(_executionArn: string, taskToken: string, output: string): Promise<'delivered' | 'gone'> {
    try {
      await this.client.send(new SendTaskSuccessCommand({ taskToken, output }));
      return 'delivered';
    } catch (error) {
      // TaskTimedOut is also what Step Functions says for a token already answered or whose execution ended.
      if (error instanceof TaskTimedOut || error instanceof TaskDoesNotExist || error instanceof InvalidToken)
        return 'gone';
      throw error;
    }
  }
}

/**
 * What the executor knows of an execution, from DescribeExecution's answer or StartSyncExecution's (which answers 200
 * for SUCCEEDED, FAILED and TIMED_OUT alike, with the same output, error and cause members).
 */
export function executionSnapshotOf(answer: {
  readonly status?: string;
  readonly output?: string;
  readonly error?: string;
  readonly cause?: string;
}): ExecutionSnapshot {
  return {
    status: answer.status as ExecutionStatus,
    ...(answer.output !== undefined ? { output: answer.output } : {}),
    ...(answer.error !== undefined ? { error: answer.error } : {}),
    ...(answer.cause !== undefined ? { cause: answer.cause } : {}),
  };
}

/** How many of the newest history events are read to find the current step. */
const CURRENT_STEP_EVENTS = 20;

/**
 * The state an execution is in, from its history newest first: the newest state entered and not exited since (a Map's
 * iterations may have entered and left inner states after it), else the newest entered at all, else `null`.
 */
export function currentStepOf(newestFirst: readonly HistoryEvent[]): string | null {
  const exited = new Set<string>();
  let newestEntered: string | null = null;
  for (const event of newestFirst) {
    const exitedName = event.type?.endsWith('StateExited') ? event.stateExitedEventDetails?.name : undefined;
    if (exitedName !== undefined) exited.add(exitedName);
    const enteredName = event.type?.endsWith('StateEntered') ? event.stateEnteredEventDetails?.name : undefined;
    if (enteredName === undefined) continue;
    if (!exited.has(enteredName)) return enteredName;
    newestEntered ??= enteredName;
  }
  return newestEntered;
}

/** A definite refusal as `ExecutionStartError`, or `null` when the outcome is unknown. */
function startRefusal(error: unknown): ExecutionStartError | null {
  const fault = startRefusalFault(error);
  if (fault === null) return null;
  const message =
    fault === 'input'
      ? `Step Functions refused the tool input: ${(error as Error).message}`
      : `Step Functions refused to start the execution: ${(error as Error).message}`;
  return new ExecutionStartError(message, fault, { cause: error });
}

/**
 * The fault of a StartExecution or StartSyncExecution error that is a definite refusal (nothing started, and retrying
 * the same request cannot succeed, or not soon), or `null` when the outcome is unknown. Every refusal the two document
 * is listed; KmsThrottlingException is not, as it throttles the machine's key, not the start. Of a quota refusal after
 * the client's retries, an earlier attempt whose answer was lost may still have started the execution: the caller
 * stops it before withdrawing the task.
 */
function startRefusalFault(error: unknown): ExecutionStartFault | null {
  if (error instanceof InvalidExecutionInput) return 'input';
  // A field that breaks a constraint; only the input is the caller's (over 256 KiB, say), the name and ARN are ours.
  if (error instanceof ValidationException) return /'input'|\binput\b/i.test(error.message) ? 'input' : 'configuration';
  if (
    error instanceof StateMachineDoesNotExist ||
    error instanceof StateMachineDeleting ||
    // StartSyncExecution of a STANDARD machine: the tool is registered wrongly.
    error instanceof StateMachineTypeNotSupported ||
    error instanceof InvalidName ||
    error instanceof InvalidArn ||
    error instanceof KmsAccessDeniedException ||
    error instanceof KmsInvalidStateException
  ) {
    return 'configuration';
  }
  if (error instanceof ExecutionLimitExceeded) return 'capacity';
  // The API's rate, used up (through the client's retries, for StartExecution); the client translates the throttle.
  if (error instanceof ServiceBusyError) return 'throttled';
  return null;
}
