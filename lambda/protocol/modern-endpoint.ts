// The 2026-07-28 era's side of the endpoint: the SDK's per-request entry (createMcpHandler), the listen streams served
// here (task subscriptions, tool list changes) and the 2.x SDK's request schemas. Loaded by the first request that may
// be modern (http-app.ts): the 2.x SDK builds all its Zod schemas at import, which a 2025-era cold start (initialize,
// tools/list) never needs.
import { createMcpHandler, isLegacyRequest, specTypeSchemas, type JSONRPCRequest } from '@modelcontextprotocol/server';
import type { ToolListChanges } from '../service/tool-list-changes.js';
import { sdkParamsErrorOf, type RequestSchema } from './invalid-params.js';
import { listenRequestOf, serveListenStream, type ListenStreamOptions } from './listen-stream.js';
import type { McpServerDependencies } from './mcp-dependencies.js';
import type { ProtocolError } from './protocol-errors.js';
import { createModernMcpServer, toolSchemasOf } from './modern-server.js';
import { serveTaskSubscription, taskIdsOf } from './task-subscriptions.js';

/**
 * The methods whose params the 2.x SDK validates itself, with its schema (tasks/* and subscriptions/listen are checked
 * by our own handlers).
 */
const MODERN_SDK_VALIDATED: Readonly<Record<string, RequestSchema>> = {
  'tools/call': specTypeSchemas.CallToolRequest,
  'tools/list': specTypeSchemas.ListToolsRequest,
  'prompts/list': specTypeSchemas.ListPromptsRequest,
  'prompts/get': specTypeSchemas.GetPromptRequest,
  'resources/list': specTypeSchemas.ListResourcesRequest,
  'resources/templates/list': specTypeSchemas.ListResourceTemplatesRequest,
  'resources/read': specTypeSchemas.ReadResourceRequest,
};

export interface ModernEndpoint {
  /** The SDK's own era rule, for the requests that http-app's cheap check cannot call legacy. */
  isLegacy(request: Request, parsedBody: unknown): Promise<boolean>;
  /** Serves one modern-era request for `owner`; params that fail the SDK's schemas get the error to send instead. */
  serve(request: Request, parsedBody: unknown, owner: string): Promise<Response | ProtocolError>;
}

/**
 * A listen stream for tool list changes: acknowledged as `toolsListChanged` alone (prompts and resources never change
 * at run time, and this server has no resource subscriptions), then `notifications/tools/list_changed` on each change
 * of the discovered tools. Served here rather than by the SDK's listen router: that router's streams have no bounded
 * life (in Lambda they would be cut at the function's timeout, which the client takes for a dropped connection), and
 * its event bus is fed in-process, where nothing learns of the refresher's write without reading the store anyway.
 */
function serveToolListSubscription(
  message: JSONRPCRequest,
  signal: AbortSignal,
  changes: ToolListChanges,
  options: ListenStreamOptions,
): Response {
  return serveListenStream(message, signal, options, async (stream) => {
    stream.notify('notifications/subscriptions/acknowledged', { notifications: { toolsListChanged: true } });
    const watch = { until: stream.until, pollIntervalMs: options.pollIntervalMs, signal: stream.signal };
    await changes.watch(watch, { onChange: () => stream.notify('notifications/tools/list_changed') });
  });
}

export function createModernEndpoint(options: McpServerDependencies, streams: ListenStreamOptions): ModernEndpoint {
  // The SDK's per-request entry; the owner travels as pass-through auth info.
  const schemas = toolSchemasOf(options.tools.list());
  const modern = createMcpHandler(({ authInfo }) => createModernMcpServer(options, schemas, authInfo!.clientId), {
    legacy: 'reject',
    onerror: (error) => options.logger.warn('Modern-era request rejected', { error: error.message }),
  });
  const { toolListChanges } = options;
  return {
    isLegacy: (request, parsedBody) => isLegacyRequest(request, parsedBody),
    async serve(request, parsedBody, owner) {
      const listen = listenRequestOf(request, parsedBody);
      // A listen naming tasks gets the task stream, whose acknowledgement says that it honours the tasks alone.
      const taskIds = listen && taskIdsOf(listen.filter);
      if (listen && taskIds)
        return serveTaskSubscription({ message: listen.message, taskIds }, owner, request.signal, {
          ...streams,
          service: options.service,
        });
      if (listen?.filter['toolsListChanged'] === true && toolListChanges !== undefined)
        return serveToolListSubscription(listen.message, request.signal, toolListChanges, streams);
      const invalid = await sdkParamsErrorOf(parsedBody, MODERN_SDK_VALIDATED);
      if (invalid !== undefined) return invalid;
      return modern.fetch(request, {
        authInfo: { token: '', clientId: owner, scopes: [] },
        ...(parsedBody === undefined ? {} : { parsedBody }),
      });
    },
  };
}
