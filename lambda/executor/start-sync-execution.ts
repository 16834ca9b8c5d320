// StartSyncExecution as the synchronous-run port needs it: one attempt, and a wait long enough for any EXPRESS run.
import { StartSyncExecutionCommand } from '@aws-sdk/client-sfn';
import type { SyncRunRequest } from './sync-executor.js';

/** The longest an EXPRESS execution runs: Step Functions ends it as TIMED_OUT after 5 minutes. */
export const EXPRESS_MAX_DURATION_MS = 5 * 60_000;

/**
 * How long the one StartSyncExecution request may take: past the EXPRESS limit, so that Step Functions' own answer
 * (TIMED_OUT at worst) always comes first. The clients' usual request timeout is seconds (handlers/aws-clients.ts).
 */
export const SYNC_REQUEST_TIMEOUT_MS = EXPRESS_MAX_DURATION_MS + 30_000;

/**
 * The command, sent once. The client's retry middleware would send it again after a timeout, a dropped connection or a
 * 5xx, and each send runs the workflow again: StartSyncExecution is not idempotent (a synchronous EXPRESS execution
 * runs at most once). Overriding the middleware of that name on the command's own stack replaces the client's for
 * this one call.
 */
export function startSyncExecutionOnce(request: SyncRunRequest): StartSyncExecutionCommand {
  const command = new StartSyncExecutionCommand({
    stateMachineArn: request.stateMachineArn,
    name: request.executionName,
    input: request.input,
  });
  command.middlewareStack.add((next) => (args) => next(args), {
    name: 'retryMiddleware',
    step: 'finalizeRequest',
    priority: 'high',
    override: true,
  });
  return command;
}
