// Plain calls: a tools/call answered inline rather than as a task. The call's task is waited on within the plain-call
// bound. When the bound passes first, the call is handed off: its task becomes an ordinary task of the caller's, whose
// execution goes on, and the answer is a handle to it (or, with hand-off turned off, the execution is stopped). When
// the caller goes away, the execution is stopped, so nothing runs on unseen. A caller that can answer questions gets
// the workflow's input requests back in rounds (SEP-2322). An EXPRESS tool's plain call makes no task: it runs the
// EXPRESS machine synchronously (express-calls.ts).
import {
  ExecutionStartError,
  IllegalTransitionError,
  InvalidToolArgumentsError,
  StartOutcomeUnknownError,
} from '../core/errors.js';
import { awaitsAnswers } from '../core/input-request.js';
import { TaskOrigin, type TaskRecord } from '../core/task.js';
import { isTerminal } from '../core/task-status.js';
import { textResult, type ToolResult } from '../core/tool-result.js';
import { ExpressCalls, isExpressTool } from './express-calls.js';
import type { TaskCancellation } from './task-cancellation.js';
import { stopBestEffort, type TaskContext } from './task-context.js';
import type { TaskCreation } from './task-creation.js';
import { resultOfTask } from './task-results.js';
import type { TaskTracker, WaitOptions } from './task-tracker.js';

/**
 * How long a plain call waits for more questions after one arrived (parallel ask steps record theirs moments apart).
 */
const SIBLING_QUESTIONS_MS = 300;
/** The most such waits in one round: a Map that asks on and on still gets an answer. */
const SIBLING_QUESTIONS_MAX_READS = 10;

/** How a plain call waits: the request's abort signal, and where the workflow's progress goes. */
export interface DirectWaitOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: WaitOptions['onProgress'];
  readonly onRead?: WaitOptions['onRead'];
}

/** A plain call's end: the tool's result, or its task handed off to the caller as the wait ended first. */
export type PlainOutcome =
  { readonly kind: 'result'; readonly result: ToolResult } | { readonly kind: 'handoff'; readonly task: TaskRecord };

/** Where a plain call stands when its wait ends: a {@link PlainOutcome}, or its task waiting on its client. */
export type DirectOutcome = PlainOutcome | { readonly kind: 'input'; readonly task: TaskRecord };

export class DirectCalls {
  private readonly express: ExpressCalls | undefined;

  constructor(
    private readonly context: TaskContext,
    private readonly tracker: TaskTracker,
    private readonly creation: TaskCreation,
    private readonly cancellation: TaskCancellation,
  ) {
    this.express = context.syncExecutor && new ExpressCalls(context, context.syncExecutor);
  }

  /**
   * Runs a tool for a caller that did not ask for a task: waits up to the configured bound and returns the
   * result; arguments the tool's schema refuses are a tool error (`isError: true`), so nothing starts. When the bound
   * passes first, the call is handed off as a task (see {@link awaitDirect}). When the caller goes away first, the
   * execution is stopped, so nothing keeps running unseen.
   */
  async runToCompletion(
    owner: string,
    toolName: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
    onProgress?: WaitOptions['onProgress'],
    onRead?: WaitOptions['onRead'],
  ): Promise<PlainOutcome> {
    const express = this.runExpress(owner, toolName, args, signal);
    if (express !== undefined) return { kind: 'result', result: await express };
    const started = await this.startDirect(owner, toolName, args);
    if ('refused' in started) return { kind: 'result', result: started.refused };
    const outcome = await this.awaitDirect(owner, started.task, { signal, onProgress, onRead });
    return outcome.kind === 'input'
      ? { kind: 'result', result: textResult('The tool asked for input this call cannot give.', true) }
      : outcome;
  }

  /**
   * {@link runToCompletion} for a caller that can answer questions (SEP-2322 multi round-trip): the wait also ends
   * when the workflow asks its client for input, with the task (its open input requests) instead of a result. The
   * execution then keeps waiting for the answers; {@link resumeDirect} waits on it again once they are delivered.
   */
  async runUntilInput(
    owner: string,
    toolName: string,
    args: Record<string, unknown>,
    options: DirectWaitOptions = {},
  ): Promise<DirectOutcome> {
    // EXPRESS machines cannot wait for input (no callback pattern): their plain calls only ever end with a result.
    const express = this.runExpress(owner, toolName, args, options.signal);
    if (express !== undefined) return { kind: 'result', result: await express };
    const started = await this.startDirect(owner, toolName, args);
    if ('refused' in started) return { kind: 'result', result: started.refused };
    return this.awaitDirect(owner, started.task, { ...options, stopAtInput: true });
  }

  /**
   * Waits again, as {@link runUntilInput} does, on the owner's plain call `taskId` (a retry that carried answers):
   * at once when its workflow still waits on input. Throws `TaskNotFoundError` / `TaskExpiredError` for a task the
   * owner cannot see.
   */
  async resumeDirect(owner: string, taskId: string, options: DirectWaitOptions = {}): Promise<DirectOutcome> {
    return this.awaitDirect(owner, await this.tracker.getTask(owner, taskId), { ...options, stopAtInput: true });
  }

