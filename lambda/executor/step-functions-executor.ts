// TaskExecutor over AWS Step Functions (Standard state machines).
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
import { executionArnFor } from './execution-arn.js';
import type { StartRequest, TaskExecutor } from './task-executor.js';

export interface StepFunctionsExecutorOptions {
  readonly client: SFNClient;
}

export class StepFunctionsExecutor implements TaskExecutor {
  private readonly client: SFNClient;

  constructor(options: StepFunctionsExecutorOptions) {
    this.client = options.client;
  }

  executionArnFor(stateMachineArn: string, executionName: string): string {
    return executionArnFor(stateMachineArn, executionName);
  }

  async start(request: StartRequest): Promise<{ executionArn: string }> {
    try {
      const { executionArn } = await this.client.send(
        new StartExecutionCommand({
          stateMachineArn: request.stateMachineArn,
          name: request.executionName,
          input: request.input,
        }),
      );
      return { executionArn: executionArn! };
    } catch (error) {
      // The name is taken: this task's execution already started (an earlier attempt whose answer was lost).
      if (error instanceof ExecutionAlreadyExists)
        return { executionArn: this.executionArnFor(request.stateMachineArn, request.executionName) };
      const fault = startRefusalFault(error);
      if (fault === 'input')
        throw new ExecutionStartError(`Step Functions refused the tool input: ${(error as Error).message}`, fault, {
          cause: error,
        });
      if (fault !== null)
        throw new ExecutionStartError(
          `Step Functions refused to start the execution: ${(error as Error).message}`,
          fault,
          { cause: error },
        );
      // Anything else (a timeout, a refused connection, a 5xx): the outcome is unknown.
      throw error;
    }
  }

  async describe(executionArn: string): Promise<ExecutionSnapshot | null> {
    try {
      const execution = await this.client.send(new DescribeExecutionCommand({ executionArn }));
      return {
        status: execution.status as ExecutionStatus,
        ...(execution.output !== undefined ? { output: execution.output } : {}),
        ...(execution.error !== undefined ? { error: execution.error } : {}),
        ...(execution.cause !== undefined ? { cause: execution.cause } : {}),
      };
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

  async sendTaskSuccess(taskToken: string, output: string): Promise<'delivered' | 'gone'> {
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

/**
 * The fault of a StartExecution error that is a definite refusal (nothing started, and retrying the same
 * request cannot succeed, or not soon), or `null` when the outcome is unknown. Every refusal StartExecution
 * documents is listed; KmsThrottlingException is not, as it throttles the machine's key, not the start. Of a
 * quota refusal after the client's retries, an earlier attempt whose answer was lost may still have started the
 * execution: the caller stops it before withdrawing the task.
 */
function startRefusalFault(error: unknown): ExecutionStartFault | null {
  if (error instanceof InvalidExecutionInput) return 'input';
  // A field that breaks a constraint; only the input is the caller's (over 256 KiB, say), the name and ARN are ours.
  if (error instanceof ValidationException) return /'input'|\binput\b/i.test(error.message) ? 'input' : 'configuration';
  if (
    error instanceof StateMachineDoesNotExist ||
    error instanceof StateMachineDeleting ||
    error instanceof InvalidName ||
    error instanceof InvalidArn ||
    error instanceof KmsAccessDeniedException ||
    error instanceof KmsInvalidStateException
  ) {
    return 'configuration';
  }
  if (error instanceof ExecutionLimitExceeded) return 'capacity';
  // StartExecution's rate, used up through the client's retries (the composition root translates the throttle).
  if (error instanceof ServiceBusyError) return 'throttled';
  return null;
}
