// The 2026-07-28 adapter: the Tasks extension (`io.modelcontextprotocol/tasks`) through the official 2.x client
// and an ext-tasks session. connect.ts uses it when the server negotiates the modern era and advertises the
// extension. Progress notifications do not reach this path: the live view shows the polled statusMessage, and the
// count (a progress bar) when the server puts one in the task's `_meta` as this project's server does.
import type { Client } from '@modelcontextprotocol/client';
import {
  createTaskSessionFromClient,
  JsonRpcResponseError,
  toolDeclarationFromMcpTool,
  type TaskEnabledSession,
  type TaskView,
} from '@modelcontextprotocol/ext-tasks/client';
import { taskId as toTaskId, type JsonValue } from '@modelcontextprotocol/ext-tasks/core';
import { CLIENT_INFO, isUnknownTaskMessage, type Endpoint } from './endpoint.js';
import { ServerError, UnknownTaskError, UsageError } from './cli-errors.js';
import { fetchDispatch, MODERN_VERSION } from './modern-dispatch.js';
import { eventsFor } from './event-stream.js';
import type {
  InputAnswer,
  InputRequest,
  ProgressUpdate,
  StartOptions,
  Started,
  TaskClient,
  TaskEvents,
  TaskInfo,
  TaskOutcome,
  ToolInfo,
  ToolResult,
} from './task-client.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * Where mcp-tasks-sfn puts an active task's count in the Tasks extension's Task, which has a statusMessage but no
 * count: `_meta["mcp-tasks-sfn/progress"] = { statusMessage, progress?, total? }` (lambda/protocol/sep-1686.ts). Other
 * servers leave it out, and the live view then shows the statusMessage alone.
 */
const PROGRESS_META_KEY = 'mcp-tasks-sfn/progress';

/** The task's count from its `_meta`, when the server put one there. */
function progressOf(view: TaskView): ProgressUpdate | undefined {
  const entry = recordOf(recordOf(view.raw['_meta'])?.[PROGRESS_META_KEY]);
  const { progress, total, statusMessage } = entry ?? {};
  if (typeof progress !== 'number') return undefined;
  return {
    progress,
    ...(typeof total === 'number' ? { total } : {}),
    ...(typeof statusMessage === 'string' ? { message: statusMessage } : {}),
  };
}

function recordOf(value: JsonValue | undefined): { readonly [key: string]: JsonValue } | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as { readonly [key: string]: JsonValue })
    : undefined;
}

/**
 * The task's open form requests (`inputRequests`: key -> an `elicitation/create` request). Other kinds (sampling,
 * roots, URL elicitations) have no form to fill in at a terminal, so they are not offered.
 */
function inputRequestsOf(view: TaskView): InputRequest[] {
  return Object.entries(recordOf(view.raw['inputRequests']) ?? {}).flatMap(([key, value]) => {
    const request = recordOf(value);
    const params = recordOf(request?.['params']);
    const schema = recordOf(params?.['requestedSchema']);
    if (request?.['method'] !== 'elicitation/create' || typeof params?.['message'] !== 'string' || !schema) return [];
    if (params['mode'] !== undefined && params['mode'] !== 'form') return [];
    return [{ key, message: params['message'], requestedSchema: schema as InputRequest['requestedSchema'] }];
  });
}

function toTaskInfo(view: TaskView): TaskInfo {
  const progress = progressOf(view);
  const inputRequests = inputRequestsOf(view);
  return {
    taskId: view.taskId,
    status: view.status,
    ...(view.statusMessage !== undefined ? { statusMessage: view.statusMessage } : {}),
    ...(view.createdAt !== undefined ? { createdAt: view.createdAt } : {}),
    ...(view.lastUpdatedAt !== undefined ? { lastUpdatedAt: view.lastUpdatedAt } : {}),
    ttl: view.retentionMs,
    ...(view.suggestedPollIntervalMs !== undefined ? { pollInterval: view.suggestedPollIntervalMs } : {}),
    ...(progress !== undefined ? { progress } : {}),
    // Present (maybe empty) whenever the task waits: the questions are known, even when none is a form.
    ...(view.status === 'input_required' ? { inputRequests } : {}),
  };
}

/** Turns ext-tasks and SDK errors into the CLI's own; a not-found answer about `taskId` becomes `UnknownTaskError`. */
function translate(error: unknown, taskId?: string): Error {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (taskId !== undefined && typeof code === 'number' && isUnknownTaskMessage(code, message))
    return new UnknownTaskError(taskId, { cause: error });
  if (error instanceof JsonRpcResponseError || typeof code === 'number')
    return new ServerError(`The server answered with an error: ${message}`, { cause: error });
  return error instanceof Error ? error : new Error(message);
}

