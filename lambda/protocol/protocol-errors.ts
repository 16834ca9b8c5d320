// The one place where domain errors become JSON-RPC errors. Nothing else reaches a client: an unexpected
// fault is logged with a reference and answered -32603 with that reference, never a message or stack.
import { randomUUID } from 'node:crypto';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import {
  ExecutionStartError,
  ExecutionStopError,
  IllegalTransitionError,
  InputDeliveryError,
  InvalidInputResponseError,
  InvalidCursorError,
  InvalidPromptArgumentsError,
  InvalidToolArgumentsError,
  PromptNotFoundError,
  ServiceBusyError,
  StartOutcomeUnknownError,
  TaskAlreadyExistsError,
  TaskExpiredError,
  TaskLimitExceededError,
  TaskNotFoundError,
  ToolCatalogMissingError,
  ToolNotFoundError,
} from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { EVENTS_ERROR_CODE } from '../events/control-envelopes.js';
import {
  CallbackEndpointError,
  DeliveryModeUnsupportedError,
  EventTaskNotFoundError,
  EventTypeNotFoundError,
  InvalidEventParamsError,
  SubscriptionLimitError,
  SubscriptionNotFoundError,
} from '../events/event-errors.js';

/** JSON-RPC's "Server error" range starts here (-32000 to -32099 are implementation-defined). */
export const SERVER_ERROR = -32000;

/** Open executions close at the workflows' pace, not a bucket's: a longer wait than for a throttle. */
const CAPACITY_RETRY_AFTER_SECONDS = 30;

/**
 * A JSON-RPC error as the SDKs send it (they read `code`, `message` and `data` off what a handler throws). Unlike
 * the 1.x SDK's McpError it keeps the message as written, without an "MCP error <code>:" prefix.
 */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'ProtocolError';
  }
}

/**
 * An error the 2.x SDK threw as a JSON-RPC error: an integer code. None of our domain errors has a numeric code, and
 * Node's and the AWS SDK's codes are strings.
 */
function isSdkProtocolError(error: unknown): error is Error & { code: number; data?: unknown } {
  return error instanceof Error && Number.isInteger((error as { code?: unknown }).code);
}

