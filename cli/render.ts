// Plain-text views of tools, tasks and results: what a person reads, and what a script greps when stdout is not a
// terminal. Pure functions of their input; `--json` output bypasses them and prints the objects themselves.
import type {
  ProgressUpdate,
  TaskEventOccurrence,
  TaskInfo,
  TaskOutcome,
  ToolInfo,
  ToolResult,
  WebhookSubscriptionInfo,
} from './task-client.js';

/**
 * One entry per tool: its name first on a plain line, its task support as tools/list gives it (`undeclared` when the
 * listing declares nothing, as in the Tasks extension, where the server decides at each call), and its whole
 * description. Given `columns` (a terminal's width), the description wraps into its column, or onto indented lines
 * below when the column would be narrower than MIN_DESCRIPTION_COLUMNS; without it (a pipe), each tool is one line.
 */
export function renderTools(tools: readonly ToolInfo[], columns?: number): string {
  if (tools.length === 0) return 'This server has no tools.';
  const width = Math.max(...tools.map((tool) => tool.name.length));
  const supportWidth = Math.max(...tools.map((tool) => taskSupportLabel(tool).length));
  const indent = width + '  task: '.length + supportWidth + 2;
  return tools
    .map((tool) => {
      const head = `${tool.name.padEnd(width)}  task: ${taskSupportLabel(tool).padEnd(supportWidth)}  `;
      const description = (tool.description ?? tool.title ?? '').trim();
      if (columns === undefined || description === '') return `${head}${description.replace(/\s+/g, ' ')}`.trimEnd();
      if (columns - indent >= MIN_DESCRIPTION_COLUMNS)
        return wrapWords(description, columns - indent)
          .map((line, index) => (index === 0 ? head : ' '.repeat(indent)) + line)
          .join('\n');
      const below = Math.max(columns - BELOW_INDENT, MIN_DESCRIPTION_COLUMNS);
      return [head.trimEnd(), ...wrapWords(description, below).map((line) => ' '.repeat(BELOW_INDENT) + line)].join(
        '\n',
      );
    })
    .join('\n');
}

/** The narrowest description column worth wrapping into; below it the description goes under the name. */
const MIN_DESCRIPTION_COLUMNS = 30;
const BELOW_INDENT = 4;

function taskSupportLabel(tool: ToolInfo): string {
  return tool.taskSupport ?? 'undeclared';
}

/** `text`'s words in lines of at most `width` characters (a longer word gets a line of its own). */
function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((part) => part !== '')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}

export function renderTask(task: TaskInfo): string {
  const rows: [string, string | undefined][] = [
    ['task', task.taskId],
    ['status', task.status],
    ['message', task.statusMessage],
    ['progress', task.progress !== undefined ? progressCount(task.progress) : undefined],
    ['created', task.createdAt],
    ['updated', task.lastUpdatedAt],
    ['ttl', task.ttl === null ? 'unlimited' : task.ttl !== undefined ? `${task.ttl} ms` : undefined],
    ['poll', task.pollInterval !== undefined ? `${task.pollInterval} ms` : undefined],
    // What the task waits for, so a person who only looks knows there is a question and where to answer it.
    ...(task.inputRequests ?? []).map((request): [string, string] => [
      'asks',
      `${request.message} (answer: mcp-tasks watch ${task.taskId})`,
    ]),
  ];
  return rows
    .flatMap(([label, value]) => (value !== undefined ? [`${`${label}:`.padEnd(10)}${value}`] : []))
    .join('\n');
}

