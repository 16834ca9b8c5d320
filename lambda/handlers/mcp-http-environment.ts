// Settings only the deployed MCP handler reads: the packed tool catalog, the open-endpoint owner and CORS origins.
// The CDK construct writes these variables with the same names and the same packing, so both sides share this file.
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import { OAUTH_ENV } from '../oauth/oauth-environment.js';
import type { ToolDefinition } from '../tools/tool-definition.js';
import { ENV } from './environment.js';

export const MCP_HTTP_ENV = {
  /**
   * The tools without their state machines: base64 of Brotli-compressed JSON. Lambda allows 4 KB of environment
   * in total, and names, descriptions and schemas compress to about half.
   */
  packedToolCatalog: 'TOOL_CATALOG_PACKED',
  /** The tools' state machine ARNs, comma-separated, in catalog order; CloudFormation fills them in at deploy time. */
  toolStateMachineArns: 'TOOL_STATE_MACHINE_ARNS',
  /** Set only when the endpoint is deliberately open: every request then belongs to this one owner. */
  openEndpointOwner: 'OPEN_ENDPOINT_OWNER',
  /** Comma-separated browser origins allowed to read responses; unset means no CORS headers. */
  corsAllowOrigins: 'CORS_ALLOW_ORIGINS',
} as const;

/** A tool as it is packed: everything but the state machine, which only CloudFormation knows. */
export type ToolDescription = Omit<ToolDefinition, 'stateMachineArn'>;

export function packToolCatalog(tools: readonly ToolDescription[]): string {
  const json = Buffer.from(JSON.stringify(tools), 'utf8');
  return brotliCompressSync(json, {
    params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY },
  }).toString('base64');
}

export function unpackToolCatalog(packed: string, stateMachineArns: string): ToolDefinition[] {
  const tools = JSON.parse(brotliDecompressSync(Buffer.from(packed, 'base64')).toString('utf8')) as ToolDescription[];
  const arns = stateMachineArns === '' ? [] : stateMachineArns.split(',');
  if (arns.length !== tools.length)
    throw new Error(`${MCP_HTTP_ENV.toolStateMachineArns} lists ${arns.length} ARNs for ${tools.length} tools`);
  return tools.map((tool, index) => ({ ...tool, stateMachineArn: arns[index]! }));
}

/**
 * The environment with `TOOL_CATALOG` filled in from the packed form when the deployment uses it, so that
 * `configFromEnvironment` reads one catalog whichever way it arrived. A plain `TOOL_CATALOG` wins.
 */
export function withUnpackedToolCatalog(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const packed = env[MCP_HTTP_ENV.packedToolCatalog];
  if (env[ENV.toolCatalog] !== undefined || packed === undefined) return env;
  return {
    ...env,
    [ENV.toolCatalog]: JSON.stringify(unpackToolCatalog(packed, env[MCP_HTTP_ENV.toolStateMachineArns] ?? '')),
  };
}

export interface McpHttpOptions {
  /** The owner of every request when the endpoint is deliberately open; `null` when auth is on. */
  readonly openEndpointOwner: string | null;
  readonly corsAllowOrigins: readonly string[];
  /**
   * Set when the endpoint is its own authorization server (the OAuth proxy): requests then carry the proxy's access
   * tokens (or a machine client's Cognito tokens), which the function checks itself.
   */
  readonly proxyTokens?: {
    readonly issuer: string;
    readonly resource: string;
    readonly signingKeySecretArn: string;
    readonly machine?: { readonly userPoolId: string; readonly clientId: string; readonly scope: string };
  };
}

export function mcpHttpOptionsFromEnvironment(env: NodeJS.ProcessEnv): McpHttpOptions {
  const owner = env[MCP_HTTP_ENV.openEndpointOwner];
  const origins = (env[MCP_HTTP_ENV.corsAllowOrigins] ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  const issuer = env[OAUTH_ENV.issuer];
  const resource = env[OAUTH_ENV.resource];
  const signingKeySecretArn = env[OAUTH_ENV.signingKeySecretArn];
  const [userPoolId, clientId, scope] = [
    OAUTH_ENV.machineUserPoolId,
    OAUTH_ENV.machineClientId,
    OAUTH_ENV.machineScope,
  ].map((name) => env[name]);
  return {
    openEndpointOwner: owner === undefined || owner === '' ? null : owner,
    corsAllowOrigins: origins,
    ...(issuer && resource && signingKeySecretArn
      ? {
          proxyTokens: {
            issuer,
            resource,
            signingKeySecretArn,
            ...(userPoolId && clientId && scope ? { machine: { userPoolId, clientId, scope } } : {}),
          },
        }
      : {}),
  };
}
