// What each subcommand does, given a connected TaskClient: fetch, then print as plain text or as JSON. Returns
// the exit code; main.ts owns argument parsing, connecting and turning errors into messages.
import { EXIT, UnknownToolError, UsageError, type ExitCode } from './cli-errors.js';
import { eventUpdates } from './event-watch.js';
import { LiveView, type TaskUpdates } from './live-view.js';
import { renderOutcomeHeadline, renderResult, renderTask, renderTaskList, renderTools } from './render.js';
import type { TaskClient, TaskInfo, TaskOutcome, ToolInfo, ToolResult } from './task-client.js';
import { STATUS_TOOL_NAMES } from '../lambda/contract/tool-definition.js';

/** Where and how to print: `json` for scripts; `interactive` when a person is at a terminal. */
export interface Output {
  readonly json: boolean;
  readonly interactive: boolean;
  /** The terminal's width when stdout is a terminal: long text wraps to it. */
  readonly columns?: number;
  out(text: string): void;
  err(text: string): void;
}

/** Exit code for a finished task: only a completed task whose tool did not report an error is a success. */
export function exitCodeOf(outcome: TaskOutcome): ExitCode {
  if (outcome.status === 'cancelled') return EXIT.cancelled;
  if (outcome.status === 'failed' || outcome.result.isError) return EXIT.failed;
  return EXIT.ok;
}

const STATUS_TOOLS: ReadonlySet<string> = new Set(Object.values(STATUS_TOOL_NAMES));

/**
 * The endpoint's own tools. The server also lists its status tools to a client that declares no tasks, as this one
 * may not (on 2025 it hosts no tasks of its own to declare); the CLI follows tasks itself, so they are not its tools.
 */
async function endpointTools(client: TaskClient): Promise<ToolInfo[]> {
  return (await client.listTools()).filter((tool) => !STATUS_TOOLS.has(tool.name));
}

export async function toolsCommand(client: TaskClient, output: Output): Promise<ExitCode> {
  const tools = await endpointTools(client);
  // The JSON names the protocol spoken, so a script (or a test) can tell which adapter `auto` chose.
  output.out(output.json ? JSON.stringify({ protocol: client.protocol, tools }) : renderTools(tools, output.columns));
  return EXIT.ok;
}

/** `--args` must be a JSON object: the tool's arguments. */
export function parseToolArgs(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--args is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new UsageError('--args must be a JSON object, such as \'{"text":"hello"}\'.');
  return parsed as Record<string, unknown>;
}

export interface CallOptions {
  readonly args?: string;
  readonly wait?: boolean;
  readonly ttl?: number;
  /** Print the task's id alone, for `id=$(mcp-tasks call … --quiet)`. */
  readonly quiet?: boolean;
}

/**
 * `--quiet` promises one thing on stdout, the id, so it refuses what would print something else: `--wait` (whose stdout
 * is already the result alone) and `--json` (the task as an object).
 */
/** Refuses what --quiet cannot be combined with; main.ts asks before connecting, and callCommand again. */
export function checkQuiet(output: Pick<Output, 'json'>, options: CallOptions): void {
  if (!options.quiet) return;
  if (options.wait)
    throw new UsageError(
      '--quiet prints the task id and returns at once; --wait follows the task and prints its result. Use one: ' +
        'with --wait, stdout already holds only the result (the status lines go to stderr).',
    );
  if (output.json) throw new UsageError('--quiet prints the bare task id; --json prints the task as JSON. Use one.');
}

