// One MCP server per legacy-era request (2025 protocol revisions, stateless, as Lambda runs it): tools from the
// registry, tasks from the task service, answered in the task dialect the request speaks (2025-11-25 or SEP-1686).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CancelledNotificationSchema,
  CancelTaskRequestSchema,
  ErrorCode,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListTasksRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
  type RequestId,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import * as z from 'zod/v4';
import { type TaskRecord, type TaskSummary } from '../core/task.js';
import { isTerminal, TaskStatus } from '../core/task-status.js';
import { MCP_2025_11_25_DIALECT, toMcpTask } from './mcp-2025-11-25.js';
import {
  attachWebhookAtCreation,
  checkWebhookAtCreation,
  EVENTS_EXTENSION_CAPABILITY,
  webhookAtCreationOf,
  withWebhookStatus,
} from './events-extension.js';
import { SERVER_INFO, type McpServerDependencies } from './mcp-dependencies.js';
import { invalidParamsError } from './invalid-params.js';
import { ProtocolError, translatingErrors } from './protocol-errors.js';
import {
  namesSep1686Task,
  SEP_1686_DIALECT,
  sep1686TaskRequestOf,
  TASK_CREATED_NOTIFICATION,
  TASK_META_KEY,
} from './sep-1686.js';
import type { LegacyTaskDialect } from './task-dialect.js';
import { progressNotifierFor } from './progress-notifications.js';
import { isAtLeast, ProtocolVersion } from './protocol-version.js';
import { inputRequestSender, type ClientInputRequest } from './client-input-requests.js';
import { toolListing } from './tool-listing.js';
import { callStatusTool, isStatusTool, statusToolListing } from './status-tools.js';
import { plainCallAnswer } from './task-handle-text.js';
import { readTaskViewResource, TASK_VIEW_RESOURCE } from './task-view-resource.js';
import { callTaskViewTool, isTaskViewTool, taskViewToolListing } from './task-view-tools.js';

export interface RequestContext {
  /** The authenticated principal every task of this request belongs to. */
  readonly owner: string;
  /** Ends the SSE response stream of a request without a response (SEP-1686: "no response, use the task"). */
  readonly endResponseStream: (requestId: RequestId) => void;
  /** Work the HTTP answer must wait for, such as a notification's effect, which the SDK does not await. */
  readonly waitFor: (work: Promise<unknown>) => void;
  /** Sends a server->client request on the SSE stream of the request `relatedRequestId` (input requests). */
  readonly askClient: (message: ClientInputRequest, relatedRequestId: RequestId) => Promise<void>;
  /**
   * The protocol version an `initialize` request asks for, if this is one: the tasks capability is only offered where
   * it exists.
   */
  readonly initializeVersion?: string;
  /** Whether the client declared tasks at initialize (declared-task-support.ts): then no status tools are listed. */
  readonly clientDeclaresTasks: boolean;
  /** Whether the client declared MCP Apps at initialize: then the task view's app-only tools are listed and served. */
  readonly clientDeclaresApps: boolean;
}

/** resources/read of a URI this server does not have (MCP's "Resource not found"). */
const RESOURCE_NOT_FOUND = -32002;

/** MCP 2025-11-25 introduced tasks; a client that settles on an earlier revision must not see the capability. */
function negotiatesTasks(initializeVersion: string | undefined): boolean {
  // The SDK answers an unsupported version with its latest, which has tasks.
  return (
    initializeVersion === undefined ||
    !SUPPORTED_PROTOCOL_VERSIONS.includes(initializeVersion) ||
    isAtLeast(initializeVersion, ProtocolVersion.Tasks)
  );
}

/** tasks/delete exists only in SEP-1686, so the SDK has no schema for it. */
const DeleteTaskRequestSchema = z.object({
  method: z.literal('tasks/delete'),
  params: z.object({ taskId: z.string(), _meta: z.record(z.string(), z.unknown()).optional() }),
});

/**
 * One JSON Schema validator for every request's server. The SDK makes a new one (a new Ajv, the costliest part of a
 * server) per server unless given one; it holds only compiled schemas, nothing of a request, so sharing it is safe.
 * Made by the first schema it checks (a tool's output, an elicited form), not at import: a new Ajv with the SDK's
 * string formats costs a cold start several milliseconds of CPU, and initialize or tools/list checks none.
 */
let sharedValidator: AjvJsonSchemaValidator | undefined;
const SHARED_VALIDATOR: jsonSchemaValidator = {
  getValidator: (schema) => (sharedValidator ??= new AjvJsonSchemaValidator()).getValidator(schema),
};

