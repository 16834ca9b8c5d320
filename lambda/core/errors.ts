// Domain errors, one file. Adapters translate vendor errors into these; only the protocol layer turns them into
// JSON-RPC codes.
import type { TaskRecord } from './task.js';
import type { TaskStatus } from './task-status.js';

export class TaskBackendError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TaskBackendError';
  }
}

/**
 * No task with this ID is visible to this owner: missing, expired, deleted, or another owner's (indistinguishable on
 * purpose).
 */
export class TaskNotFoundError extends TaskBackendError {
  constructor(
    readonly taskId: string,
    options?: { cause?: unknown },
  ) {
    super(`Task not found: ${taskId}`, options);
    this.name = 'TaskNotFoundError';
  }
}

/**
 * The task is past its retention but its storage has not been swept yet. Carries the expired record for internal
 * clean-up.
 */
export class TaskExpiredError extends TaskBackendError {
  constructor(
    readonly taskId: string,
    options?: { cause?: unknown; task?: TaskRecord },
  ) {
    super(`Task has expired: ${taskId}`, options);
    this.name = 'TaskExpiredError';
    this.task = options?.task;
  }

  readonly task: TaskRecord | undefined;
}

export class TaskAlreadyExistsError extends TaskBackendError {
  constructor(
    readonly taskId: string,
    options?: { cause?: unknown },
  ) {
    super(`Task ID already exists: ${taskId}`, options);
    this.name = 'TaskAlreadyExistsError';
  }
}

/** A status change the task model forbids, such as anything after a terminal status. */
export class IllegalTransitionError extends TaskBackendError {
  constructor(
    readonly taskId: string,
    readonly from: TaskStatus,
    readonly to: TaskStatus,
    options?: { cause?: unknown },
  ) {
    super(`Task ${taskId} cannot move from '${from}' to '${to}'`, options);
    this.name = 'IllegalTransitionError';
  }
}

export class InvalidCursorError extends TaskBackendError {
  constructor(options?: { cause?: unknown }) {
    super('Invalid cursor: pass back the nextCursor of an earlier tasks/list answer unchanged', options);
    this.name = 'InvalidCursorError';
  }
}

export class ToolNotFoundError extends TaskBackendError {
  constructor(readonly toolName: string) {
    super(`Unknown tool: ${toolName}`);
    this.name = 'ToolNotFoundError';
  }
}

export class InvalidToolArgumentsError extends TaskBackendError {
  constructor(
    readonly toolName: string,
    readonly problems: readonly string[],
  ) {
    super(`Invalid arguments for tool ${toolName}: ${problems.join('; ')}`);
    this.name = 'InvalidToolArgumentsError';
  }
}

/**
 * The declared tool catalog the function was deployed with is not in the task table under its key: the deployment
 * that should have written it did not (or the item was deleted by hand). Nothing can be served until it is there.
 */
export class ToolCatalogMissingError extends TaskBackendError {
  constructor(readonly key: string) {
    super(`The declared tool catalog ${key} is missing from the task table`);
    this.name = 'ToolCatalogMissingError';
  }
}

export class PromptNotFoundError extends TaskBackendError {
  constructor(readonly promptName: string) {
    super(`Unknown prompt: ${promptName}`);
    this.name = 'PromptNotFoundError';
  }
}

export class InvalidPromptArgumentsError extends TaskBackendError {
  constructor(
    readonly promptName: string,
    readonly problems: readonly string[],
  ) {
    super(`Invalid arguments for prompt ${promptName}: ${problems.join('; ')}`);
    this.name = 'InvalidPromptArgumentsError';
  }
}

/**
 * Why Step Functions refused a start: the caller's input, the server's set-up, or a quota to wait out (too many open
 * executions, or StartExecution's rate).
 */
export type ExecutionStartFault = 'input' | 'configuration' | 'capacity' | 'throttled';

/**
 * A call names an execution or workflow on an engine this backend was not given (a durable execution on a backend
 * with only Step Functions): the deployment's to fix, never the client's.
 */
export class EngineNotConfiguredError extends TaskBackendError {
  constructor(
    readonly engine: string,
    options?: { cause?: unknown },
  ) {
    super(`This backend has no ${engine} engine configured`, options);
    this.name = 'EngineNotConfiguredError';
  }
}