export async function callCommand(
  client: TaskClient,
  output: Output,
  name: string,
  options: CallOptions,
): Promise<ExitCode> {
  checkQuiet(output, options);
  const args = parseToolArgs(options.args);
  const tools = await endpointTools(client);
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool)
    throw new UnknownToolError(
      name,
      tools.map((candidate) => candidate.name),
    );
  if (tool.taskSupport === 'forbidden') {
    // Refused before the call: a script waiting for an id must not get a result it would take for one.
    if (options.quiet)
      throw new UsageError(
        `Tool '${name}' does not run as a task (task support: forbidden), so there is no task id to print. ` +
          'Call it without --quiet for its result.',
      );
    return printDirect(output, await client.callDirect(name, args));
  }

  const view = new LiveView(client, {
    interactive: output.interactive && !options.quiet,
    quiet: output.json || options.quiet === true,
  });
  const started = await client.startTask(name, args, {
    ...(options.ttl !== undefined ? { ttlMs: options.ttl } : {}),
    onProgress: (update) => view.progress(update),
  });
  if (started.kind === 'immediate') {
    if (options.quiet) {
      // The tool has run: its result is not lost, but it goes to stderr, and the exit code says no id came.
      output.err(`Tool '${name}' answered at once, without a task: there is no task id to print. Its result:`);
      output.err(renderResult(started.result));
      return EXIT.usage;
    }
    return printDirect(output, started.result);
  }
  const { task } = started;
  if (options.quiet) {
    output.out(task.taskId);
    return EXIT.ok;
  }
  if (!options.wait) {
    output.out(output.json ? JSON.stringify({ task }) : renderTask(task));
    if (!output.json) output.err(`Follow it with: mcp-tasks watch ${task.taskId}`);
    return EXIT.ok;
  }
  return followAndPrint(client, output, task.taskId, view, task);
}

/**
 * Follows a task to its end: over the server's event stream when it offers the Events extension (every event from the
 * task's first, each printed as a line, or a JSON line under --json), else by polling tasks/get.
 */
export async function watchCommand(client: TaskClient, output: Output, taskId: string): Promise<ExitCode> {
  const view = new LiveView(client, { interactive: output.interactive, quiet: output.json });
  const { events } = client;
  const source =
    events === undefined
      ? undefined
      : (first: TaskInfo): TaskUpdates =>
          eventUpdates(client, events, taskId, first, {
            ...(output.json ? { onEvent: (occurrence) => output.out(JSON.stringify({ event: occurrence })) } : {}),
            onNote: (text) => view.note(text),
          });
  return followAndPrint(client, output, taskId, view, undefined, source);
}

export async function getCommand(client: TaskClient, output: Output, taskId: string): Promise<ExitCode> {
  const task = await client.getTask(taskId);
  output.out(output.json ? JSON.stringify({ task }) : renderTask(task));
  return EXIT.ok;
}

export async function resultCommand(client: TaskClient, output: Output, taskId: string): Promise<ExitCode> {
  const task = await client.getTask(taskId);
  return printOutcome(output, task, await client.outcome(taskId));
}

export async function listCommand(client: TaskClient, output: Output): Promise<ExitCode> {
  const tasks = await client.listTasks();
  output.out(output.json ? JSON.stringify({ tasks }) : renderTaskList(tasks));
  return EXIT.ok;
}

export async function cancelCommand(client: TaskClient, output: Output, taskId: string): Promise<ExitCode> {
  const task = await client.cancelTask(taskId);
  output.out(output.json ? JSON.stringify({ task }) : renderTask(task));
  return EXIT.ok;
}

/** Watches until the task ends, then prints its outcome; or, if the user left it running, how to come back. */
async function followAndPrint(
  client: TaskClient,
  output: Output,
  taskId: string,
  view: LiveView,
  initial?: TaskInfo,
  source?: (first: TaskInfo) => TaskUpdates,
): Promise<ExitCode> {
  const end = await view.watch(taskId, initial, source);
  if (end.kind === 'left-running') {
    if (output.json) output.out(JSON.stringify({ task: end.task, leftRunning: true }));
    else {
      output.err(
        `Left task ${taskId} running.\n` +
          `  follow it:        mcp-tasks watch ${taskId}\n` +
          `  fetch its result: mcp-tasks result ${taskId}`,
      );
      output.out(taskId);
    }
    return EXIT.interrupted;
  }
  return printOutcome(output, end.task, await client.outcome(taskId));
}

function printOutcome(output: Output, task: TaskInfo, outcome: TaskOutcome): ExitCode {
  if (output.json) {
    output.out(JSON.stringify({ task: { ...task, status: outcome.status }, outcome }));
    return exitCodeOf(outcome);
  }
  output.err(renderOutcomeHeadline(task.taskId, outcome));
  if (outcome.status === 'completed') output.out(renderResult(outcome.result));
  else if (outcome.status === 'failed' && outcome.result) output.out(renderResult(outcome.result));
  return exitCodeOf(outcome);
}

function printDirect(output: Output, result: ToolResult): ExitCode {
  output.out(output.json ? JSON.stringify({ result }) : renderResult(result));
  return result.isError ? EXIT.failed : EXIT.ok;
}