/** What the SDK dispatches a method on (params are checked by the handler): made once per method, not per request. */
const DISPATCH_SCHEMAS = new Map<string, z.ZodObject<{ method: z.ZodLiteral<string> }>>();
function dispatchSchemaFor(method: string): z.ZodObject<{ method: z.ZodLiteral<string> }> {
  let schema = DISPATCH_SCHEMAS.get(method);
  if (schema === undefined) DISPATCH_SCHEMAS.set(method, (schema = z.looseObject({ method: z.literal(method) })));
  return schema;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What of a request decides the dialect of its answer: its params' _meta and its MCP-Protocol-Version header. */
export type DialectHints = Pick<Extra, '_meta' | 'requestInfo'>;

/**
 * Which dialect to answer a request about a task in: SEP-1686 when the request names the task the seed's
 * way; 2025-11-25 when the client negotiated 2025-11-25 or later (it sends MCP-Protocol-Version on every
 * request); otherwise SEP-1686 for a task created in that dialect and 2025-11-25 for any other task (or none).
 */
function dialectOf(extra: DialectHints, task?: TaskSummary): LegacyTaskDialect {
  if (namesSep1686Task(extra._meta)) return SEP_1686_DIALECT;
  const version = extra.requestInfo?.headers['mcp-protocol-version'];
  if (typeof version === 'string' && isAtLeast(version, ProtocolVersion.Tasks)) return MCP_2025_11_25_DIALECT;
  return task?.origin === SEP_1686_DIALECT.origin ? SEP_1686_DIALECT : MCP_2025_11_25_DIALECT;
}

export function createLegacyMcpServer(deps: McpServerDependencies, context: RequestContext): Server {
  const { service, tools, settings, logger } = deps;
  const { owner } = context;
  const offersTasks = negotiatesTasks(context.initializeVersion);
  const server = new Server(SERVER_INFO, {
    // No prompts capability, so prompts/* is -32601 here, whatever deps.prompts holds. Prompts are a 2026-07-28
    // feature of this server: one that asks its client needs input_required rounds, which 2025 revisions lack, and
    // serving only the prompts that do not ask would show each era a different catalog under the same names.
    capabilities: {
      // Discovered tools change at run time: the standalone GET stream then tells of it (standalone-stream.ts).
      tools: { listChanged: deps.toolListChanges !== undefined },
      // The task view (an MCP App): one resource that changes only with a deployment.
      resources: { listChanged: false },
      ...(offersTasks ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {}),
      ...(deps.events ? { extensions: EVENTS_EXTENSION_CAPABILITY } : {}),
    },
    instructions:
      'Each tool runs a Step Functions state machine. Call tools as tasks (params.task) to run them for minutes or ' +
      'hours and fetch the result later.',
    jsonSchemaValidator: SHARED_VALIDATOR,
  });
  const handle = <A extends unknown[], R>(handler: (...args: A) => Promise<R>) => translatingErrors(logger, handler);
  /**
   * Registers a handler whose params are checked here rather than by the SDK, which would answer a
   * malformed request -32603 with a raw validation dump: here it is -32602 with a readable reason.
   */
  const on = <S extends z.ZodObject<{ method: z.ZodLiteral<string> }>, R>(
    schema: S,
    handler: (request: z.output<S>, extra: Extra) => Promise<R>,
  ): void => {
    const method = schema.shape.method.value;
    server.setRequestHandler(
      dispatchSchemaFor(method),
      handle(async (request: unknown, extra: Extra) => {
        const parsed = schema.safeParse(request);
        if (!parsed.success) throw invalidParamsError(method, parsed.error.issues);
        return handler(parsed.data, extra);
      }) as never,
    );
  };
  /** The terminal task's tool result, tagged with the dialect's related-task meta. */
  const resultOf = async (task: TaskRecord, meta: Record<string, unknown>): Promise<CallToolResult> =>
    ({ ...((await service.resultOf(task)) ?? { content: [] }), _meta: meta }) as CallToolResult;
  /** notifications/progress on the request's own stream while it waits, when it sent a progressToken. */
  const progressFor = (meta: Record<string, unknown> | undefined, extra: Extra, related?: Record<string, unknown>) => {
    return progressNotifierFor(
      meta,
      (notification) => extra.sendNotification(notification as ServerNotification),
      related,
    );
  };
  /**
   * The task's open input requests as requests to the client on this request's stream, with the dialect's related-task
   * meta.
   */
  const inputsFor = (extra: Extra, related?: (taskId: string) => Record<string, unknown>) =>
    inputRequestSender((message) => context.askClient(message, extra.requestId), related);

  server.setRequestHandler(
    ListToolsRequestSchema,
    handle(async () => ({
      tools: [
        ...toolListing(tools),
        ...(context.clientDeclaresTasks ? [] : statusToolListing(settings.directCallTimeoutMs)),
        ...(context.clientDeclaresApps ? taskViewToolListing() : []),
      ],
    })),
  );

  server.setRequestHandler(
    ListResourcesRequestSchema,
    handle(async () => ({ resources: [TASK_VIEW_RESOURCE] })),
  );
  server.setRequestHandler(
    ListResourceTemplatesRequestSchema,
    handle(async () => ({ resourceTemplates: [] })),
  );
  server.setRequestHandler(
    ReadResourceRequestSchema,
    handle(async (request) => {
      const { uri } = request.params;
      const answer = await readTaskViewResource(uri);
      if (answer === undefined) throw new ProtocolError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
      return answer;
    }),
  );

  server.setRequestHandler(
    CallToolRequestSchema,
    handle(async (request, extra) => {
      const { name, arguments: args = {}, task, _meta } = request.params;
      if (isStatusTool(name)) {
        if (task !== undefined || sep1686TaskRequestOf(_meta) !== undefined)
          throw new ProtocolError(ErrorCode.MethodNotFound, `${name} answers at once: call it without a task`);
        // The client was handed the task: the questions asked on this stream name it.
        const onRead = inputsFor(extra, MCP_2025_11_25_DIALECT.relatedTaskMeta);
        const wait = { signal: extra.signal, onProgress: progressFor(_meta, extra), onRead };
        return (await callStatusTool(deps, { owner, name, args, wait })) as CallToolResult;
      }
      // Only a host that declared Apps has the task view's tools; to any other client they are unknown tools.
      if (context.clientDeclaresApps && isTaskViewTool(name)) {
        if (task !== undefined || sep1686TaskRequestOf(_meta) !== undefined)
          throw new ProtocolError(ErrorCode.MethodNotFound, `${name} answers at once: call it without a task`);
        return (await callTaskViewTool(deps, { owner, name, args })) as CallToolResult;
      }
      const sep1686 = sep1686TaskRequestOf(_meta);
      if (sep1686 !== undefined && task !== undefined) {
        throw new ProtocolError(
          ErrorCode.InvalidParams,
          `Use one task augmentation: params.task (MCP 2025-11-25) or _meta["${TASK_META_KEY}"] (SEP-1686), not both`,
        );
      }
      if (sep1686 !== undefined) {
        const created = await service.createTask({
          owner,
          toolName: name,
          arguments: args,
          origin: SEP_1686_DIALECT.origin,
          taskId: sep1686.taskId,
          requestId: JSON.stringify(extra.requestId),
          ...(sep1686.keepAlive !== undefined ? { requestedRetentionMs: sep1686.keepAlive } : {}),
        });
        await extra.sendNotification({
          method: TASK_CREATED_NOTIFICATION,
          params: { _meta: SEP_1686_DIALECT.relatedTaskMeta(created.taskId) },
        } as unknown as ServerNotification);
        const onProgress = progressFor(_meta, extra, SEP_1686_DIALECT.relatedTaskMeta(created.taskId));
        const onRead = inputsFor(extra, SEP_1686_DIALECT.relatedTaskMeta);
        const done = await service.waitForTerminal(owner, created.taskId, {
          timeoutMs: settings.resultWaitMs,
          signal: extra.signal,
          onProgress,
          onRead,
        });
        if (!isTerminal(done.status) || done.status === TaskStatus.Cancelled) {
          // Still running as the request's lifetime ends, or cancelled (JSON-RPC answers a cancelled request with
          // nothing).
          context.endResponseStream(extra.requestId);
          return { content: [] };
        }
        return resultOf(done, SEP_1686_DIALECT.relatedTaskMeta(created.taskId));
      }
      if (task !== undefined) {
        const webhook = webhookAtCreationOf(_meta);
        if (webhook !== undefined) await checkWebhookAtCreation(deps, webhook);
        const created = await service.createTask({
          owner,
          toolName: name,
          arguments: args,
          origin: MCP_2025_11_25_DIALECT.origin,
          requestedRetentionMs: task.ttl,
        });
        const answer = {
          task: MCP_2025_11_25_DIALECT.wireTask(created),
          _meta: {
            'io.modelcontextprotocol/model-immediate-response':
              `Started ${name} as task ${created.taskId}; its ` + `result will be available when it completes.`,
          },
        };
        return webhook === undefined ? answer : attachWebhookAtCreation(deps, owner, created, webhook, answer);
      }
      if (tools.get(name).taskSupport === 'required')
        throw new ProtocolError(
          ErrorCode.MethodNotFound,
          `Tool ${name} runs only as a task: call it with params.task (MCP 2025-11-25)`,
        );
      const outcome = await service.runToCompletion(
        owner,
        name,
        args,
        extra.signal,
        progressFor(_meta, extra),
        inputsFor(extra),
      );
      return plainCallAnswer(outcome, settings.directCallTimeoutMs) as CallToolResult;
    }),
  );

  // The SDK's own handler only aborts requests running in this process; a stateless deployment receives the
  // notification on another instance, so the task is found through the store by (owner, request ID).
  server.setNotificationHandler(CancelledNotificationSchema, (notification) => {
    const { requestId, reason } = notification.params;
    if (requestId === undefined) return;
    // Registered before its first await, so the HTTP answer (202) waits for the cancellation to be applied.
    context.waitFor(
      service
        .cancelByRequest(
          owner,
          JSON.stringify(requestId),
          reason ?? 'Cancelled by the client (notifications/cancelled).',
        )
        .catch((error: unknown) => {
          logger.error('Could not apply notifications/cancelled', { requestId, error: String(error) });
        }),
    );
  });

  // The SDK refuses task handlers on a server without the tasks capability; an `initialize` that settles on a
  // revision before tasks is all such a server answers.
  if (!offersTasks) return server;

  on(GetTaskRequestSchema, (request, extra) => answerGetTask(deps, owner, request.params.taskId, extra));

  on(GetTaskPayloadRequestSchema, async (request, extra) => {
    const { taskId } = request.params;
    const current = await service.getTask(owner, taskId);
    const dialect = dialectOf(extra, current);
    if (!dialect.resultWaits) {
      // The seed's tasks/result does not wait: it answers only for a completed task.
      if (current.status !== TaskStatus.Completed) {
        throw new ProtocolError(
          ErrorCode.InvalidParams,
          `Cannot retrieve result: Task status is '${current.status}', not 'completed'`,
        );
      }
      return resultOf(current, dialect.relatedTaskMeta(taskId));
    }
    const onProgress = progressFor(request.params._meta, extra, dialect.relatedTaskMeta(taskId));
    const onRead = inputsFor(extra, dialect.relatedTaskMeta);
    const task = isTerminal(current.status)
      ? current
      : await service.waitForTerminal(owner, taskId, {
          timeoutMs: settings.resultWaitMs,
          signal: extra.signal,
          onProgress,
          onRead,
        });
    if (!isTerminal(task.status)) {
      throw new ProtocolError(
        ErrorCode.RequestTimeout,
        `Task ${taskId} is still ${toMcpTask(task).status} after ${Math.round(settings.resultWaitMs / 1000)} s; poll ` +
          `tasks/get and call tasks/result again once it is terminal`,
      );
    }
    return resultOf(task, dialect.relatedTaskMeta(taskId));
  });

  on(ListTasksRequestSchema, async (request, extra) => {
    const page = await service.listTasks(owner, request.params?.cursor);
    return {
      tasks: page.tasks.map((task) => dialectOf(extra, task).wireTask(task)),
      ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
    };
  });

  on(CancelTaskRequestSchema, async (request, extra) => {
    const task = await service.cancelTask(owner, request.params.taskId);
    return dialectOf(extra, task).wireTask(task);
  });

  on(DeleteTaskRequestSchema, async (request) => {
    await service.deleteTask(owner, request.params.taskId);
    return { _meta: SEP_1686_DIALECT.relatedTaskMeta(request.params.taskId) };
  });

  return server;
}

/** tasks/get: the task in the dialect the request speaks, with its webhook status (also legacy-task-poll.ts). */
export async function answerGetTask(
  deps: McpServerDependencies,
  owner: string,
  taskId: string,
  hints: DialectHints,
): Promise<Record<string, unknown>> {
  const task = await deps.service.getTask(owner, taskId);
  return withWebhookStatus(deps, owner, task.taskId, dialectOf(hints, task).wireTask(task));
}