  /** The plain call of an EXPRESS tool, run synchronously; `undefined` for any other tool. */
  private runExpress(
    owner: string,
    toolName: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<ToolResult> | undefined {
    const tool = this.context.tools.get(toolName);
    if (this.express === undefined || !isExpressTool(tool)) return undefined;
    return this.express.run(owner, tool, args, signal);
  }

  /** Starts a plain call's execution; refused arguments (or input) come back as the tool's error, nothing started. */
  private async startDirect(
    owner: string,
    toolName: string,
    args: Record<string, unknown>,
  ): Promise<{ task: TaskRecord } | { refused: ToolResult }> {
    let created, started;
    try {
      ({ task: created, started } = await this.creation.start({
        owner,
        toolName,
        arguments: args,
        origin: TaskOrigin.Direct,
      }));
    } catch (error) {
      // SEP-1303: arguments the tool refuses are for the model to fix, so they come back as the tool's error;
      // so does an input Step Functions refuses (over its 256 KiB limit, say).
      if (error instanceof InvalidToolArgumentsError) return { refused: textResult(error.message, true) };
      if (error instanceof ExecutionStartError && error.fault === 'input')
        return { refused: textResult(error.message, true) };
      throw error;
    }
    // Step Functions did not answer: rather than wait out the bound on an execution that may not exist, stop
    // it (a no-op if it never started) and say so at once. If the stop fails too, the task stays for polls to
    // reconcile.
    if (!started) {
      const stopped = await this.cancellation
        .cancel(owner, created.taskId, 'Step Functions did not answer the start; the call was abandoned.', {
          retryStop: false,
        })
        .then(
          () => true,
          (error: unknown) => (
            this.context.logger.warn('Could not stop the execution of an unanswered start', {
              taskId: created.taskId,
              error: String(error),
            }),
            false
          ),
        );
      throw new StartOutcomeUnknownError(created.taskId, stopped);
    }
    return { task: created };
  }

  /**
   * Waits within the plain-call bound for the result (or, with `stopAtInput`, a question). When the bound passes, hands
   * the call off as a task, its execution going on; with hand-off turned off, or when the caller went away, stops the
   * execution.
   */
  private async awaitDirect(
    owner: string,
    created: TaskRecord,
    options: DirectWaitOptions & { readonly stopAtInput?: boolean },
  ): Promise<DirectOutcome> {
    const { signal, onProgress, onRead } = options;
    const bound = this.context.settings.directCallTimeoutMs;
    let task;
    try {
      task = await this.tracker.waitForTerminal(owner, created.taskId, {
        timeoutMs: bound,
        signal,
        onProgress,
        onRead,
        ...(options.stopAtInput ? { until: awaitsAnswers } : {}),
      });
    } catch (error) {
      // Nobody will see this execution's result: stop it before giving up.
      await stopBestEffort(this.context, created, 'The tool call failed while waiting for its execution.');
      throw error;
    }
    const result = (toolResult: ToolResult): DirectOutcome => ({ kind: 'result', result: toolResult });
    if (isTerminal(task.status))
      return result((await this.resultOf(task)) ?? textResult('The tool finished without a result.', true));
    if (options.stopAtInput && awaitsAnswers(task) && !signal?.aborted)
      return { kind: 'input', task: await this.withSiblingQuestions(owner, task, signal) };
    if (!signal?.aborted && this.context.settings.handOffPlainCalls) return this.handOff(owner, task);
    const reason = signal?.aborted
      ? 'The client went away before the tool finished; the execution was stopped.'
      : `The tool did not finish within ${Math.round(bound / 1000)} s, so its execution was ` +
        `stopped. Call it as a task (params.task) to let it run longer and fetch the result later.`;
    try {
      await this.cancellation.cancel(owner, created.taskId, reason);
    } catch (error) {
      if (!(error instanceof IllegalTransitionError)) {
        // The cancellation reads the task first, so with the store down it stopped nothing.
        await stopBestEffort(this.context, created, reason);
        throw error;
      }
      const finished = await this.tracker.getTask(owner, created.taskId);
      return result((await this.resultOf(finished)) ?? textResult(reason, true));
    }
    return result(textResult(reason, true));
  }

  /**
   * Makes the plain call's task an ordinary task of its owner's, listed and followed like any other, and answers its
   * handle; its execution goes on. A task that ended meanwhile is answered with its result, as if the wait had seen it.
   * Also for a call whose workflow asks what its client cannot answer: a person answers it elsewhere.
   */
  async handOff(owner: string, task: TaskRecord): Promise<PlainOutcome> {
    if (await this.context.store.handOff(task)) {
      this.context.logger.info('Plain call handed off as a task', { taskId: task.taskId, toolName: task.toolName });
      return { kind: 'handoff', task: { ...task, origin: TaskOrigin.Handoff } };
    }
    const current = await this.tracker.getTask(owner, task.taskId);
    if (!isTerminal(current.status)) return { kind: 'handoff', task: current };
    return {
      kind: 'result',
      result: (await this.resultOf(current)) ?? textResult('The tool finished without a result.', true),
    };
  }

  /**
   * The task once the questions asked alongside its first one are in: the ask steps of a Parallel or Map state record
   * theirs moments apart, and one round should carry them all. Reads again while new ones keep arriving within
   * {@link SIBLING_QUESTIONS_MS}.
   */
  private async withSiblingQuestions(owner: string, task: TaskRecord, signal?: AbortSignal): Promise<TaskRecord> {
    let current = task;
    for (let attempt = 0; attempt < SIBLING_QUESTIONS_MAX_READS && !signal?.aborted; attempt++) {
      await this.context.clock.sleep(SIBLING_QUESTIONS_MS, signal);
      const read = await this.context.store.get(owner, task.taskId);
      if (read === null || !awaitsAnswers(read)) return current;
      const grew = Object.keys(read.inputRequests ?? {}).length > Object.keys(current.inputRequests ?? {}).length;
      current = read;
      if (!grew) return current;
    }
    return current;
  }

  /** The tool result of a terminal task, not audited as retrieved: a plain call's caller never asked for a task. */
  private async resultOf(task: TaskRecord): Promise<ToolResult | undefined> {
    return (await resultOfTask(this.context.store, task)).result;
  }
}
