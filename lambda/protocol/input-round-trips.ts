// Plain tools/call with questions in the middle (SEP-2322 multi round-trip, protocol 2026-07-28). The call runs the
// tool's execution within the plain-call bound; when the workflow asks its client (an ask step), the call
// answers `resultType: "input_required"` with the open input requests and a signed `requestState` naming the task.
// The client's retry carries `inputResponses` and that state: the answers resume the SAME execution (SendTaskSuccess,
// through the input service, so an answer sent twice is delivered once), and the call waits again: the result,
// another round, or the plain-call timeout as ever.
import type { CallToolResult, RequestStateCodec, ServerContext } from '@modelcontextprotocol/server';
import { CAPABILITY_OF_METHOD, awaitsAnswers, openInputRequests } from '../core/input-request.js';
import type { TaskRecord } from '../core/task.js';
import type { DirectOutcome, DirectWaitOptions } from '../service/direct-calls.js';
import { requestStateCodecFor, type PendingCallState } from './request-state.js';
import { PROCESS_LOCAL_REQUEST_STATE_KEY } from './request-state-keys.js';
import { declaredCapabilities, missingCapabilities, requireCapabilities } from './client-capabilities.js';
import { followOutcomeResult, followTask } from './status-tools.js';
import type { McpServerDependencies } from './mcp-dependencies.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { ProtocolError } from './protocol-errors.js';
import { toCreateTaskResult, toInputRequests } from './tasks-extension.js';
import { plainCallAnswer } from './task-handle-text.js';

export interface InputRoundTrip {
  readonly owner: string;
  readonly toolName: string;
  readonly args: Record<string, unknown>;
  readonly ctx: ServerContext;
  readonly wait: DirectWaitOptions;
  /**
   * Return the task (CreateTaskResult) once the answers are delivered, instead of waiting for its result
   * (ToolDefinition.inputBeforeTask).
   */
  readonly becomeTask: boolean;
  /**
   * task_result on this task: the rounds wait on a task that already runs (a call handed off to its caller), and
   * never stop it; a client that cannot answer is shown the questions and where a person answers them.
   */
  readonly follows?: string;
}

/**
 * The `ServerOptions.requestState.verify` of the owner's server: refuses (-32602) a tampered, expired or foreign state.
 */
export function requestStateVerifier(
  deps: McpServerDependencies,
  owner: string,
): (state: string, ctx: ServerContext) => Promise<PendingCallState> {
  return async (state, ctx) => (await codecOf(deps, owner)).verify(state, ctx);
}

async function codecOf(deps: McpServerDependencies, owner: string): Promise<RequestStateCodec<PendingCallState>> {
  const key = deps.requestStateKey === undefined ? PROCESS_LOCAL_REQUEST_STATE_KEY : await deps.requestStateKey();
  return requestStateCodecFor(key, owner);
}

/**
 * Where a round leaves the call: as a plain call's outcome, or (ToolDefinition.inputBeforeTask) a task now working
 * alone.
 */
type Round =
  | DirectOutcome
  | { readonly kind: 'task'; readonly task: TaskRecord }
  | { readonly kind: 'standing'; readonly task: TaskRecord };

/** Runs (or, given a verified `requestState`, resumes) the plain call until its result or its next questions. */
export async function callWithInput(deps: McpServerDependencies, call: InputRoundTrip): Promise<CallToolResult> {
  const { service, inputs } = deps;
  const { owner, ctx, wait } = call;
  const responses = ctx.mcpReq.inputResponses ?? {};
  const state = ctx.mcpReq.requestState<PendingCallState>();
  // After answers were delivered: wait for the result or the next questions, or (becomeTask) hand the task over.
  const follow = (taskId: string): Promise<Round> => followTask(deps, owner, taskId, { ...wait, stopAtInput: true });
  const afterAnswers = async (taskId: string): Promise<Round> => {
    if (call.follows !== undefined) return follow(taskId);
    if (!call.becomeTask) return service.resumeDirect(owner, taskId, wait);
    const task = await service.getTask(owner, taskId);
    return awaitsAnswers(task) ? { kind: 'input', task } : { kind: 'task', task };
  };
  let round: Round;
  if (state !== undefined) {
    if (state.tool !== call.toolName)
      throw new ProtocolError(
        ErrorCode.InvalidParams,
        `This requestState belongs to a call of ${state.tool}, not ${call.toolName}.`,
      );
    await inputs.answer(owner, state.taskId, pick(responses, state.keys));
    round = await afterAnswers(state.taskId);
  } else if (call.follows !== undefined) {
    round = await follow(call.follows);
  } else {
    round = await service.runUntilInput(owner, call.toolName, call.args, wait);
  }
  // Answers the client offers before their questions were asked (SEP-2322 lets it send what it knows up front):
  // each is given once, to an open request of the same key. A retry's answers go only to the keys its state names.
  const offered = new Set(state === undefined ? Object.keys(responses) : []);
  while (round.kind === 'input') {
    const keys = openInputRequests(round.task.inputRequests)
      .map((request) => request.key)
      .filter((key) => offered.delete(key));
    if (keys.length === 0) break;
    await inputs.answer(owner, round.task.taskId, pick(responses, keys));
    round = await afterAnswers(round.task.taskId);
  }
  switch (round.kind) {
    case 'result':
      return round.result as CallToolResult;
    case 'task':
      return toCreateTaskResult(round.task) as unknown as CallToolResult;
    case 'handoff':
      return plainCallAnswer(round, deps.settings.directCallTimeoutMs) as CallToolResult;
    case 'standing':
      return followOutcomeResult(deps, round) as CallToolResult;
    case 'input':
      return (await questionsFor(deps, call, round.task)) as unknown as CallToolResult;
  }
}

/**
 * The InputRequiredResult of a call whose task waits on its client. A client that could not answer one of the
 * requests (it did not declare the capability, SEP-2575) gets -32021 instead, and the execution is stopped: nobody
 * else will ever answer it.
 */
async function questionsFor(
  deps: McpServerDependencies,
  call: InputRoundTrip,
  task: TaskRecord,
): Promise<Record<string, unknown>> {
  const open = openInputRequests(task.inputRequests);
  const needed = Object.fromEntries(open.map((request) => [CAPABILITY_OF_METHOD[request.request.method], {}]));
  if (missingCapabilities(needed, declaredCapabilities(call.ctx)) !== undefined) {
    // A followed task is not this call's to stop, and a plain call is handed off: a person answers it elsewhere.
    if (call.follows !== undefined)
      return followOutcomeResult(deps, { kind: 'standing', task }) as unknown as Record<string, unknown>;
    if (deps.settings.handOffPlainCalls && !call.becomeTask)
      return {
        ...plainCallAnswer(await deps.service.handOffPlainCall(call.owner, task), deps.settings.directCallTimeoutMs),
      };
  }
  try {
    requireCapabilities(call.ctx, needed);
  } catch (error) {
    await deps.service
      .cancelTask(call.owner, task.taskId, 'The client cannot answer the input the tool asked for.')
      .catch(() => undefined);
    throw error;
  }
  const state: PendingCallState = {
    tool: call.toolName,
    taskId: task.taskId,
    keys: open.map((request) => request.key),
  };
  const codec = await codecOf(deps, call.owner);
  return {
    resultType: 'input_required',
    inputRequests: toInputRequests(task),
    requestState: await codec.mint(state, call.ctx),
  };
}

function pick(responses: Readonly<Record<string, unknown>>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => key in responses).map((key) => [key, responses[key]]));
}
