// The task view's app-only tools (`_meta.ui.visibility: ["app"]`): what the view calls through its host to follow
// one task. task_view_get reads where it stands (and the form of a question it waits on), task_view_answer sends a
// person's answers to that form, task_view_cancel stops it. A host keeps them from the model (SEP-1865: it must not
// list a tool without "model" visibility to the agent), and they are served only to a client that declared MCP Apps,
// since a host without Apps would list them to the model, and no tool may let a model answer for the person. Each runs
// on the caller's own tasks through the task service, as every other tool does: another owner's id is unknown.
import { TASK_VIEW_TOOL_NAMES, type JsonSchema } from '../contract/tool-definition.js';
import { SYSTEM_CLOCK } from '../core/clock.js';
import {
  IllegalTransitionError,
  InputDeliveryError,
  InvalidInputResponseError,
  TaskExpiredError,
  TaskNotFoundError,
} from '../core/errors.js';
import { isOpen } from '../core/input-request.js';
import { statusMessageOf } from '../core/task-progress.js';
import { pollHintMs, type TaskRecord } from '../core/task.js';
import { isTerminal, TaskStatus } from '../core/task-status.js';
import { textResult, type ToolResult } from '../core/tool-result.js';
import type { McpServerDependencies } from './mcp-dependencies.js';
import { taskStandingLines } from './task-handle-text.js';
import { TASK_VIEW_URI } from './task-view-resource.js';

export type TaskViewToolName = (typeof TASK_VIEW_TOOL_NAMES)[keyof typeof TASK_VIEW_TOOL_NAMES];

const TASK_VIEW_TOOL_NAME_SET: ReadonlySet<string> = new Set(Object.values(TASK_VIEW_TOOL_NAMES));

export function isTaskViewTool(name: string): name is TaskViewToolName {
  return TASK_VIEW_TOOL_NAME_SET.has(name);
}

const TASK_ID = { type: 'string', description: 'The task the view shows.' } as const;

const INPUT_SCHEMAS: Record<TaskViewToolName, JsonSchema> = {
  [TASK_VIEW_TOOL_NAMES.get]: {
    type: 'object',
    properties: { taskId: TASK_ID },
    required: ['taskId'],
    additionalProperties: false,
  },
  [TASK_VIEW_TOOL_NAMES.answer]: {
    type: 'object',
    properties: {
      taskId: TASK_ID,
      key: { type: 'string', description: 'The question’s key, as task_view_get gave it.' },
      action: { type: 'string', enum: ['accept', 'decline', 'cancel'] },
      content: { type: 'object', description: 'The form’s answers, by field (with accept).' },
    },
    required: ['taskId', 'key', 'action'],
    additionalProperties: false,
  },
  [TASK_VIEW_TOOL_NAMES.cancel]: {
    type: 'object',
    properties: { taskId: TASK_ID },
    required: ['taskId'],
    additionalProperties: false,
  },
};

/** The app-only tools as tools/list shows them to a host that declared MCP Apps. */
export function taskViewToolListing() {
  const tool = (name: TaskViewToolName, title: string, description: string, readOnly: boolean) => ({
    name,
    title,
    description,
    inputSchema: INPUT_SCHEMAS[name],
    annotations: { title, readOnlyHint: readOnly, destructiveHint: !readOnly, openWorldHint: false },
    execution: { taskSupport: 'forbidden' as const },
    _meta: { ui: { resourceUri: TASK_VIEW_URI, visibility: ['app'] } },
  });
  return [
    tool(TASK_VIEW_TOOL_NAMES.get, 'Task view: read a task', 'Where a task stands, for the task view.', true),
    tool(
      TASK_VIEW_TOOL_NAMES.answer,
      'Task view: answer a question',
      'Sends a person’s answers to the form a task waits on. For the task view only: never the model’s to call.',
      false,
    ),
    tool(TASK_VIEW_TOOL_NAMES.cancel, 'Task view: cancel a task', 'Stops a task, once its person confirmed.', false),
  ];
}

/** A question the view renders as a form: an open elicitation of the task. */
export interface TaskViewQuestion {
  readonly key: string;
  readonly message: string;
  readonly requestedSchema: Record<string, unknown>;
}

/** What task_view_get answers in `structuredContent`; the view draws it as it is. */
export interface TaskViewState {
  readonly taskId: string;
  readonly toolName: string;
  /** The status as every dialect names it: `submitted` reads as `working`. */
  readonly status: string;
  readonly terminal: boolean;
  readonly message?: string;
  readonly progress?: { readonly progress: number; readonly total?: number };
  readonly currentStep?: string;
  readonly createdAt: string;
  /** How long it has run (or ran, once ended). */
  readonly elapsedMs: number;
  /** When to read it again; absent once it ended. */
  readonly pollAfterMs?: number;
  readonly question?: TaskViewQuestion;
}