export class ModernTaskClient implements TaskClient {
  readonly protocol = `${MODERN_VERSION}+tasks`;

  private constructor(
    private readonly client: Client,
    private readonly session: TaskEnabledSession,
    /** The Events extension, when server/discover advertises it. */
    readonly events: TaskEvents | undefined,
  ) {}

  /** Wraps a 2.x client already connected in the modern era to a server that advertises the Tasks extension. */
  static over(client: Client, endpoint: Endpoint): ModernTaskClient {
    const session = createTaskSessionFromClient(client, {
      endpointId: `${endpoint.url}#${CLIENT_INFO.name}`,
      rawDispatch: fetchDispatch(endpoint),
      v2RequestFraming: { protocolVersion: MODERN_VERSION, clientInfo: { ...CLIENT_INFO }, clientCapabilities: {} },
    });
    return new ModernTaskClient(client, session, eventsFor(endpoint, client.getServerCapabilities()));
  }

  async listTools(): Promise<ToolInfo[]> {
    const tools: ToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client
        .listTools(cursor !== undefined ? { cursor } : {})
        .catch((error: unknown) => Promise.reject(translate(error)));
      for (const tool of page.tools) {
        const declaration = toolDeclarationFromMcpTool(tool);
        tools.push({
          name: tool.name,
          ...(tool.title !== undefined ? { title: tool.title } : {}),
          ...(tool.description !== undefined ? { description: tool.description } : {}),
          // The extension's listing carries no `execution` (the server decides at each call): left absent, not guessed.
          ...(declaration.taskSupport !== undefined ? { taskSupport: declaration.taskSupport } : {}),
        });
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }

  async startTask(name: string, args: Record<string, unknown>, options: StartOptions = {}): Promise<Started> {
    try {
      const execution = await this.session.callTool(name, args as Record<string, JsonValue>, {
        task: { preference: 'prefer', ...(options.ttlMs !== undefined ? { retentionMs: options.ttlMs } : {}) },
      });
      if (execution.kind !== 'task') {
        const { outcome } = await execution.settle();
        if (outcome.status === 'completed') return { kind: 'immediate', result: outcome.result as ToolResult };
        throw new ServerError(
          `The server answered ${name} at once, with an error: ` +
            `${outcome.status === 'failed' ? outcome.error.message : 'cancelled'}`,
        );
      }
      const { taskId } = execution.handle;
      // Release the local handle without cancelling: the task lives on the server, fetched later by ID.
      await execution.detach();
      return { kind: 'task', task: await this.getTask(taskId) };
    } catch (error) {
      throw translate(error);
    }
  }

  async callDirect(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    return (await this.client
      .callTool({ name, arguments: args })
      .catch((error: unknown) => Promise.reject(translate(error)))) as ToolResult;
  }

  async getTask(taskId: string): Promise<TaskInfo> {
    return toTaskInfo(
      await this.session
        .task(toTaskId(taskId))
        .snapshot()
        .catch((error: unknown) => Promise.reject(translate(error, taskId))),
    );
  }

  async outcome(taskId: string): Promise<TaskOutcome> {
    const outcome = await this.session
      .task(toTaskId(taskId))
      .result<ToolResult>()
      .catch((error: unknown) => Promise.reject(translate(error, taskId)));
    if (outcome.status === 'completed') return { status: 'completed', result: outcome.result };
    if (outcome.status === 'failed') return { status: 'failed', error: outcome.error.message };
    return { status: 'cancelled' };
  }

  /** Whether the server lists tasks: the extension itself has no tasks/list; ext-tasks reports what it found. */
  get canListTasks(): boolean {
    return this.session.capabilities.inventory === 'server-list';
  }

  async listTasks(): Promise<TaskInfo[]> {
    if (!this.canListTasks) {
      throw new UsageError(
        `This server's Tasks extension (${MODERN_VERSION}) cannot list tasks. If it also speaks ` +
          `2025-11-25 tasks: mcp-tasks --protocol 2025-11-25 list`,
      );
    }
    const tasks: TaskInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.session.listTasks(cursor).catch((error: unknown) => Promise.reject(translate(error)));
      tasks.push(...page.tasks.map(toTaskInfo));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tasks;
  }

  async cancelTask(taskId: string): Promise<TaskInfo> {
    await this.session
      .task(toTaskId(taskId))
      .cancel()
      .catch((error: unknown) => Promise.reject(translate(error, taskId)));
    return this.getTask(taskId);
  }

  async answerInput(taskId: string, answers: Readonly<Record<string, InputAnswer>>): Promise<void> {
    await this.session
      .task(toTaskId(taskId))
      .updateJson(answers)
      .catch((error: unknown) => Promise.reject(translate(error, taskId)));
  }

  async close(): Promise<void> {
    await this.session.close();
    await this.client.close();
  }
}
