// The MCP function's environment as McpTaskEndpoint writes it (the names are lambda/contract's, the values what the
// handler reads back in handlers/mcp-http-environment.ts), and the synth check that it fits Lambda's 4 KB.
import { Lazy, type Duration } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { ENV, EVENTS_ENV, MCP_HTTP_ENV, OAUTH_ENV } from '../lambda/contract/environment-names.js';
import { packToolCatalog } from '../lambda/contract/packed-tool-catalog.js';
import {
  environmentBytesUpperBound,
  LAMBDA_ENVIRONMENT_LIMIT_BYTES,
  MAX_QUALIFIED_FUNCTION_ARN_BYTES,
  MAX_QUEUE_URL_BYTES,
  MAX_STAGE_URL_PART_BYTES,
  MAX_STATE_MACHINE_ARN_BYTES,
  MAX_TOKEN_BYTES,
  MAX_USER_POOL_CLIENT_ID_BYTES,
  MAX_USER_POOL_ID_BYTES,
} from './function-environment.js';
import * as defaults from './mcp-task-endpoint-defaults.js';
import type { McpTaskEndpointProps, McpToolProps } from './mcp-task-endpoint-props.js';

export interface McpFunctionEnvironmentProps {
  readonly tableName: string;
  readonly resultWait: Duration;
  /** The endpoint's tools, appended to after this call: the catalog variables are produced when synth resolves them. */
  readonly tools: readonly McpToolProps[];
  /** Per tool, in the order of `tools` (appended to alike): its machine, or its wrapper and EXPRESS machine. */
  readonly machineEntries: readonly string[];
}

/**
 * The MCP function's variables at creation: the table, the task settings the props set, and the tool catalog (packed,
 * its state machine ARNs beside it), produced afresh at each resolution so that tools added later still count.
 */
export function mcpFunctionEnvironment(
  props: McpTaskEndpointProps,
  { tableName, resultWait, tools, machineEntries }: McpFunctionEnvironmentProps,
): Record<string, string> {
  // Synth resolves the environment several times; tools are only ever appended, so their count keys the cache.
  let packed: { readonly toolCount: number; readonly value: string } | undefined;
  const packedCatalog = (): string => {
    if (packed?.toolCount !== tools.length) {
      packed = {
        toolCount: tools.length,
        value: packToolCatalog(
          tools.map(
            ({ stateMachine: _machine, stateMachineType: _type, durableFunction: _function, ...description }) =>
              description,
          ),
        ),
      };
    }
    return packed.value;
  };
  return {
    [ENV.tableName]: tableName,
    [ENV.resultWaitMs]: String(resultWait.toMilliseconds()),
    // Status changes are pushed by EventBridge; describing an execution on a poll is only the fallback for a missed
    // event.
    [ENV.refreshIntervalMs]: String(defaults.REFRESH_INTERVAL.toMilliseconds()),
    // Produced afresh at each resolution (not cached), so tools added after any early resolution still count.
    [MCP_HTTP_ENV.packedToolCatalog]: Lazy.uncachedString({ produce: packedCatalog }),
    [MCP_HTTP_ENV.toolStateMachineArns]: Lazy.uncachedString({
      produce: () => machineEntries.join(','),
    }),
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
  [MCP_HTTP_ENV.toolStateMachineArns]: MAX_STATE_MACHINE_ARN_BYTES,
  [OAUTH_ENV.issuer]: MAX_STAGE_URL_PART_BYTES,
  [OAUTH_ENV.resource]: MAX_STAGE_URL_PART_BYTES,
  [OAUTH_ENV.machineUserPoolId]: MAX_USER_POOL_ID_BYTES,
  [OAUTH_ENV.machineClientId]: MAX_USER_POOL_CLIENT_ID_BYTES,
  [EVENTS_ENV.deliveryQueueUrl]: MAX_QUEUE_URL_BYTES,
};

/**
 * The problem, if any, with the MCP function's environment as it stands at synth: it may not fit Lambda's 4 KB. A
 * durable tool's entry (a version's or alias's ARN) may be longer than a state machine's, so with one registered every
 * entry is counted at that length.
 */
export function mcpFunctionEnvironmentProblems(mcpFunction: lambda.Function, tools: readonly McpToolProps[]): string[] {
  const toolCount = tools.length;
  const bounds: Readonly<Record<string, number>> = tools.some((tool) => tool.durableFunction !== undefined)
    ? { ...MCP_FUNCTION_TOKEN_BYTES, [MCP_HTTP_ENV.toolStateMachineArns]: MAX_QUALIFIED_FUNCTION_ARN_BYTES }
    : MCP_FUNCTION_TOKEN_BYTES;
  const bytes = environmentBytesUpperBound(mcpFunction, (name) => bounds[name] ?? MAX_TOKEN_BYTES);
  if (bytes <= LAMBDA_ENVIRONMENT_LIMIT_BYTES) return [];
  return [
    `The tool catalog may not fit the MCP function's environment (up to ${bytes} of ` +
      `${LAMBDA_ENVIRONMENT_LIMIT_BYTES} bytes with ${toolCount} tools): shorten ` +
      `descriptions and schemas, or split the tools across two endpoints`,
  ];
}
