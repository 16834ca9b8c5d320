// What a model reads of a task it was handed: a plain call whose wait ended first, and the status tools' answers. A
// model reads tool results as text, and the reports from the field say how a bare handle goes wrong: models invent
// task names, and end their turn saying they are "waiting". So the text names the task id exactly, says which tool to
// call next with which arguments, and that a question waits for a person, never for the model.
import { STATUS_TOOL_NAMES } from '../contract/tool-definition.js';
import { SYSTEM_CLOCK } from '../core/clock.js';
import { openInputRequests, type InputRequest } from '../core/input-request.js';
import { activityText } from '../core/task-progress.js';
import type { TaskRecord, TaskSummary } from '../core/task.js';
import { isTerminal, TaskStatus } from '../core/task-status.js';
import { textResult, type ToolResult } from '../core/tool-result.js';
import type { PlainOutcome } from '../service/direct-calls.js';
import { RELATED_TASK_META_KEY_2025 } from './mcp-2025-11-25.js';

/** How a person answers a task's question where the client cannot ask: the task view, or the project's CLI. */
const WHERE_A_PERSON_ANSWERS =
  'No tool answers it for the person: they answer it in the task view, or with `mcp-tasks watch <taskId>`.';

/** "42 s", "3 min", "2 h 5 min": how long ago, for a person. */
export function durationText(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const rest = minutes % 60;
  return rest === 0 ? `${Math.floor(minutes / 60)} h` : `${Math.floor(minutes / 60)} h ${rest} min`;
}

/** A tool result with the handle in its `_meta`. */
export type HandleResult = ToolResult & { readonly _meta: Record<string, unknown> };

/** The 2025-11-25 related-task key: a client that knows tasks finds the handle where it looks for one. */
export function relatedTaskMeta(taskId: string): Record<string, unknown> {
  return { [RELATED_TASK_META_KEY_2025]: { taskId } };
}

/** The lines that say where a task stands: its status, what it is doing, how long it has run, what it asks. */
export function taskStandingLines(task: TaskRecord, now: number): string[] {
  const lines = [`Status: ${task.status === TaskStatus.Submitted ? TaskStatus.Working : task.status}.`];
  if (task.statusMessage !== undefined) lines.push(`Message: ${task.statusMessage}`);
  const activity = isTerminal(task.status) ? undefined : activityText(task, now);
  if (activity !== undefined) lines.push(`Progress: ${activity}`);
  if (task.progress?.progress !== undefined && task.progress.total !== undefined)
    lines.push(`Done: ${task.progress.progress} of ${task.progress.total}.`);
  if (task.currentStep !== undefined && !isTerminal(task.status)) lines.push(`Current step: ${task.currentStep}.`);
  const end = task.completedAt ?? now;
  lines.push(`${isTerminal(task.status) ? 'Ran' : 'Running'} for ${durationText(end - task.createdAt)}.`);
  const questions = openInputRequests(task.inputRequests);
  if (task.status === TaskStatus.InputRequired && questions.length > 0) {
    for (const question of questions) lines.push(`It waits for a person to answer: ${questionText(question)}`);
    lines.push(WHERE_A_PERSON_ANSWERS);
  }
  return lines;
}

function questionText({ request }: InputRequest): string {
  return request.method === 'elicitation/create' ? request.params.message : `a ${request.method} request`;
}

/** What to call next about an active task, with its id exactly. */
function nextSteps(task: Pick<TaskRecord, 'taskId'>, waitMs: number): string {
  const args = JSON.stringify({ taskId: task.taskId });
  return (
    `Next: call ${STATUS_TOOL_NAMES.result} with ${args} to wait up to ${durationText(waitMs)} for the result; ` +
    `while it runs, call it again. Do not end your turn saying you are waiting: keep calling ` +
    `${STATUS_TOOL_NAMES.result}, or tell the person the task id. ${STATUS_TOOL_NAMES.status} with the same ` +
    `arguments looks without waiting; ${STATUS_TOOL_NAMES.cancel} stops it, only if the person asks.`
  );
}

/** The answer to a plain call whose wait ended first: a successful result that says the work goes on, and how. */
export function handoffResult(task: TaskRecord, now: number, waitMs: number): HandleResult {
  const text = [
    `${task.toolName} is still running, as task ${task.taskId}. Its result is not lost: the work goes on.`,
    ...taskStandingLines(task, now),
    nextSteps(task, waitMs),
  ].join('\n');
  return { ...textResult(text), _meta: relatedTaskMeta(task.taskId) };
}

/** A plain call's answer: the tool's result, or the handle of the task it was handed off as. */
export function plainCallAnswer(outcome: PlainOutcome, waitMs: number): ToolResult {
  return outcome.kind === 'result' ? outcome.result : handoffResult(outcome.task, SYSTEM_CLOCK.now(), waitMs);
}

/** task_status's answer, and task_result's while the task still runs. */
export function standingResult(task: TaskRecord, now: number, waitMs: number): HandleResult {
  const head = `Task ${task.taskId} (${task.toolName}).`;
  const tail = isTerminal(task.status)
    ? `Call ${STATUS_TOOL_NAMES.result} with ${JSON.stringify({ taskId: task.taskId })} for its result.`
    : nextSteps(task, waitMs);
  const text = [head, ...taskStandingLines(task, now), tail].join('\n');
  return { ...textResult(text), _meta: relatedTaskMeta(task.taskId) };
}

/**
 * The answer to an id the caller has no task under: the same whether the task never was, expired or is another
 * owner's, so nothing about other owners leaks; it lists the caller's own active tasks, so a garbled id can be fixed.
 */
export function unknownTaskResult(taskId: string, active: readonly TaskSummary[], now: number): ToolResult {
  const lines = [`You have no task with id ${JSON.stringify(taskId)}: it never was, or it has expired.`];
  if (active.length === 0) lines.push('You have no active tasks.');
  else {
    lines.push('Your active tasks (use the id exactly):');
    for (const task of active)
      lines.push(`- ${task.taskId}: ${task.toolName}, started ${durationText(now - task.createdAt)} ago`);
  }
  return textResult(lines.join('\n'), true);
}