export function renderTaskList(tasks: readonly TaskInfo[]): string {
  if (tasks.length === 0) return 'No tasks.';
  return tasks
    .map((task) =>
      [task.taskId, task.status.padEnd(14), task.lastUpdatedAt ?? task.createdAt ?? '', task.statusMessage ?? '']
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** A tool result: its text blocks, else its structured content as indented JSON, else the whole result. */
export function renderResult(result: ToolResult): string {
  const texts = (result.content ?? []).flatMap((block) =>
    block.type === 'text' && block.text !== undefined ? [block.text] : [],
  );
  if (texts.length > 0) return texts.join('\n');
  return JSON.stringify(result.structuredContent ?? result, null, 2);
}

/** The closing line after a task ends, before its result. */
export function renderOutcomeHeadline(taskId: string, outcome: TaskOutcome): string {
  if (outcome.status === 'completed')
    return outcome.result.isError
      ? `Task ${taskId} completed; the tool reported an error:`
      : `Task ${taskId} completed.`;
  if (outcome.status === 'failed') return `Task ${taskId} failed: ${outcome.error}`;
  return `Task ${taskId} was cancelled.`;
}

/** `12s`, `3m 04s`, `1h 02m`: elapsed time on the live line. */
export function formatElapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}

/** `2 of 5`, or `2 done` when the total is unknown. */
function progressCount(progress: ProgressUpdate): string {
  return progress.total !== undefined ? `${progress.progress} of ${progress.total}` : `${progress.progress} done`;
}

/** A text bar such as `[######----] 60%`: plain characters, so it reads the same in any terminal or log. */
export function progressBar(progress: number, total: number, width = 20): string {
  const fraction = total > 0 ? Math.min(1, Math.max(0, progress / total)) : 0;
  const filled = Math.round(fraction * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.round(fraction * 100)}%`;
}

/** The live line: status, status message, a bar when the server reported progress against a total, elapsed time. */
export function renderLiveLine(state: {
  status: string;
  statusMessage?: string;
  progress?: ProgressUpdate;
  elapsedMs: number;
}): string {
  const message = state.progress?.message ?? state.statusMessage;
  const parts = [state.status];
  if (message) parts.push(message);
  if (state.progress?.total !== undefined) parts.push(progressBar(state.progress.progress, state.progress.total));
  else if (state.progress) parts.push(progressCount(state.progress));
  parts.push(formatElapsed(state.elapsedMs));
  return parts.join(' · ');
}

/**
 * One event of a task's log, as `watch` prints it in plain mode: its number, the status, the message, the count (a bar
 * against a total), the workflow step, and the input requests still open.
 */
export function renderTaskEvent(occurrence: TaskEventOccurrence): string {
  const { seq, task } = occurrence.data;
  const parts: string[] = [task.status];
  if (task.statusMessage) parts.push(task.statusMessage);
  const count = task.progress;
  if (count?.progress !== undefined)
    parts.push(
      count.total !== undefined
        ? progressBar(count.progress, count.total)
        : progressCount({ progress: count.progress }),
    );
  if (task.currentStep) parts.push(`step ${task.currentStep}`);
  if (task.openInputRequests && task.openInputRequests.length > 0)
    parts.push(`waiting for input: ${task.openInputRequests.join(', ')}`);
  return `#${seq} ${parts.join(' · ')}`;
}

/**
 * A verified webhook delivery, one line: when (the event's time; the arrival for an envelope), the subscription, then
 * for an event its name, task, status and number, for an envelope its type and what it says.
 */
export function renderDelivery(body: unknown, subscriptionId: string, receivedAt: Date): string {
  const record = recordOf(body) ?? {};
  const data = recordOf(record['data']);
  const task = recordOf(data?.['task']);
  if (typeof record['eventId'] === 'string' && data !== undefined) {
    const time = typeof record['timestamp'] === 'string' ? record['timestamp'] : receivedAt.toISOString();
    return [
      time,
      subscriptionId,
      String(record['name'] ?? '?'),
      String(data['taskId'] ?? task?.['taskId'] ?? '?'),
      String(task?.['status'] ?? '?'),
      typeof data['seq'] === 'number' ? `#${data['seq']}` : '',
    ]
      .join('  ')
      .trimEnd();
  }
  const type = typeof record['type'] === 'string' ? record['type'] : 'unknown';
  const error = recordOf(record['error']);
  const detail =
    type === 'gap'
      ? `cursor ${String(record['cursor'])}`
      : type === 'terminated'
        ? `${String(error?.['code'] ?? '')} ${String(error?.['message'] ?? '')}`.trim()
        : type === 'verification'
          ? 'challenge answered'
          : JSON.stringify(body);
  return [receivedAt.toISOString(), subscriptionId, type, detail].join('  ').trimEnd();
}

/** A webhook subscription as `events/subscribe` answered it. */
export function renderSubscription(subscription: WebhookSubscriptionInfo): string {
  const status = recordOf(subscription['deliveryStatus']);
  const rows: [string, string | undefined][] = [
    ['subscription', subscription.id],
    ['refresh before', subscription.refreshBefore],
    ['delivery', status ? JSON.stringify(status) : undefined],
  ];
  return rows
    .flatMap(([label, value]) => (value !== undefined ? [`${`${label}:`.padEnd(16)}${value}`] : []))
    .join('\n');
}

function recordOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
