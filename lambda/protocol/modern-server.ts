// One MCP server per request for the modern era (protocol 2026-07-28, no session; the SDK's createMcpHandler
// builds it), with the Tasks extension: the server decides which tools/call becomes a task, tasks/get inlines
// the outcome, tasks/update and tasks/cancel acknowledge. Tools and tasks come from the same service as the legacy era.
import {
  fromJsonSchema,
  McpServer,
  ResourceNotFoundError,
  type CallToolResult,
  type ServerContext,
  type StandardSchemaWithJSON,
} from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { IllegalTransitionError, InvalidToolArgumentsError } from '../core/errors.js';
import { textResult } from '../core/tool-result.js';
import type { ToolDefinition } from '../contract/tool-definition.js';
import { declaredCapabilities, requireCapabilities, type Capabilities } from './client-capabilities.js';
import { SERVER_INFO, type McpServerDependencies } from './mcp-dependencies.js';
import {
  attachWebhookAtCreation,
  checkWebhookAtCreation,
  EVENTS_EXTENSION_CAPABILITY,
  webhookAtCreationOf,
  withWebhookStatus,
} from './events-extension.js';
import { translatingErrors } from './protocol-errors.js';
import {
  TASKS_EXTENSION,
  TASKS_EXTENSION_CAPABILITY,
  TASKS_EXTENSION_DIALECT,
  toCreateTaskResult,
  toDetailedTask,
} from './tasks-extension.js';
import { progressNotifierFor } from './progress-notifications.js';
import { toolListing } from './tool-listing.js';
import {
  answeringUnknownIds,
  callStatusTool,
  isStatusTool,
  statusToolListing,
  taskIdArgument,
} from './status-tools.js';
import { STATUS_TOOL_NAMES } from '../contract/tool-definition.js';
import { callWithInput, requestStateVerifier } from './input-round-trips.js';
import { APPS_EXTENSION } from './declared-task-support.js';
import { readTaskViewResource, TASK_VIEW_RESOURCE } from './task-view-resource.js';
import { callTaskViewTool, isTaskViewTool, taskViewToolListing } from './task-view-tools.js';
import { getPrompt, promptListing } from './prompt-rounds.js';
import { PromptRegistry } from '../prompts/prompt-registry.js';

const NO_PROMPTS = new PromptRegistry();
const TaskIdParams = z.looseObject({ taskId: z.string().min(1) });
/** Every result of this era carries `resultType`; the SDK fills in "complete" where a handler leaves it out. */
const AnyResult = z.looseObject({});

/**
 * What a call of `tool` needs the client to have declared: what its workflow asks for, and tasks if it only runs as
 * one.
 */
function capabilitiesNeededBy(tool: ToolDefinition): Capabilities {
  const needed = { ...tool.requiredClientCapabilities };
  return tool.taskSupport === 'required' ? { ...needed, ...TASKS_EXTENSION_CAPABILITY } : needed;
}

/**
 * The input schemas, in the SDK's schema form, of the tools that declare SEP-2243 `x-mcp-header` parameters: the
 * only ones whose headers the SDK has anything to check. Made once and shared by every request's server.
 */
export type ToolSchemas = ReadonlyMap<string, StandardSchemaWithJSON>;

export function toolSchemasOf(tools: readonly ToolDefinition[]): ToolSchemas {
  const declaresHeaders = (tool: ToolDefinition): boolean =>
    JSON.stringify(tool.inputSchema).includes('"x-mcp-header"');
  return new Map(tools.filter(declaresHeaders).map((tool) => [tool.name, fromJsonSchema(tool.inputSchema)]));
}

/**
 * tasks/get's answer (before the SDK stamps `resultType` and `serverInfo` on it): the task as a DetailedTask, with its
 * webhook status. Shared with the direct poll path (modern-task-poll.ts), so the two cannot answer differently.
 */
