// The 2025-11-25 adapter: tasks as most MCP servers speak them today, through the official 1.x SDK client and its
// experimental tasks API (tools/call with a `task` param, tasks/get, tasks/result, tasks/list, tasks/cancel).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, McpError, type Task } from '@modelcontextprotocol/sdk/types.js';
import { ServerError, UnknownTaskError } from './cli-errors.js';
import type {
  StartOptions,
  Started,
  TaskClient,
  TaskEvents,
  TaskInfo,
  TaskOutcome,
  ToolInfo,
  ToolResult,
} from './task-client.js';
import { CLIENT_INFO, isUnknownTaskMessage, type Endpoint } from './endpoint.js';
import { eventsFor } from './event-stream.js';

/** No request timeout of our own: tasks/result blocks until the task ends, which may take hours. */
const NO_TIMEOUT = { timeout: 2_147_483_647 } as const;

function toTaskInfo(task: Task): TaskInfo {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttl: task.ttl,
    ...(task.pollInterval !== undefined ? { pollInterval: task.pollInterval } : {}),
  };
}

/** Turns SDK errors about one task into the CLI's own; a not-found answer becomes `UnknownTaskError`. */
function translate(error: unknown, taskId?: string): Error {
  if (error instanceof McpError) {
    if (taskId !== undefined && isUnknownTaskMessage(error.code, error.message))
      return new UnknownTaskError(taskId, { cause: error });
    return new ServerError(`The server answered with an error: ${error.message}`, { cause: error });
  }
  return error instanceof Error ? error : new Error(String(error));
}

export class LegacyTaskClient implements TaskClient {
  readonly protocol = '2025-11-25';

  private constructor(
    private readonly client: Client,
    /** The Events extension, when the initialize result advertises it. */
    readonly events: TaskEvents | undefined,
  ) {}

  static async connect(endpoint: Endpoint): Promise<LegacyTaskClient> {
    const client = new Client({ ...CLIENT_INFO }, { capabilities: {} });
    const headers: Record<string, string> = endpoint.token ? { authorization: `Bearer ${endpoint.token}` } : {};
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url), { requestInit: { headers } }));
    return new LegacyTaskClient(client, eventsFor(endpoint, client.getServerCapabilities()));
  }

  async listTools(): Promise<ToolInfo[]> {
    const tools: ToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client
        .listTools(cursor !== undefined ? { cursor } : {})
        .catch((error: unknown) => Promise.reject(translate(error)));
      for (const tool of page.tools) {
        tools.push({
          name: tool.name,
          ...(tool.title !== undefined ? { title: tool.title } : {}),
          ...(tool.description !== undefined ? { description: tool.description } : {}),
          // 2025-11-25: a tool without `execution.taskSupport` is `forbidden`.
          taskSupport: tool.execution?.taskSupport ?? 'forbidden',
        });
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }

  async startTask(name: string, args: Record<string, unknown>, options: StartOptions = {}): Promise<Started> {
    try {
      const { task } = await this.client.request(
        {
          method: 'tools/call',
          params: { name, arguments: args, task: options.ttlMs !== undefined ? { ttl: options.ttlMs } : {} },
        },
        CreateTaskResultSchema,
        // The SDK keeps this handler for the task's whole life, not just this request: progress keeps arriving.
        options.onProgress ? { onprogress: (progress) => options.onProgress!(progress) } : {},
      );
      return { kind: 'task', task: toTaskInfo(task) };
    } catch (error) {
      throw translate(error);
    }
  }

  async callDirect(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    return (await this.client
      .callTool({ name, arguments: args }, CallToolResultSchema, NO_TIMEOUT)
      .catch((error: unknown) => Promise.reject(translate(error)))) as ToolResult;
  }

  async getTask(taskId: string): Promise<TaskInfo> {
    return toTaskInfo(
      await this.client.experimental.tasks
        .getTask(taskId)
        .catch((error: unknown) => Promise.reject(translate(error, taskId))),
    );
  }

  async outcome(taskId: string): Promise<TaskOutcome> {
    let result: ToolResult | undefined;
    let failure: string | undefined;
    try {
      result = (await this.client.experimental.tasks.getTaskResult(
        taskId,
        CallToolResultSchema,
        NO_TIMEOUT,
      )) as ToolResult;
    } catch (error) {
      const translated = translate(error, taskId);
      if (translated instanceof UnknownTaskError || !(error instanceof McpError)) throw translated;
      // A failed task's tasks/result is the JSON-RPC error it failed with.
      failure = error.message;
    }
    // tasks/result answers only once the task has ended; its status says how.
    const task = await this.getTask(taskId);
    if (task.status === 'cancelled') return { status: 'cancelled' };
    if (task.status === 'failed' || failure !== undefined) {
      const error = failure ?? task.statusMessage ?? textOf(result) ?? 'The task failed.';
      // Keep the result only when it says more than the error line already does.
      return { status: 'failed', error, ...(result && textOf(result) !== error ? { result } : {}) };
    }
    return { status: 'completed', result: result! };
  }

  async listTasks(): Promise<TaskInfo[]> {
    const tasks: TaskInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client.experimental.tasks
        .listTasks(cursor)
        .catch((error: unknown) => Promise.reject(translate(error)));
      tasks.push(...page.tasks.map(toTaskInfo));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tasks;
  }

  async cancelTask(taskId: string): Promise<TaskInfo> {
    return toTaskInfo(
      await this.client.experimental.tasks
        .cancelTask(taskId)
        .catch((error: unknown) => Promise.reject(translate(error, taskId))),
    );
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

function textOf(result: ToolResult | undefined): string | undefined {
  const text = result?.content
    ?.flatMap((block) => (block.type === 'text' && block.text !== undefined ? [block.text] : []))
    .join('\n');
  return text === '' ? undefined : text;
}
