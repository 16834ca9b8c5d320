// The status tools: how a client that does not speak tasks (claude.ai, ChatGPT, Cursor, ...) follows a call handed
// off to it as a task. task_status looks, task_result waits for the tool's own result, task_cancel stops the
// workflow. Each is answered here, on the caller's own tasks only, the same in both eras; none runs a workflow.
import { STATUS_TOOL_NAMES, type JsonSchema } from '../contract/tool-definition.js';
import { SYSTEM_CLOCK } from '../core/clock.js';
import { IllegalTransitionError, TaskExpiredError, TaskNotFoundError } from '../core/errors.js';
import { awaitsAnswers } from '../core/input-request.js';
import type { TaskRecord } from '../core/task.js';
import { isTerminal } from '../core/task-status.js';
import { textResult, type ToolResult } from '../core/tool-result.js';
import type { WaitOptions } from '../service/task-tracker.js';
import type { McpServerDependencies } from './mcp-dependencies.js';
import { relatedTaskMeta, standingResult, unknownTaskResult } from './task-handle-text.js';
import { TASK_VIEW_TOOL_META } from './task-view-resource.js';

export type StatusToolName = (typeof STATUS_TOOL_NAMES)[keyof typeof STATUS_TOOL_NAMES];

const STATUS_TOOL_NAME_SET: ReadonlySet<string> = new Set(Object.values(STATUS_TOOL_NAMES));

export function isStatusTool(name: string): name is StatusToolName {
  return STATUS_TOOL_NAME_SET.has(name);
}

/** How many of the caller's active tasks an unknown id's answer lists. */
const ACTIVE_TASKS_SHOWN = 5;

const TASK_ID_INPUT: JsonSchema = {
  type: 'object',
  properties: {
    taskId: {
      type: 'string',
      description: 'The task id exactly as the handoff gave it (32 hexadecimal characters). Never guess one.',
    },
  },
  required: ['taskId'],
  additionalProperties: false,
};

/** The status tools as tools/list shows them: never a task themselves, read-only but for the cancel. */
export function statusToolListing(waitMs: number) {
  const seconds = Math.round(waitMs / 1000);
  const tool = (name: StatusToolName, title: string, description: string, readOnly: boolean) => ({
    name,
    title,
    description,
    inputSchema: TASK_ID_INPUT,
    annotations: {
      title,
      readOnlyHint: readOnly,
      destructiveHint: !readOnly,
      idempotentHint: true,
      openWorldHint: false,
    },
    execution: { taskSupport: 'forbidden' as const },
    // A host with MCP Apps shows the task view beside each answer: the handle in its _meta names the task.
    _meta: TASK_VIEW_TOOL_META,
  });
  return [
    tool(
      STATUS_TOOL_NAMES.result,
      'Wait for a task’s result',
      `Waits up to ${seconds} s for a task that a tool call handed off (it answered "still running, as task ...") ` +
        `and returns that tool's own result once it ends. If the task still runs, it says so: call it again with ` +
        `the same taskId, rather than ending your turn.`,
      true,
    ),
    tool(
      STATUS_TOOL_NAMES.status,
      'Look at a task',
      'Answers at once where a handed-off task stands: status, message, progress, current step, how long it has ' +
        'run, and any question it waits for a person to answer.',
      true,
    ),
    tool(
      STATUS_TOOL_NAMES.cancel,
      'Stop a task',
      'Stops a handed-off task and its workflow. Only when the person asks to stop it: its work is lost.',
      false,
    ),
  ];
}

export interface StatusToolCall {
  readonly owner: string;
  readonly name: StatusToolName;
  readonly args: Record<string, unknown>;
  /** The request's abort signal, and what its stream passes on while task_result waits. */
  readonly wait?: FollowWait;
}

/** How task_result waits: the request's signal and stream, and whether a question ends the wait (SEP-2322 rounds). */
export type FollowWait = Omit<WaitOptions, 'timeoutMs' | 'until'> & { readonly stopAtInput?: boolean };

/** Where task_result leaves a task: ended (the tool's own result), waiting on its client, or still running. */
export type FollowOutcome =
  | { readonly kind: 'result'; readonly result: ToolResult & { _meta?: Record<string, unknown> } }
  | { readonly kind: 'input'; readonly task: TaskRecord }
  | { readonly kind: 'standing'; readonly task: TaskRecord };

/** The id a status tool was called with, or the tool error a model can act on when it gave none. */
export function taskIdArgument(name: StatusToolName, args: Record<string, unknown>): string | ToolResult {
  const taskId = args['taskId'];
  return typeof taskId === 'string' && taskId !== ''
    ? taskId
    : textResult(`${name} needs taskId: the task id exactly as the handoff gave it.`, true);
}

