// The 2026-07-28 era's side of the endpoint: the SDK's per-request entry (createMcpHandler), task subscriptions and
// the 2.x SDK's request schemas. Loaded by the first request that may be modern (http-app.ts): the 2.x SDK builds all
// its Zod schemas at import, which a 2025-era cold start (initialize, tools/list) never needs.
import { createMcpHandler, isLegacyRequest, specTypeSchemas } from '@modelcontextprotocol/server';
import { sdkParamsErrorOf, type RequestSchema } from './invalid-params.js';
import type { McpServerDependencies } from './mcp-dependencies.js';
import type { ProtocolError } from './protocol-errors.js';
import { createModernMcpServer, toolSchemasOf } from './modern-server.js';
import {
  serveTaskSubscription,
  taskSubscriptionRequestOf,
  type TaskSubscriptionOptions,
} from './task-subscriptions.js';

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

export function createModernEndpoint(
  options: McpServerDependencies,
  subscriptionOptions: TaskSubscriptionOptions,
): ModernEndpoint {
  // The SDK's per-request entry; the owner travels as pass-through auth info.
  const schemas = toolSchemasOf(options.tools.list());
  const modern = createMcpHandler(({ authInfo }) => createModernMcpServer(options, schemas, authInfo!.clientId), {
    legacy: 'reject',
    onerror: (error) => options.logger.warn('Modern-era request rejected', { error: error.message }),
  });
  return {
    isLegacy: (request, parsedBody) => isLegacyRequest(request, parsedBody),
    async serve(request, parsedBody, owner) {
      const subscription = taskSubscriptionRequestOf(request, parsedBody);
      if (subscription !== undefined)
        return serveTaskSubscription(subscription, owner, request.signal, subscriptionOptions);
      const invalid = await sdkParamsErrorOf(parsedBody, MODERN_SDK_VALIDATED);
      if (invalid !== undefined) return invalid;
      return modern.fetch(request, {
        authInfo: { token: '', clientId: owner, scopes: [] },
        ...(parsedBody === undefined ? {} : { parsedBody }),
      });
    },
  };
}
