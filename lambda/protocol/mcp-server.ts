// One MCP server per request (stateless, as Lambda runs it): tools from the registry, tasks from the task service.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CancelTaskRequestSchema,
  ErrorCode,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  ListToolsRequestSchema,
  RELATED_TASK_META_KEY,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { isTerminal, TaskOrigin } from '../core/task.js';
import type { Logger, TaskService } from '../service/task-service.js';
import type { TaskServiceSettings } from '../service/settings.js';
import type { ToolRegistry } from '../tools/tool-registry.js';
import { toMcpTask } from './mcp-2025-11-25.js';
import { ProtocolError, translatingErrors } from './protocol-errors.js';

export const SERVER_INFO = { name: 'mcp-tasks-sfn', version: '0.1.0' } as const;

export interface McpServerDependencies {
  readonly service: TaskService;
  readonly tools: ToolRegistry;
  readonly settings: TaskServiceSettings;
  readonly logger: Logger;
}

export function createMcpServer(deps: McpServerDependencies, owner: string): Server {
  const { service, tools, settings, logger } = deps;
  const server = new Server(SERVER_INFO, {
    capabilities: {
      tools: {},
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    },
    instructions: 'Each tool runs a Step Functions state machine. Call tools as tasks (params.task) to run them for minutes or hours and fetch the result later.',
  });
  const handle = <A extends unknown[], R>(handler: (...args: A) => Promise<R>) => translatingErrors(logger, handler);

  server.setRequestHandler(
    ListToolsRequestSchema,
    handle(async () => ({
      tools: tools.list().map((tool) => ({
        name: tool.name,
        ...(tool.title !== undefined ? { title: tool.title } : {}),
        description: tool.description,
        inputSchema: tool.inputSchema,
        execution: { taskSupport: 'optional' as const },
      })),
    })),
  );

  server.setRequestHandler(
    CallToolRequestSchema,
    handle(async (request, extra) => {
      const { name, arguments: args = {}, task } = request.params;
      if (task !== undefined) {
        const created = await service.createTask({ owner, toolName: name, arguments: args, origin: TaskOrigin.Mcp20251125, requestedRetentionMs: task.ttl });
        return {
          task: toMcpTask(created),
          _meta: { 'io.modelcontextprotocol/model-immediate-response': `Started ${name} as task ${created.taskId}; its result will be available when it completes.` },
        };
      }
      return (await service.runToCompletion(owner, name, args, extra.signal)) as CallToolResult;
    }),
  );

  server.setRequestHandler(
    GetTaskRequestSchema,
    handle(async (request) => toMcpTask(await service.getTask(owner, request.params.taskId))),
  );

  server.setRequestHandler(
    GetTaskPayloadRequestSchema,
    handle(async (request, extra) => {
      const { taskId } = request.params;
      const task = await service.waitForTerminal(owner, taskId, { timeoutMs: settings.resultWaitMs, signal: extra.signal });
      if (!isTerminal(task.status)) {
        throw new ProtocolError(
          ErrorCode.RequestTimeout,
          `Task ${taskId} is still ${task.status} after ${Math.round(settings.resultWaitMs / 1000)} s; poll tasks/get and call tasks/result again once it is terminal`,
        );
      }
      const result = (await service.resultOf(task)) ?? { content: [] };
      return { ...result, _meta: { [RELATED_TASK_META_KEY]: { taskId } } } as CallToolResult;
    }),
  );

  server.setRequestHandler(
    ListTasksRequestSchema,
    handle(async (request) => {
      const page = await service.listTasks(owner, request.params?.cursor);
      return { tasks: page.tasks.map(toMcpTask), ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}) };
    }),
  );

  server.setRequestHandler(
    CancelTaskRequestSchema,
    handle(async (request) => toMcpTask(await service.cancelTask(owner, request.params.taskId))),
  );

  return server;
}
