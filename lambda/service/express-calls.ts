// Plain calls of EXPRESS tools: a tools/call that asked for no task runs the tool's EXPRESS state machine with
// StartSyncExecution and answers with how it ended. No task is stored: the run is over when the answer comes, so there
// is nothing to poll, cancel or expire, and no active-task slot is held. The call still counts against the owner's
// creations per minute, as every call that starts work does (creation-limit.ts).
//
// An EXPRESS execution cannot be stopped. A caller that goes away, or a run that outlasts the plain-call bound, ends
// the wait only: the execution runs on to its end (5 minutes at most), unseen.
import { randomBytes } from 'node:crypto';
import { AuditEvent, terminalEvent } from '../core/audit-event.js';
import { ExecutionStartError, InvalidToolArgumentsError, StartOutcomeUnknownError } from '../core/errors.js';
import { outcomeOfExecution, type ExecutionSnapshot } from '../core/execution-status.js';
import { executionNameFor, newExecutionNonce, taskKey } from '../core/task-key.js';
import { TaskStatus } from '../core/task-status.js';
import { toolResultOf } from '../core/task.js';
import { textResult, type ToolResult } from '../core/tool-result.js';
import type { ToolDefinition } from '../contract/tool-definition.js';
import type { SyncExecutor } from '../executor/sync-executor.js';
import { audit } from './audit.js';
import { countCreation } from './creation-limit.js';
import type { TaskContext } from './task-context.js';

/** A tool whose plain calls run an EXPRESS machine. */
export type ExpressTool = ToolDefinition & { readonly expressStateMachineArn: string };

export function isExpressTool(tool: ToolDefinition): tool is ExpressTool {
  return tool.expressStateMachineArn !== undefined;
}

/** Why a wait was given up: the caller went away, or the plain-call bound passed. */
type Abandoned = 'caller' | 'bound';

export class ExpressCalls {
  constructor(
    private readonly context: TaskContext,
    private readonly runs: SyncExecutor,
  ) {}

  /**
   * Runs `tool`'s EXPRESS machine on `args` and returns the tool result, mapped from the execution's end as a task's
   * is (core/execution-status.ts, then core/task.ts): its output when it succeeded, a tool error naming the error and
   * cause when it failed or timed out. Arguments the tool's schema refuses, and an input Step Functions refuses, are a
   * tool error too, and run nothing. Throws `TaskLimitExceededError` past the owner's creations per minute,
   * `ExecutionStartError` when Step Functions refused the run for another reason, and `StartOutcomeUnknownError` when
   * its answer was lost (the execution may have run, and may still run).
   */
  async run(
    owner: string,
    tool: ExpressTool,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<ToolResult> {
    const { tools, clock, logger } = this.context;
    try {
      await tools.validateArguments(tool.name, args);
    } catch (error) {
      // SEP-1303: arguments the tool refuses are for the model to fix, so they come back as the tool's error.
      if (error instanceof InvalidToolArgumentsError) return textResult(error.message, true);
      throw error;
    }
    const startedAt = clock.now();
    await countCreation(this.context, { owner, toolName: tool.name }, startedAt);
    // Named as a task's execution is (`task-…`, from the owner and a fresh call ID), so that the construct's grants and
    // a search of the machine's logs treat both alike; the name is logged with the call ID to find the run.
    const callId = randomBytes(16).toString('hex');
    const executionName = executionNameFor(taskKey(owner, callId), newExecutionNonce());
    const request = { stateMachineArn: tool.expressStateMachineArn, executionName, input: JSON.stringify(args) };
    logger.info('Express call started', { callId, tool: tool.name, executionName });
    const wait = this.boundedWait(signal);
    let execution: ExecutionSnapshot;
    try {
      execution = await this.runs.runSync(request, wait.signal);
    } catch (error) {
      if (error instanceof ExecutionStartError) {
        if (error.fault === 'input') return textResult(error.message, true);
        throw error;
      }
      const abandoned = wait.abandoned();
      if (abandoned !== undefined) return this.abandoned(owner, tool, callId, abandoned);
      logger.warn('Express run outcome unknown', { callId, tool: tool.name, error: String(error) });
      throw new StartOutcomeUnknownError(callId, false, { cause: error });
    } finally {
      wait.release();
    }
    const outcome = outcomeOfExecution(execution);
    this.auditRun(owner, tool.name, outcome.status, clock.now() - startedAt);
    logger.info('Express call ended', { callId, tool: tool.name, status: execution.status });
    return (
      toolResultOf(outcome) ??
      textResult(`The EXPRESS execution answered in a state that is not an end: ${String(execution.status)}`, true)
    );
  }

  /** The signal the run waits on: the caller's, and the plain-call bound's. */
  private boundedWait(signal: AbortSignal | undefined): {
    signal: AbortSignal;
    abandoned(): Abandoned | undefined;
    release(): void;
  } {
    const controller = new AbortController();
    const done = new AbortController();
    let bound = false;
    const onCaller = (): void => controller.abort();
    if (signal?.aborted) controller.abort();
    signal?.addEventListener('abort', onCaller, { once: true });
    void this.context.clock.sleep(this.context.settings.directCallTimeoutMs, done.signal).then(() => {
      if (done.signal.aborted) return;
      bound = true;
      controller.abort();
    });
    return {
      signal: controller.signal,
      abandoned: () => (signal?.aborted ? 'caller' : bound ? 'bound' : undefined),
      release: () => {
        done.abort();
        signal?.removeEventListener('abort', onCaller);
      },
    };
  }

  /** The answer to a call whose wait was given up; the run was started, so it is audited as created. */
  private abandoned(owner: string, tool: ExpressTool, callId: string, why: Abandoned): ToolResult {
    this.auditRun(owner, tool.name);
    this.context.logger.info('Express call abandoned', { callId, tool: tool.name, why });
    const bound = Math.round(this.context.settings.directCallTimeoutMs / 1000);
    return textResult(
      why === 'caller'
        ? 'The client went away before the tool finished; its EXPRESS execution, which cannot be stopped, runs on ' +
            'to its end unseen.'
        : `The tool did not finish within ${bound} s. Its EXPRESS execution cannot be stopped and runs on to its ` +
            'end unseen. Call it as a task (params.task) to let it run and fetch the result later.',
      true,
    );
  }

  /**
   * The audit records of a run, as a task's (created, then its end when known), without a task ID: there is no task.
   */
  private auditRun(owner: string, tool: string, ended?: TaskStatus, durationMs?: number): void {
    const { logger, metrics } = this.context;
    audit(logger, { event: AuditEvent.Created, owner, tool, outcome: TaskStatus.Working });
    metrics.taskEvent(AuditEvent.Created, tool);
    if (ended === undefined) return;
    audit(logger, { event: terminalEvent(ended), owner, tool, outcome: ended });
    metrics.taskEvent(terminalEvent(ended), tool, durationMs);
  }
}