export async function answerTasksGet(
  deps: McpServerDependencies,
  owner: string,
  taskId: string,
): Promise<Record<string, unknown>> {
  const task = await deps.service.getTask(owner, taskId);
  return withWebhookStatus(deps, owner, task.taskId, toDetailedTask(task, await deps.service.resultOf(task)));
}

export function createModernMcpServer(deps: McpServerDependencies, schemas: ToolSchemas, owner: string): McpServer {
  const { service, tools, logger } = deps;
  const prompts = deps.prompts ?? NO_PROMPTS;
  const mcp = new McpServer(SERVER_INFO, {
    // Prompts (maybe none) and one resource, the task view (an MCP App): clients (and SEP-2549 caching) may ask, and
    // cache the answer.
    // Prompts and resources change only with a deployment, so no listChanged (McpServer would otherwise claim it);
    // tools too, unless they are discovered at run time (subscriptions/listen then tells of a change).
    capabilities: {
      tools: { listChanged: deps.toolListChanges !== undefined },
      prompts: { listChanged: false },
      resources: { listChanged: false },
      extensions: { [TASKS_EXTENSION]: {}, ...(deps.events ? EVENTS_EXTENSION_CAPABILITY : {}) },
    },
    instructions:
      'Each tool runs a Step Functions state machine. Declare the io.modelcontextprotocol/tasks extension and long ' +
      'calls become tasks: poll tasks/get for the result.',
    // A plain call whose workflow asks its client answers input_required with a signed requestState (SEP-2322);
    // the retry's state is checked here, before any handler: tampered, expired or another owner's is -32602.
    requestState: { verify: requestStateVerifier(deps, owner) },
  });
  // Registered so that the SDK's entry checks SEP-2243 `Mcp-Param-*` headers against each tool's schema before
  // dispatch. Listing and calling stay ours (below): the SDK's tool handlers know nothing of tasks.
  for (const [name, inputSchema] of schemas)
    mcp.registerTool(name, { inputSchema }, () => textResult('') as CallToolResult);
  const { server } = mcp;
  const handle = <A extends unknown[], R>(handler: (...args: A) => Promise<R>) => translatingErrors(logger, handler);
  const requireTasks = (ctx: ServerContext): void => requireCapabilities(ctx, TASKS_EXTENSION_CAPABILITY);

  const declaresTasks = (ctx: ServerContext): boolean =>
    declaredCapabilities(ctx).extensions?.[TASKS_EXTENSION] !== undefined;
  /** A host that renders MCP Apps: only it is shown, and may call, the task view's app-only tools. */
  const declaresApps = (ctx: ServerContext): boolean =>
    declaredCapabilities(ctx).extensions?.[APPS_EXTENSION] !== undefined;

  server.setRequestHandler(
    'tools/list',
    handle(async (_request, ctx) => ({
      tools: [
        ...toolListing(tools),
        ...(declaresTasks(ctx) ? [] : statusToolListing(deps.settings.directCallTimeoutMs)),
        ...(declaresApps(ctx) ? taskViewToolListing() : []),
      ],
    })),
  );
  server.setRequestHandler(
    'prompts/list',
    handle(async () => ({ prompts: promptListing(prompts) })),
  );
  server.setRequestHandler(
    'prompts/get',
    handle(async (request, ctx) => getPrompt(prompts, request.params, ctx)),
  );
  server.setRequestHandler('resources/list', async () => ({ resources: [TASK_VIEW_RESOURCE] }));
  server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: [] }));
  server.setRequestHandler('resources/read', async (request) => {
    const answer = await readTaskViewResource(request.params.uri);
    if (answer === undefined)
      throw new ResourceNotFoundError(request.params.uri, `Resource not found: ${request.params.uri}`);
    return answer;
  });

  server.setRequestHandler(
    'tools/call',
    handle(async (request, ctx) => {
      const { name, arguments: args = {} } = request.params;
      if (isStatusTool(name)) {
        const onProgress = progressNotifierFor(ctx.mcpReq._meta, (notification) => ctx.mcpReq.notify(notification));
        const wait = { signal: ctx.mcpReq.signal, ...(onProgress ? { onProgress } : {}) };
        const taskId = taskIdArgument(name, args);
        // task_result asks the task's questions as input_required rounds (SEP-2322), as a plain call does.
        if (name !== STATUS_TOOL_NAMES.result || typeof taskId !== 'string')
          return (await callStatusTool(deps, { owner, name, args, wait })) as CallToolResult;
        const follow = { owner, toolName: name, args, ctx, wait, becomeTask: false, follows: taskId };
        return (await answeringUnknownIds(deps, owner, taskId, () => callWithInput(deps, follow))) as CallToolResult;
      }
      // Only a host that declared Apps has the task view's tools; to any other client they are unknown tools.
      if (isTaskViewTool(name) && declaresApps(ctx))
        return (await callTaskViewTool(deps, { owner, name, args })) as CallToolResult;
      const tool = tools.get(name);
      requireCapabilities(ctx, capabilitiesNeededBy(tool));
      // The server's creation policy: every tool that allows tasks runs as one for a client that declares the
      // extension; anything else (and a call whose arguments are refused, SEP-1303) is answered inline.
      const asTask = tool.taskSupport !== 'forbidden' && declaresTasks(ctx);
      // A plain call, or a retry carrying answers (SEP-2322), or the first rounds of a tool that asks before it
      // becomes a task: answered inline, with input_required rounds when the workflow asks its client.
      if (!asTask || tool.inputBeforeTask === true || ctx.mcpReq.requestState() !== undefined) {
        // The workflow's progress on the request's stream, when the call asked for it.
        const onProgress = progressNotifierFor(ctx.mcpReq._meta, (notification) => ctx.mcpReq.notify(notification));
        const wait = { signal: ctx.mcpReq.signal, ...(onProgress ? { onProgress } : {}) };
        return callWithInput(deps, { owner, toolName: name, args, ctx, wait, becomeTask: asTask });
      }
      const webhook = webhookAtCreationOf(request.params._meta);
      if (webhook !== undefined) await checkWebhookAtCreation(deps, webhook);
      try {
        const created = await service.createTask({
          owner,
          toolName: name,
          arguments: args,
          origin: TASKS_EXTENSION_DIALECT.origin,
        });
        const answer = toCreateTaskResult(created) as { _meta?: Record<string, unknown> };
        return (webhook === undefined
          ? answer
          : await attachWebhookAtCreation(deps, owner, created, webhook, answer)) as unknown as CallToolResult;
      } catch (error) {
        if (error instanceof InvalidToolArgumentsError) return textResult(error.message, true) as CallToolResult;
        throw error;
      }
    }),
  );

  server.setRequestHandler(
    'tasks/get',
    { params: TaskIdParams, result: AnyResult },
    handle(async (params: z.output<typeof TaskIdParams>, ctx: ServerContext) => {
      requireTasks(ctx);
      return answerTasksGet(deps, owner, params.taskId);
    }),
  );

  // `inputResponses` reach the handler through ctx.mcpReq.inputResponses (the SDK lifts them out of the params and
  // drops entries that are not bare result objects). The acknowledgement comes once every answer was delivered.
  server.setRequestHandler(
    'tasks/update',
    { params: TaskIdParams, result: AnyResult },
    handle(async (params: z.output<typeof TaskIdParams>, ctx: ServerContext) => {
      requireTasks(ctx);
      await deps.inputs.answer(owner, params.taskId, ctx.mcpReq.inputResponses ?? {});
      return {};
    }),
  );

  server.setRequestHandler(
    'tasks/cancel',
    { params: TaskIdParams, result: AnyResult },
    handle(async (params: z.output<typeof TaskIdParams>, ctx: ServerContext) => {
      requireTasks(ctx);
      try {
        await service.cancelTask(owner, params.taskId);
      } catch (error) {
        // Cancelling a finished task is acknowledged like any other cancel: the ack promises nothing.
        if (!(error instanceof IllegalTransitionError)) throw error;
      }
      return {};
    }),
  );

  return mcp;
}
