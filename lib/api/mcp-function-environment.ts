// The MCP function's environment as McpTaskEndpoint writes it (the names are lambda/contract's, the values what the
// handler reads back in handlers/environment.ts and handlers/mcp-http-environment.ts), and the synth check that it
// fits Lambda's 4 KB.
import type { Duration } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { ENV, EVENTS_ENV, MCP_HTTP_ENV, OAUTH_ENV } from '../../lambda/contract/environment-names.js';
import {
  environmentBytesUpperBound,
  LAMBDA_ENVIRONMENT_LIMIT_BYTES,
  MAX_QUEUE_URL_BYTES,
  MAX_STAGE_URL_PART_BYTES,
  MAX_TOKEN_BYTES,
  MAX_USER_POOL_CLIENT_ID_BYTES,
  MAX_USER_POOL_ID_BYTES,
} from '../handlers/function-environment.js';
import * as defaults from '../props/mcp-task-endpoint-defaults.js';
import type { McpTaskEndpointProps } from '../props/mcp-task-endpoint-props.js';

export interface McpFunctionEnvironmentProps {
  readonly tableName: string;
  readonly resultWait: Duration;
}

/**
 * The MCP function's variables at creation: the table and the task settings the props set. The tools are not among
 * them: the declared tool catalog adds its key (declared-tool-catalog.ts).
 */
export function mcpFunctionEnvironment(
  props: McpTaskEndpointProps,
  { tableName, resultWait }: McpFunctionEnvironmentProps,
): Record<string, string> {
  return {
    [ENV.tableName]: tableName,
    [ENV.resultWaitMs]: String(resultWait.toMilliseconds()),
    ...(props.plainCallWait !== undefined
      ? { [ENV.directCallTimeoutMs]: String(props.plainCallWait.toMilliseconds()) }
      : {}),
    ...(props.handOffPlainCalls === false ? { [ENV.handOffPlainCalls]: 'false' } : {}),
    ...(props.maxActiveTasksPerOwner !== undefined
      ? { [ENV.maxActiveTasksPerOwner]: String(props.maxActiveTasksPerOwner) }
      : {}),
    ...(props.maxTaskCreationsPerMinute !== undefined
      ? { [ENV.maxTaskCreationsPerMinute]: String(props.maxTaskCreationsPerMinute) }
      : {}),
    ...(props.openEndpoint ? { [MCP_HTTP_ENV.openEndpointOwner]: defaults.OPEN_ENDPOINT_OWNER } : {}),
    ...(props.corsAllowOrigins?.length ? { [MCP_HTTP_ENV.corsAllowOrigins]: props.corsAllowOrigins.join(',') } : {}),
  };
}

/** The longest value one token may resolve to, per variable of the MCP function where it is known to be short. */
const MCP_FUNCTION_TOKEN_BYTES: Readonly<Record<string, number>> = {
  [OAUTH_ENV.issuer]: MAX_STAGE_URL_PART_BYTES,
  [OAUTH_ENV.resource]: MAX_STAGE_URL_PART_BYTES,
  [OAUTH_ENV.machineUserPoolId]: MAX_USER_POOL_ID_BYTES,
  [OAUTH_ENV.machineClientId]: MAX_USER_POOL_CLIENT_ID_BYTES,
  [EVENTS_ENV.deliveryQueueUrl]: MAX_QUEUE_URL_BYTES,
};

/**
 * The problem, if any, with the MCP function's environment as it stands at synth: it may not fit Lambda's 4 KB. The
 * tools are not in it (only their catalog's key), so only settings and variables added to the function count.
 */
export function mcpFunctionEnvironmentProblems(mcpFunction: lambda.Function): string[] {
  const bytes = environmentBytesUpperBound(mcpFunction, (name) => MCP_FUNCTION_TOKEN_BYTES[name] ?? MAX_TOKEN_BYTES);
  if (bytes <= LAMBDA_ENVIRONMENT_LIMIT_BYTES) return [];
  return [
    `The MCP function's environment may not fit Lambda's limit (up to ${bytes} of ` +
      `${LAMBDA_ENVIRONMENT_LIMIT_BYTES} bytes): shorten the variables added to it`,
  ];
}
