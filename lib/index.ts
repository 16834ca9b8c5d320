// The package's public entry point (`import { McpTaskEndpoint } from 'mcp-tasks-sfn'`): the construct, its props,
// and the constructs its public fields are typed with. Everything else in lib/ is internal.
export { McpTaskEndpoint } from './mcp-task-endpoint.js';
export type { McpTaskEndpointProps, McpToolProps } from './mcp-task-endpoint-props.js';
export type { JsonSchema, TaskSupport } from '../lambda/tools/tool-definition.js';
export { CognitoAuth, type CognitoAuthProps } from './cognito-auth.js';
export { McpRestApi, MCP_PATH, RESOURCE_METADATA_PATH, type McpRestApiProps } from './mcp-rest-api.js';
export { HandlerFunction, type HandlerFunctionProps } from './handler-function.js';
