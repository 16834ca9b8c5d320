// TaskExecutor over Lambda durable functions. A task stores its execution's *reference* (see durable-execution-arn.ts):
// each call resolves it to the real execution ARN once (ListDurableExecutionsByFunction) and keeps the answer, so a
// second call on the same instance costs no lookup.
import {
  CallbackTimeoutException,
  CodeArtifactUserDeletedException,
  CodeArtifactUserFailedException,
  DurableExecutionAlreadyStartedException,
  GetDurableExecutionCommand,
  GetDurableExecutionHistoryCommand,
  InvalidParameterValueException,
  InvalidRequestContentException,
  InvalidRuntimeException,
  InvokeCommand,
  KMSAccessDeniedException,
  KMSDisabledException,
  KMSInvalidStateException,
  KMSNotFoundException,
  ListDurableExecutionsByFunctionCommand,
  ModeNotSupportedException,
  NoPublishedVersionException,
  RecursiveInvocationException,
  RequestTooLargeException,
  ResourceConflictException,
  ResourceNotFoundException,
  SendDurableExecutionCallbackSuccessCommand,
  SerializedRequestEntityTooLargeException,
  ServiceQuotaExceededException,
  StopDurableExecutionCommand,
  TooManyRequestsException,
  UnsupportedMediaTypeException,
  type LambdaClient,
} from '@aws-sdk/client-lambda';
import { ExecutionStartError, ServiceBusyError, type ExecutionStartFault } from '../core/errors.js';
import type { ExecutionSnapshot } from '../core/execution-status.js';
import { ExecutionStatus } from '../contract/execution-status-events.js';
import type { DurableToolEvent } from '../contract/durable-tool-event.js';
import type { Workflow } from '../contract/workflow-engine.js';
import {
  DURABLE_EXECUTION_NAME,
  durableExecutionNameOf,
  durableExecutionRefFor,
  isDurableExecutionRef,
  isQualifiedFunctionArn,
  unqualifiedFunctionArnOf,
} from './durable-execution-arn.js';
import { currentDurableStepOf, snapshotOfDurableExecution } from './durable-execution-reading.js';
import type { StartRequest, TaskExecutor } from './task-executor.js';

export interface DurableFunctionExecutorOptions {
  readonly client: LambdaClient;
}

/** How many of the newest history events are read to find the current step. */
const CURRENT_STEP_EVENTS = 20;

/** Real ARNs kept per instance, the oldest forgotten first: a warm instance serves many tasks over its life. */
const KNOWN_ARNS = 10_000;

export class DurableFunctionExecutor implements TaskExecutor {
  private readonly client: LambdaClient;
  /** Reference → real execution ARN. An execution's ARN never changes, so an entry stays true while it exists. */
  private readonly realArns = new Map<string, string>();

  constructor(options: DurableFunctionExecutorOptions) {
    this.client = options.client;
  }

  executionArnFor(workflow: Workflow, executionName: string): string {
    return durableExecutionRefFor(workflow.arn, executionName);
  }

  /**
   * An asynchronous Invoke of the function's qualified ARN, named: Lambda starts one execution per name, so a retried
   * start (same name, same payload) finds the first. Returns the execution's reference, as the task stores it.
   */
  async start(request: StartRequest): Promise<{ executionArn: string }> {
    const { arn } = request.workflow;
    const reference = durableExecutionRefFor(arn, request.executionName);
    // Lambda starts durable executions only of a version or alias, and names only of its pattern; say so without
    // asking it.
    if (!isQualifiedFunctionArn(arn))
      throw new ExecutionStartError(
        `Lambda refused to start the durable execution: ${arn} names no version or alias`,
        'configuration',
      );
    if (!DURABLE_EXECUTION_NAME.test(request.executionName))
      throw new ExecutionStartError(
        `Lambda refused to start the durable execution: the name '${request.executionName}' is not 1-64 ` +
          `characters of A-Z, a-z, 0-9, '_' or '-'`,
        'configuration',
      );
    const payload = { arguments: argumentsOf(request.input), execution: reference } satisfies DurableToolEvent;
    try {
      const { DurableExecutionArn } = await this.client.send(
        new InvokeCommand({
          FunctionName: arn,
          InvocationType: 'Event',
          DurableExecutionName: request.executionName,
          Payload: Buffer.from(JSON.stringify(payload), 'utf8'),
        }),
      );
      if (DurableExecutionArn !== undefined) this.remember(reference, DurableExecutionArn);
      return { executionArn: reference };
    } catch (error) {
      // The name is taken: this task's execution already started (an earlier attempt whose answer was lost). The
      // start has succeeded either way; its real ARN is looked up when a call first needs it.
      if (error instanceof DurableExecutionAlreadyStartedException) return { executionArn: reference };
      // Anything but a refusal (a 5xx, a timeout, a refused connection, a function not ready yet): the outcome is
      // unknown.
      throw startRefusal(error) ?? error;
    }
  }

