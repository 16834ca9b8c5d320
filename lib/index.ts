// The package's public entry point (`import { McpTaskEndpoint } from 'mcp-tasks-sfn'`): the construct, its props,
// and the constructs its public fields are typed with. Everything else in lib/ is internal.
export { McpTaskEndpoint } from './mcp-task-endpoint.js';
export type { McpTaskEndpointProps, McpToolProps } from './props/mcp-task-endpoint-props.js';
export { ToolDiscovery, type DiscoverToolsProps } from './tools/tool-discovery.js';
export { DeclaredToolCatalog, type DeclaredToolCatalogProps } from './tools/declared-tool-catalog.js';
export type { JsonSchema, TaskSupport } from '../lambda/contract/tool-definition.js';
export { CognitoAuth, type CognitoAuthProps } from './auth/cognito-auth.js';
export { McpRestApi, MCP_PATH, RESOURCE_METADATA_PATH, type McpRestApiProps } from './api/mcp-rest-api.js';
export { OAuthProxy, OAUTH_CALLBACK_PATH, OAUTH_PROXY_ROUTES, type OAuthProxyProps } from './auth/oauth-proxy.js';
/** The default `allowedRedirectUris`, to extend with a client's own callback. */
export { DEFAULT_ALLOWED_REDIRECT_URIS, LOOPBACK_REDIRECT_URIS } from '../lambda/contract/redirect-uri-policy.js';
export { HandlerFunction, type HandlerFunctionProps } from './handlers/handler-function.js';