/** Answers a status tool's call; an unknown id, or another owner's, is a tool error that lists the caller's tasks. */
export async function callStatusTool(
  deps: McpServerDependencies,
  call: StatusToolCall,
): Promise<ToolResult & { _meta?: Record<string, unknown> }> {
  const { service, settings } = deps;
  const taskId = taskIdArgument(call.name, call.args);
  if (typeof taskId !== 'string') return taskId;
  return answeringUnknownIds(deps, call.owner, taskId, async () => {
    switch (call.name) {
      case STATUS_TOOL_NAMES.status:
        return standingResult(
          await service.getTask(call.owner, taskId),
          SYSTEM_CLOCK.now(),
          settings.directCallTimeoutMs,
        );
      case STATUS_TOOL_NAMES.result:
        return followOutcomeResult(deps, await followTask(deps, call.owner, taskId, call.wait));
      case STATUS_TOOL_NAMES.cancel:
        return cancel(deps, call.owner, taskId);
    }
  });
}

/**
 * Runs `answer`, answering a task the owner has no task under (it never was, it expired, it is another owner's) with
 * one tool error that lists the owner's own active tasks.
 */
export async function answeringUnknownIds<T>(
  deps: McpServerDependencies,
  owner: string,
  taskId: string,
  answer: () => Promise<T>,
): Promise<T | ToolResult> {
  try {
    return await answer();
  } catch (error) {
    if (!(error instanceof TaskNotFoundError || error instanceof TaskExpiredError)) throw error;
    const page = await deps.service.listTasks(owner);
    const active = page.tasks.filter((task) => !isTerminal(task.status)).slice(0, ACTIVE_TASKS_SHOWN);
    return unknownTaskResult(taskId, active, SYSTEM_CLOCK.now());
  }
}

/**
 * task_result's wait on a task: up to the plain-call wait, never stopping its execution (the wait ending, or the
 * caller going away, leaves the task as it is). With `stopAtInput`, a question the task waits on ends the wait.
 */
export async function followTask(
  deps: McpServerDependencies,
  owner: string,
  taskId: string,
  wait: FollowWait = {},
): Promise<FollowOutcome> {
  const { service, settings } = deps;
  // Read first: an unknown id is answered at once, not after a wait.
  await service.getTask(owner, taskId);
  const { stopAtInput, ...passOn } = wait;
  const task = await service.waitForTerminal(owner, taskId, {
    ...passOn,
    timeoutMs: settings.directCallTimeoutMs,
    ...(stopAtInput ? { until: awaitsAnswers } : {}),
  });
  if (isTerminal(task.status))
    return { kind: 'result', result: { ...(await terminalResult(deps, task)), _meta: relatedTaskMeta(task.taskId) } };
  return stopAtInput && awaitsAnswers(task) ? { kind: 'input', task } : { kind: 'standing', task };
}

/** A follow's answer where no question round is possible: the result, or where the task stands (its questions too). */
export function followOutcomeResult(
  deps: McpServerDependencies,
  outcome: FollowOutcome,
): ToolResult & { _meta?: Record<string, unknown> } {
  return outcome.kind === 'result'
    ? outcome.result
    : standingResult(outcome.task, SYSTEM_CLOCK.now(), deps.settings.directCallTimeoutMs);
}

/** The tool's own result, as a task-augmented call of it would get it. */
async function terminalResult(deps: McpServerDependencies, task: TaskRecord): Promise<ToolResult> {
  return (await deps.service.resultOf(task)) ?? textResult(`The task ended as ${task.status}.`, true);
}

async function cancel(
  deps: McpServerDependencies,
  owner: string,
  taskId: string,
): Promise<ToolResult & { _meta?: Record<string, unknown> }> {
  try {
    const task = await deps.service.cancelTask(owner, taskId, `Cancelled with ${STATUS_TOOL_NAMES.cancel}.`);
    return {
      ...textResult(`Cancelled task ${taskId} (${task.toolName}): its workflow was stopped.`),
      _meta: relatedTaskMeta(taskId),
    };
  } catch (error) {
    if (!(error instanceof IllegalTransitionError)) throw error;
    const task = await deps.service.getTask(owner, taskId);
    return {
      ...textResult(
        `Task ${taskId} (${task.toolName}) had already ended as ${task.status}; nothing was stopped.`,
        true,
      ),
      _meta: relatedTaskMeta(taskId),
    };
  }
}