  async describe(executionArn: string): Promise<ExecutionSnapshot | null> {
    const realArn = await this.realArnOf(executionArn);
    if (realArn === null) return null;
    try {
      return snapshotOfDurableExecution(
        await this.client.send(new GetDurableExecutionCommand({ DurableExecutionArn: realArn })),
      );
    } catch (error) {
      if (!(error instanceof ResourceNotFoundException)) throw error;
      this.realArns.delete(executionArn);
      return null;
    }
  }

  /** The newest named operation started and not finished; `null` also for an execution that does not exist (yet). */
  async currentStep(executionArn: string): Promise<string | null> {
    const realArn = await this.realArnOf(executionArn);
    if (realArn === null) return null;
    // Newest first and without payloads: the current operation is among the last few events, and one small page
    // keeps this to a single call however long the history has grown.
    const { Events } = await this.client.send(
      new GetDurableExecutionHistoryCommand({
        DurableExecutionArn: realArn,
        ReverseOrder: true,
        MaxItems: CURRENT_STEP_EVENTS,
        IncludeExecutionData: false,
      }),
    );
    return currentDurableStepOf(Events ?? []);
  }

  async stop(executionArn: string, reason: { error: string; cause: string }): Promise<void> {
    const realArn = await this.realArnOf(executionArn);
    if (realArn === null) return;
    try {
      await this.client.send(
        new StopDurableExecutionCommand({
          DurableExecutionArn: realArn,
          Error: { ErrorType: reason.error, ErrorMessage: reason.cause },
        }),
      );
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return;
      // Lambda documents no error of its own for stopping a closed execution: if it refuses the stop, ask whether the
      // execution still runs, and take a closed one as stopped already.
      if (error instanceof InvalidParameterValueException || error instanceof ResourceConflictException) {
        const execution = await this.describe(executionArn);
        if (execution === null || execution.status !== ExecutionStatus.Running) return;
      }
      throw error;
    }
  }

  /** SendDurableExecutionCallbackSuccess: the callback ID alone names the execution's waiting operation. */
  async resume(_executionArn: string, token: string, output: string): Promise<'delivered' | 'gone'> {
    try {
      await this.client.send(
        new SendDurableExecutionCallbackSuccessCommand({ CallbackId: token, Result: Buffer.from(output, 'utf8') }),
      );
      return 'delivered';
    } catch (error) {
      // CallbackTimeoutException is Lambda's answer for a callback expired or already closed.
      if (error instanceof CallbackTimeoutException || error instanceof ResourceNotFoundException) return 'gone';
      throw error;
    }
  }

  private remember(reference: string, realArn: string): void {
    this.realArns.delete(reference);
    this.realArns.set(reference, realArn);
    if (this.realArns.size > KNOWN_ARNS) this.realArns.delete(this.realArns.keys().next().value!);
  }