/**
 * The workflow engine refused to start the execution (a definite refusal, not a lost answer): `input` when the
 * tool input was refused (the caller's to fix), `configuration` when the workflow is missing, being deleted or
 * misnamed, or its key unusable (the operator's to fix), `capacity` when too many executions are open, `throttled` when
 * StartExecution's rate was used up (both: retry later).
 */
export class ExecutionStartError extends TaskBackendError {
  constructor(
    message: string,
    readonly fault: ExecutionStartFault,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ExecutionStartError';
  }
}

/**
 * A plain call could not learn whether its execution started (Step Functions unreachable or silent). `stopped`
 * tells whether the execution was then stopped, so that nothing runs unseen and a retry is safe.
 */
export class StartOutcomeUnknownError extends TaskBackendError {
  constructor(
    readonly taskId: string,
    readonly stopped: boolean,
    options?: { cause?: unknown },
  ) {
    super(
      stopped
        ? 'Step Functions did not answer the start of the tool, so the call was abandoned and ' +
            'nothing is left running. Retry the call.'
        : 'Step Functions did not answer the start of the tool, and its execution could not be ' +
            'stopped: it may still be running. Retry later.',
      options,
    );
    this.name = 'StartOutcomeUnknownError';
  }
}

/** Which per-owner limit refused a new task: open tasks at once, or task creations per minute. */
export type TaskLimit = 'active-tasks' | 'creations-per-minute';

/**
 * A per-owner limit refused a new task; nothing was stored or started. `retryAfterSeconds` is when a retry
 * may succeed: the next minute window for the creation rate, a poll interval for open tasks (one must finish first).
 */
export class TaskLimitExceededError extends TaskBackendError {
  constructor(
    readonly limit: TaskLimit,
    readonly max: number,
    readonly retryAfterSeconds: number,
    options?: { cause?: unknown },
  ) {
    super(
      limit === 'active-tasks'
        ? `Too many tasks: the owner has ${max} active tasks (the limit); wait for some to finish, ` +
            `or cancel or delete some, then retry. Nothing was started.`
        : `Too many tasks created: the limit is ${max} per minute; retry in ${retryAfterSeconds} s. ` +
            `Nothing was started.`,
      options,
    );
    this.name = 'TaskLimitExceededError';
  }
}

/**
 * An AWS service the backend depends on refused a call for load (it throttled it), after the client's own retries:
 * nothing is wrong with the request, and the same call may succeed after `retryAfterSeconds`.
 */
export class ServiceBusyError extends TaskBackendError {
  constructor(
    readonly service: string,
    readonly operation: string,
    readonly retryAfterSeconds: number,
    options?: { cause?: unknown },
  ) {
    super(`${service} is throttling ${operation} calls`, options);
    this.name = 'ServiceBusyError';
  }
}

/**
 * The task's execution could not be stopped: its engine kept failing the stop (a fault or a throttle, not a refusal)
 * through the caller's retries. Nothing was recorded, so the task is as it was and the same cancel may succeed after
 * `retryAfterSeconds`.
 */
export class ExecutionStopError extends TaskBackendError {
  constructor(
    readonly taskId: string,
    readonly retryAfterSeconds: number,
    options?: { cause?: unknown },
  ) {
    super(
      `Task ${taskId} could not be cancelled yet: its workflow could not be stopped, so it was left as it was. ` +
        `Retry in ${retryAfterSeconds} s.`,
      options,
    );
    this.name = 'ExecutionStopError';
  }
}

/**
 * An answer to an input request that the request refuses (e.g. content that does not match `requestedSchema`); the
 * request stays open.
 */
export class InvalidInputResponseError extends TaskBackendError {
  constructor(
    readonly taskId: string,
    readonly key: string,
    readonly problems: readonly string[],
  ) {
    super(
      `The answer to input request ${key} of task ${taskId} was refused: ${problems.join('; ')}. ` +
        `The request is still open; answer it again.`,
    );
    this.name = 'InvalidInputResponseError';
  }
}

/**
 * The answer could not be delivered to the waiting execution (Step Functions did not take it); the request stays open,
 * so the answer can be sent again.
 */
export class InputDeliveryError extends TaskBackendError {
  constructor(
    readonly taskId: string,
    readonly key: string,
    options?: ErrorOptions,
  ) {
    super(
      `The answer to input request ${key} of task ${taskId} could not be delivered yet; it was ` +
        `not recorded. Send it again.`,
      options,
    );
    this.name = 'InputDeliveryError';
  }
}
