// Settings only the deployed MCP handler reads: the packed tool catalog, the open-endpoint owner and CORS origins.
// The CDK construct writes these variables; their names and the packing are in lambda/contract, which both sides share.
import { ENV, MCP_HTTP_ENV, OAUTH_ENV } from '../contract/environment-names.js';
import { unpackToolCatalog } from '../contract/packed-tool-catalog.js';

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