export function taskViewState(task: TaskRecord, now: number): TaskViewState {
  const terminal = isTerminal(task.status);
  const message = statusMessageOf(task, now);
  const count = task.progress?.progress;
  const total = task.progress?.total;
  const question = terminal ? undefined : openQuestionOf(task);
  return {
    taskId: task.taskId,
    toolName: task.toolName,
    status: task.status === TaskStatus.Submitted ? TaskStatus.Working : task.status,
    terminal,
    ...(message !== undefined ? { message } : {}),
    ...(count !== undefined ? { progress: { progress: count, ...(total !== undefined ? { total } : {}) } } : {}),
    ...(task.currentStep !== undefined && !terminal ? { currentStep: task.currentStep } : {}),
    createdAt: new Date(task.createdAt).toISOString(),
    elapsedMs: Math.max(0, (task.completedAt ?? now) - task.createdAt),
    ...(terminal ? {} : { pollAfterMs: pollHintMs(task, now) }),
    ...(question !== undefined ? { question } : {}),
  };
}

/** The first open form the task waits on; a view asks one question at a time, as the CLI does. */
function openQuestionOf(task: TaskRecord): TaskViewQuestion | undefined {
  for (const request of Object.values(task.inputRequests ?? {})) {
    if (!isOpen(request) || request.request.method !== 'elicitation/create') continue;
    const { message, requestedSchema } = request.request.params;
    return { key: request.key, message, requestedSchema };
  }
  return undefined;
}

export interface TaskViewToolCall {
  readonly owner: string;
  readonly name: TaskViewToolName;
  readonly args: Record<string, unknown>;
}

type ViewToolResult = ToolResult & { structuredContent?: Record<string, unknown> };

/** Answers an app-only tool's call; an unknown id, or another owner's, is one tool error naming neither. */
export async function callTaskViewTool(deps: McpServerDependencies, call: TaskViewToolCall): Promise<ViewToolResult> {
  const taskId = call.args['taskId'];
  if (typeof taskId !== 'string' || taskId === '') return textResult(`${call.name} needs taskId.`, true);
  try {
    switch (call.name) {
      case TASK_VIEW_TOOL_NAMES.get:
        return stateResult(await deps.service.getTask(call.owner, taskId));
      case TASK_VIEW_TOOL_NAMES.answer:
        return await answer(deps, call.owner, taskId, call.args);
      case TASK_VIEW_TOOL_NAMES.cancel:
        return await cancel(deps, call.owner, taskId);
    }
  } catch (error) {
    if (!(error instanceof TaskNotFoundError || error instanceof TaskExpiredError)) throw error;
    return textResult(`No task ${JSON.stringify(taskId)}: it never was, or it has expired.`, true);
  }
}

function stateResult(task: TaskRecord, lead?: string): ViewToolResult {
  const now = SYSTEM_CLOCK.now();
  const lines = [`Task ${task.taskId} (${task.toolName}).`, ...taskStandingLines(task, now)];
  return {
    content: [{ type: 'text', text: [...(lead !== undefined ? [lead] : []), ...lines].join('\n') }],
    structuredContent: { ...taskViewState(task, now) },
  };
}

async function answer(
  deps: McpServerDependencies,
  owner: string,
  taskId: string,
  args: Record<string, unknown>,
): Promise<ViewToolResult> {
  const { key, action, content } = args;
  if (typeof key !== 'string' || (action !== 'accept' && action !== 'decline' && action !== 'cancel'))
    return textResult(`${TASK_VIEW_TOOL_NAMES.answer} needs key and action (accept, decline or cancel).`, true);
  const task = await deps.service.getTask(owner, taskId);
  const request = task.inputRequests?.[key];
  if (isTerminal(task.status) || request === undefined || !isOpen(request))
    return refused(task, 'The question is no longer open: it was answered, or the task moved on.');
  try {
    await deps.inputs.answer(owner, taskId, { [key]: content === undefined ? { action } : { action, content } });
  } catch (error) {
    if (error instanceof InvalidInputResponseError) return refused(task, `Refused: ${error.problems.join('; ')}.`);
    if (error instanceof InputDeliveryError)
      return refused(task, 'The answer could not be delivered yet: send it again.');
    throw error;
  }
  return stateResult(await deps.service.getTask(owner, taskId), 'Answer sent.');
}

/** A refusal: its reason for the person, and the task as it stands, so the view keeps drawing it. */
function refused(task: TaskRecord, reason: string): ViewToolResult {
  const result = stateResult(task, reason);
  return { ...result, structuredContent: { ...result.structuredContent, refusal: reason }, isError: true };
}

async function cancel(deps: McpServerDependencies, owner: string, taskId: string): Promise<ViewToolResult> {
  try {
    return stateResult(await deps.service.cancelTask(owner, taskId, 'Cancelled in the task view.'), 'Cancelled.');
  } catch (error) {
    if (!(error instanceof IllegalTransitionError)) throw error;
    const task = await deps.service.getTask(owner, taskId);
    return refused(task, `It had already ended as ${task.status}; nothing was stopped.`);
  }
}
