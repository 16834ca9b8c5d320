// One MCP server per request for the modern era (protocol 2026-07-28, no session; the SDK's createMcpHandler
// builds it), with the Tasks extension: the server decides which tools/call becomes a task, tasks/get inlines
// the outcome, tasks/update and tasks/cancel acknowledge. Tools and tasks come from the same service as the legacy era.
import {
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  ResourceNotFoundError,
  Server,
  type CallToolResult,
  type ClientCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { IllegalTransitionError, InvalidToolArgumentsError } from '../core/errors.js';
import { TaskOrigin, type TaskRecord } from '../core/task.js';
import { textResult } from '../core/tool-result.js';
import type { ToolDefinition } from '../tools/tool-definition.js';
import { SERVER_INFO, type McpServerDependencies } from './mcp-dependencies.js';
import { TASKS_EXTENSION, TASKS_EXTENSION_CAPABILITY, toCreateTaskResult, toDetailedTask } from './tasks-extension.js';
import { toolListing } from './tool-listing.js';
import { translatingErrors } from './protocol-errors.js';

const TaskIdParams = z.looseObject({ taskId: z.string().min(1) });
const UpdateTaskParams = z.looseObject({ taskId: z.string().min(1), inputResponses: z.record(z.string(), z.unknown()) });
/** Every result of this era carries `resultType`; the SDK fills in "complete" where a handler leaves it out. */
const AnyResult = z.looseObject({});

type Capabilities = Readonly<Record<string, object>>;

/** The client capabilities this request declared in its `_meta` envelope. */
function declaredCapabilities(ctx: ServerContext): ClientCapabilities {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? {};
}

function declaresTasks(ctx: ServerContext): boolean {
  return declaredCapabilities(ctx).extensions?.[TASKS_EXTENSION] !== undefined;
}

/** What of `required` the request did not declare (capabilities by name, extensions by identifier), or `undefined`. */
function missingCapabilities(required: Capabilities, declared: ClientCapabilities): Record<string, object> | undefined {
  const missing: Record<string, object> = {};
  for (const [name, requirement] of Object.entries(required)) {
    const present = (declared as Record<string, unknown>)[name];
    if (present === undefined) missing[name] = requirement;
    else if (name === 'extensions') {
      const absent = Object.entries(requirement).filter(([id]) => (present as Record<string, unknown>)[id] === undefined);
      if (absent.length > 0) missing[name] = Object.fromEntries(absent);
    }
  }
  return Object.keys(missing).length > 0 ? missing : undefined;
}

/** Throws -32021 naming what the request lacks of `required`. */
function requireCapabilities(ctx: ServerContext, required: Capabilities): void {
  const missing = missingCapabilities(required, declaredCapabilities(ctx));
  if (missing === undefined) return;
  const names = Object.entries(missing).flatMap(([name, value]) => (name === 'extensions' ? Object.keys(value) : [name]));
  throw new MissingRequiredClientCapabilityError(
    { requiredCapabilities: missing },
    `Missing required client capability: declare ${names.join(', ')} in this request's io.modelcontextprotocol/clientCapabilities`,
  );
}

/** What a call of `tool` needs the client to have declared: what its workflow asks for, and tasks if it only runs as one. */
function capabilitiesNeededBy(tool: ToolDefinition): Capabilities {
  const needed = { ...tool.requiredClientCapabilities };
  return tool.taskSupport === 'required' ? { ...needed, ...TASKS_EXTENSION_CAPABILITY } : needed;
}

export function createModernMcpServer(deps: McpServerDependencies, owner: string): Server {
  const { service, tools, logger } = deps;
  const server = new Server(SERVER_INFO, {
    // Empty prompt and resource lists: clients (and SEP-2549 caching) may ask, and may cache that there are none.
    capabilities: { tools: {}, prompts: {}, resources: {}, extensions: { [TASKS_EXTENSION]: {} } },
    instructions: 'Each tool runs a Step Functions state machine. Declare the io.modelcontextprotocol/tasks extension and long calls become tasks: poll tasks/get for the result.',
  });
  const handle = <A extends unknown[], R>(handler: (...args: A) => Promise<R>) => translatingErrors(logger, handler);
  const detailed = async (task: TaskRecord) => toDetailedTask(task, await service.resultOf(task));

  server.setRequestHandler('tools/list', handle(async () => ({ tools: toolListing(tools) })));
  server.setRequestHandler('prompts/list', async () => ({ prompts: [] }));
  server.setRequestHandler('resources/list', async () => ({ resources: [] }));
  server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: [] }));
  server.setRequestHandler('resources/read', async (request) => {
    throw new ResourceNotFoundError(request.params.uri, `Resource not found: this server has no resources (${request.params.uri})`);
  });

  server.setRequestHandler(
    'tools/call',
    handle(async (request, ctx) => {
      const { name, arguments: args = {} } = request.params;
      const tool = tools.get(name);
      requireCapabilities(ctx, capabilitiesNeededBy(tool));
      // The server's creation policy: every tool that allows tasks runs as one for a client that declares the
      // extension; anything else (and a call whose arguments are refused, SEP-1303) is answered inline.
      if (tool.taskSupport === 'forbidden' || !declaresTasks(ctx)) return (await service.runToCompletion(owner, name, args, ctx.mcpReq.signal)) as CallToolResult;
      try {
        const created = await service.createTask({ owner, toolName: name, arguments: args, origin: TaskOrigin.TasksExtension });
        return toCreateTaskResult(created) as unknown as CallToolResult;
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
      requireCapabilities(ctx, TASKS_EXTENSION_CAPABILITY);
      return detailed(await service.getTask(owner, params.taskId));
    }),
  );

  server.setRequestHandler(
    'tasks/update',
    { params: UpdateTaskParams, result: AnyResult },
    handle(async (params: z.output<typeof UpdateTaskParams>, ctx: ServerContext) => {
      requireCapabilities(ctx, TASKS_EXTENSION_CAPABILITY);
      // No tool asks for input yet, so no key is outstanding: responses to unknown keys are ignored (spec).
      await service.getTask(owner, params.taskId);
      return {};
    }),
  );

  server.setRequestHandler(
    'tasks/cancel',
    { params: TaskIdParams, result: AnyResult },
    handle(async (params: z.output<typeof TaskIdParams>, ctx: ServerContext) => {
      requireCapabilities(ctx, TASKS_EXTENSION_CAPABILITY);
      try {
        await service.cancelTask(owner, params.taskId);
      } catch (error) {
        // Cancelling a finished task is acknowledged like any other cancel: the ack promises nothing.
        if (!(error instanceof IllegalTransitionError)) throw error;
      }
      return {};
    }),
  );

  return server;
}
