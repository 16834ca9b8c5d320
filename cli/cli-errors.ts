// Every error the CLI reports on purpose, each with the exit code it ends the process with; main.ts turns them
// into one line on stderr, anything else into a short "unexpected error" line.

/** Exit codes, documented in the README: scripts branch on them. */
export const EXIT = {
  ok: 0,
  /** The task failed, or its tool reported an error. */
  failed: 1,
  /** Bad usage: unknown tool or task, bad --args. */
  usage: 2,
  /** The task was cancelled. */
  cancelled: 3,
  /** The server could not be reached or answered with an error. */
  server: 4,
  /** Ctrl-C: the user stopped watching and left the task running. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export class UnknownToolError extends CliError {
  override name = 'UnknownToolError';
  constructor(
    readonly toolName: string,
    readonly available: readonly string[],
  ) {
    super(`Unknown tool '${toolName}'. Tools on this server: ${available.join(', ') || '(none)'}.`, EXIT.usage);
  }
}

export class UnknownTaskError extends CliError {
  override name = 'UnknownTaskError';
  constructor(
    readonly taskId: string,
    options?: { cause?: unknown },
  ) {
    super(`Unknown task '${taskId}': the server has no such task for you (it may have expired).`, EXIT.usage, options);
  }
}

export class UsageError extends CliError {
  override name = 'UsageError';
  constructor(message: string) {
    super(message, EXIT.usage);
  }
}

export class ServerError extends CliError {
  override name = 'ServerError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT.server, options);
  }
}

/** The server's event stream could not be opened or resumed; `watch` then polls instead. */
export class EventStreamUnavailableError extends CliError {
  override name = 'EventStreamUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT.server, options);
  }
}