export function toMcpError(error: unknown, logger: Logger): ProtocolError {
  if (error instanceof ProtocolError) return error;
  if (error instanceof McpError) return new ProtocolError(error.code, error.message);
  // The 2.x SDK's own protocol errors (-32021 and its requiredCapabilities, say) leave with their data. Told by their
  // shape rather than by instanceof: importing the 2.x SDK here would load it on every cold start.
  if (isSdkProtocolError(error)) return new ProtocolError(error.code, error.message, error.data);
  // The messages of seed section 7.1 and the 2025-11-25 spec, word for word.
  if (error instanceof TaskNotFoundError)
    return new ProtocolError(ErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
  if (error instanceof TaskExpiredError)
    return new ProtocolError(ErrorCode.InvalidParams, 'Failed to retrieve task: Task has expired');
  // Both dialects show terminal statuses differently (a tool error is `failed` in one, `completed` in the other): name
  // none.
  if (error instanceof IllegalTransitionError)
    return new ProtocolError(ErrorCode.InvalidParams, `Cannot cancel task ${error.taskId}: it has already finished`);
  if (
    error instanceof InvalidCursorError ||
    error instanceof ToolNotFoundError ||
    error instanceof InvalidToolArgumentsError ||
    error instanceof TaskAlreadyExistsError ||
    // MCP's prompts/get: an unknown name or a missing required argument is -32602.
    error instanceof PromptNotFoundError ||
    error instanceof InvalidPromptArgumentsError
  ) {
    return new ProtocolError(ErrorCode.InvalidParams, error.message);
  }
  if (error instanceof ExecutionStartError && error.fault === 'input')
    return new ProtocolError(ErrorCode.InvalidParams, error.message);
  // Definite answers the caller can act on: nothing was started (or nothing is left running). The vendor
  // message of a configuration refusal names internal ARNs, so it is logged, not sent.
  // A quota of the account, not a fault: -32000 with when to retry, as for the owner's own limits below.
  if (error instanceof ExecutionStartError && error.fault === 'capacity')
    return new ProtocolError(
      SERVER_ERROR,
      `Too many tool executions are open in this account (Step Functions' open-executions quota); nothing was ` +
        `started. Retry in ${CAPACITY_RETRY_AFTER_SECONDS} s.`,
      { retryable: true, retryAfterSeconds: CAPACITY_RETRY_AFTER_SECONDS, limit: 'step-functions-open-executions' },
    );
  if (error instanceof ExecutionStartError && error.fault === 'throttled') {
    const retryAfterSeconds = error.cause instanceof ServiceBusyError ? error.cause.retryAfterSeconds : 1;
    return new ProtocolError(
      SERVER_ERROR,
      `Tool executions are being started faster than this account allows (Step Functions' StartExecution rate); ` +
        `nothing was started. Retry in ${retryAfterSeconds} s.`,
      { retryable: true, retryAfterSeconds, limit: 'step-functions-start-execution-rate' },
    );
  }
  if (error instanceof ExecutionStartError) {
    logger.error('Step Functions refused to start a tool', { error: { name: error.name, message: error.message } });
    return new ProtocolError(
      ErrorCode.InternalError,
      'The tool is unavailable: Step Functions refused to start it (server configuration); nothing was started.',
      { retryable: false },
    );
  }
  // Neither JSON-RPC nor MCP has a rate-limit code: -32000, the first implementation-defined server error, with
  // data a client can act on (wait retryAfterSeconds, then retry).
  if (error instanceof TaskLimitExceededError) {
    return new ProtocolError(SERVER_ERROR, error.message, {
      retryable: true,
      retryAfterSeconds: error.retryAfterSeconds,
      limit: error.limit,
      max: error.max,
    });
  }
  // Any other call an AWS service throttled: the request may be sent again as it is.
  if (error instanceof ServiceBusyError)
    return new ProtocolError(
      SERVER_ERROR,
      `The server is busy (${error.service} is throttling ${error.operation}); retry in ${error.retryAfterSeconds} s.`,
      { retryable: true, retryAfterSeconds: error.retryAfterSeconds, limit: 'aws-throttle' },
    );
  // A cancel whose stop kept failing left the task as it was: the same cancel may succeed, so retryable as a throttle.
  if (error instanceof ExecutionStopError)
    return new ProtocolError(SERVER_ERROR, error.message, {
      retryable: true,
      retryAfterSeconds: error.retryAfterSeconds,
      limit: 'aws-fault',
    });
  // The operator's to fix (the deployment that writes the catalog); the log already says which item is missing.
  if (error instanceof ToolCatalogMissingError)
    return new ProtocolError(
      ErrorCode.InternalError,
      'The server has no tool catalog: its deployment did not complete (server configuration). Nothing was run.',
      { retryable: false },
    );
  if (error instanceof StartOutcomeUnknownError)
    return new ProtocolError(ErrorCode.InternalError, error.message, { retryable: true });
  // Input requests: a refused answer is the client's to fix; an undelivered one is for it to send again.
  if (error instanceof InvalidInputResponseError)
    return new ProtocolError(ErrorCode.InvalidParams, error.message, { inputKey: error.key, problems: error.problems });
  if (error instanceof InputDeliveryError)
    return new ProtocolError(ErrorCode.InternalError, error.message, { retryable: true, inputKey: error.key });
  const events = eventsErrorOf(error);
  if (events !== undefined) return events;
  const reference = randomUUID();
  logger.error('Unexpected fault while handling a request', {
    reference,
    error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
  });
  return new ProtocolError(ErrorCode.InternalError, `Internal error (reference ${reference})`);
}

/** Wraps a request handler so that whatever it throws leaves as a JSON-RPC error made by {@link toMcpError}. */
export function translatingErrors<A extends unknown[], R>(
  logger: Logger,
  handler: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return await handler(...args);
    } catch (error) {
      throw toMcpError(error, logger);
    }
  };
}

/** The Events extension's refusals, with the `data` its error table gives each (see docs/protocol.md). */
function eventsErrorOf(error: unknown): ProtocolError | undefined {
  if (error instanceof InvalidEventParamsError) return new ProtocolError(ErrorCode.InvalidParams, error.message);
  if (error instanceof EventTypeNotFoundError)
    return new ProtocolError(EVENTS_ERROR_CODE.NotFound, error.message, { kind: 'event' });
  if (error instanceof EventTaskNotFoundError)
    return new ProtocolError(EVENTS_ERROR_CODE.NotFound, error.message, { kind: 'task' });
  if (error instanceof SubscriptionNotFoundError)
    return new ProtocolError(EVENTS_ERROR_CODE.NotFound, error.message, { kind: 'subscription' });
  if (error instanceof DeliveryModeUnsupportedError)
    return new ProtocolError(EVENTS_ERROR_CODE.Unsupported, error.message, {
      feature: 'deliveryMode',
      value: error.mode,
    });
  if (error instanceof SubscriptionLimitError)
    return new ProtocolError(EVENTS_ERROR_CODE.ResourceExhausted, error.message, {
      limit: 'subscriptions',
      max: error.max,
    });
  if (error instanceof CallbackEndpointError)
    return new ProtocolError(EVENTS_ERROR_CODE.CallbackEndpointError, error.message, { reason: error.category });
  return undefined;
}
