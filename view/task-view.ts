// The task view: an MCP App (ext-apps' `App`, no framework) that a host renders beside the result of a tool that may
// run as a task. It learns the task from the result the host passes it (or from a status tool's input), then follows
// it through the server's app-only tools, by way of the host: task_view_get at the task's own poll hint, until it
// ends; the form of a question it waits on, answered with task_view_answer; Cancel, once confirmed, with
// task_view_cancel. It reaches nothing but its host (see scripts/build-task-view.ts for its CSP).
import { App } from '@modelcontextprotocol/ext-apps';
import { TASK_VIEW_TOOL_NAMES } from '../lambda/contract/tool-definition.js';
import type { TaskViewState } from '../lambda/protocol/task-view-tools.js';
import { drawQuestion } from './task-form.js';
import { taskIdOfInput, taskIdOfResult, textOfResult } from './task-handle.js';

/** Between the server's hint and what a view should do: never busier than 4 reads a second, never idle past 10 s. */
const POLL_FLOOR_MS = 250;
const POLL_CEILING_MS = 10_000;

const byId = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;
const view = {
  tool: byId('tool'),
  status: byId('status'),
  message: byId('message'),
  progress: byId('progress'),
  progressFill: byId('progress-fill'),
  progressText: byId('progress-text'),
  step: byId('step'),
  elapsed: byId('elapsed'),
  taskId: byId('task-id'),
  question: byId('question'),
  notice: byId('notice'),
  actions: byId('actions'),
  cancel: byId<HTMLButtonElement>('cancel'),
  confirm: byId('confirm'),
  confirmYes: byId<HTMLButtonElement>('confirm-yes'),
  confirmNo: byId<HTMLButtonElement>('confirm-no'),
};

const app = new App({ name: 'mcp-tasks task view', version: '0.1.0' }, {});

let followed: string | undefined;
let state: TaskViewState | undefined;
/** When `state` was read, so the elapsed time ticks between reads. */
let readAt = 0;
let pollTimer: ReturnType<typeof setTimeout> | undefined;
/** The question the form on screen answers: a poll redraws the form only when the question changed. */
let drawnQuestion: string | undefined;

function durationText(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

function notify(text: string | undefined, refused = false): void {
  view.notice.hidden = text === undefined;
  view.notice.textContent = text ?? '';
  view.notice.classList.toggle('refused', refused);
}

function tick(): void {
  if (state === undefined) return;
  view.elapsed.textContent = durationText(state.elapsedMs + (state.terminal ? 0 : Date.now() - readAt));
}

function draw(next: TaskViewState): void {
  state = next;
  readAt = Date.now();
  view.tool.textContent = next.toolName;
  view.status.textContent = next.status.replace('_', ' ');
  view.status.className = `status ${next.status}`;
  view.message.textContent = next.message ?? '';
  view.taskId.textContent = next.taskId;
  view.step.textContent = next.currentStep ?? '–';
  const { progress } = next;
  view.progress.hidden = progress === undefined;
  if (progress !== undefined) {
    const share = progress.total ? Math.min(1, progress.progress / progress.total) : undefined;
    view.progressFill.style.width = share === undefined ? '0' : `${Math.round(share * 100)}%`;
    view.progressText.textContent =
      progress.total === undefined ? `${progress.progress} done` : `${progress.progress} of ${progress.total}`;
  }
  view.actions.hidden = next.terminal;
  const question = next.question;
  view.question.hidden = question === undefined;
  if (question === undefined) drawnQuestion = undefined;
  else if (drawnQuestion !== question.key) {
    drawnQuestion = question.key;
    drawQuestion(view.question, question, (action, content) => void answer(question.key, action, content));
  }
  tick();
}

/** What a view tool answered: the task's state, and a refusal's reason. */
interface ViewAnswer {
  readonly result: { readonly isError?: boolean; readonly content?: unknown };
  readonly next?: TaskViewState;
  readonly refusal?: string;
}

async function callView(name: string, args: Record<string, unknown>): Promise<ViewAnswer> {
  const result = await app.callServerTool({ name, arguments: args });
  const content = result.structuredContent as Record<string, unknown> | undefined;
  const next = typeof content?.['taskId'] === 'string' ? (content as unknown as TaskViewState) : undefined;
  if (next !== undefined) draw(next);
  const refusal = typeof content?.['refusal'] === 'string' ? content['refusal'] : undefined;
  return { result, ...(next !== undefined ? { next } : {}), ...(refusal !== undefined ? { refusal } : {}) };
}

async function poll(): Promise<void> {
  if (followed === undefined) return;
  clearTimeout(pollTimer);
  let wait = POLL_CEILING_MS;
  try {
    const { result, next } = await callView(TASK_VIEW_TOOL_NAMES.get, { taskId: followed });
    if (next === undefined) {
      notify(textOfResult(result) ?? 'The task could not be read.', true);
      return;
    }
    if (next.terminal) return;
    wait = next.pollAfterMs ?? wait;
  } catch (error) {
    // The host or the server failed this once: read again later rather than give up on a long task.
    notify(`Could not read the task (${error instanceof Error ? error.message : String(error)}); retrying.`, true);
  }
  pollTimer = setTimeout(() => void poll(), Math.min(POLL_CEILING_MS, Math.max(POLL_FLOOR_MS, wait)));
}

function follow(taskId: string): void {
  if (followed === taskId) return;
  followed = taskId;
  view.taskId.textContent = taskId;
  void poll();
}

async function answer(key: string, action: 'accept' | 'decline', content?: Record<string, unknown>): Promise<void> {
  if (followed === undefined) return;
  notify('Sending…');
  const { result, refusal } = await callView(TASK_VIEW_TOOL_NAMES.answer, {
    taskId: followed,
    key,
    action,
    ...(content !== undefined ? { content } : {}),
  });
  notify(refusal ?? (action === 'accept' ? 'Answer sent.' : 'Declined.'), result.isError === true);
  void poll();
}

view.cancel.addEventListener('click', () => {
  view.cancel.hidden = true;
  view.confirm.hidden = false;
});
view.confirmNo.addEventListener('click', () => {
  view.confirm.hidden = true;
  view.cancel.hidden = false;
});
view.confirmYes.addEventListener('click', async () => {
  view.confirm.hidden = true;
  view.cancel.hidden = false;
  if (followed === undefined) return;
  const { result, refusal } = await callView(TASK_VIEW_TOOL_NAMES.cancel, { taskId: followed });
  notify(refusal ?? 'Cancelled.', result.isError === true);
});

app.ontoolinput = ({ arguments: args }) => {
  const taskId = taskIdOfInput(app.getHostContext()?.toolInfo?.tool.name, args);
  if (taskId !== undefined) follow(taskId);
};
app.ontoolresult = (result) => {
  const taskId = taskIdOfResult(result);
  if (taskId !== undefined) return follow(taskId);
  if (followed !== undefined) return;
  // Ended within its wait: nothing to follow, only the answer.
  view.tool.textContent = app.getHostContext()?.toolInfo?.tool.name ?? 'Tool call';
  view.status.textContent = result.isError ? 'failed' : 'completed';
  view.status.className = `status ${result.isError ? 'failed' : 'completed'}`;
  view.message.textContent = textOfResult(result) ?? '';
};
app.ontoolcancelled = ({ reason }) => notify(`The call was cancelled${reason ? `: ${reason}` : ''}.`);

setInterval(tick, 1000);
await app.connect();