  /**
   * The real ARN of an execution named by its reference (or by its real ARN, returned as it is), or `null` when
   * Lambda has no such execution (not started yet, or gone). Only a found one is kept: a start may yet land.
   */
  private async realArnOf(executionArn: string): Promise<string | null> {
    if (!isDurableExecutionRef(executionArn)) return executionArn;
    const known = this.realArns.get(executionArn);
    if (known !== undefined) return known;
    const name = durableExecutionNameOf(executionArn);
    try {
      const { DurableExecutions } = await this.client.send(
        new ListDurableExecutionsByFunctionCommand({
          FunctionName: unqualifiedFunctionArnOf(executionArn),
          DurableExecutionName: name,
          MaxItems: 10,
        }),
      );
      // The name filter is not documented as exact, so the match is checked here.
      const realArn = DurableExecutions?.find((each) => each.DurableExecutionName === name)?.DurableExecutionArn;
      if (realArn === undefined) return null;
      this.remember(executionArn, realArn);
      return realArn;
    } catch (error) {
      // The function itself is gone, and its executions with it.
      if (error instanceof ResourceNotFoundException) return null;
      throw error;
    }
  }
}

/** The tool arguments of a start request (JSON text); text that is no JSON is the caller's input refused. */
function argumentsOf(input: string): DurableToolEvent['arguments'] {
  try {
    return JSON.parse(input) as DurableToolEvent['arguments'];
  } catch (error) {
    throw new ExecutionStartError('Lambda refused the tool input: it is not JSON', 'input', { cause: error });
  }
}

/** A definite refusal of an Invoke as `ExecutionStartError`, or `null` when the outcome is unknown. */
function startRefusal(error: unknown): ExecutionStartError | null {
  const fault = startRefusalFault(error);
  if (fault === null) return null;
  const message =
    fault === 'input'
      ? `Lambda refused the tool input: ${(error as Error).message}`
      : `Lambda refused to start the durable execution: ${(error as Error).message}`;
  return new ExecutionStartError(message, fault, { cause: error });
}

/**
 * The fault of an Invoke error that is a definite refusal (nothing started, and the same request cannot succeed, or
 * not soon), or `null` when the outcome is unknown. From Invoke's documented errors: the payload's size or content is
 * the caller's; a missing function, version or alias, a bad parameter (the name and ARN are ours), an invocation mode
 * or media type it does not take, a recursion stop, an unusable runtime, key or code artifact, and an IAM denial are
 * the operator's; a quota is capacity and a request rate used up is a throttle (after the SDK's retries; the caller
 * stops the execution anyway, in case an earlier attempt started it). Errors that pass by themselves (a function being
 * created or updated, a VPC interface not ready, SnapStart, a 5xx) stay unknown.
 */
function startRefusalFault(error: unknown): ExecutionStartFault | null {
  if (
    error instanceof RequestTooLargeException ||
    error instanceof SerializedRequestEntityTooLargeException ||
    error instanceof InvalidRequestContentException
  ) {
    return 'input';
  }
  if (
    error instanceof ResourceNotFoundException ||
    error instanceof InvalidParameterValueException ||
    error instanceof NoPublishedVersionException ||
    error instanceof ModeNotSupportedException ||
    error instanceof UnsupportedMediaTypeException ||
    error instanceof RecursiveInvocationException ||
    error instanceof InvalidRuntimeException ||
    error instanceof KMSAccessDeniedException ||
    error instanceof KMSDisabledException ||
    error instanceof KMSInvalidStateException ||
    error instanceof KMSNotFoundException ||
    error instanceof CodeArtifactUserDeletedException ||
    error instanceof CodeArtifactUserFailedException ||
    // Not an Invoke error class of its own: IAM's refusal of lambda:InvokeFunction, which no retry changes.
    (error instanceof Error && error.name === 'AccessDeniedException')
  ) {
    return 'configuration';
  }
  if (error instanceof ServiceQuotaExceededException) return 'capacity';
  // The API's rate, used up: translated by the client (see handlers/aws-throttling.ts) or, on a client without the
  // translation, Lambda's own exception.
  if (error instanceof ServiceBusyError || error instanceof TooManyRequestsException) return 'throttled';
  return null;
}
