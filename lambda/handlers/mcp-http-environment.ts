// Settings only the deployed MCP handler reads: the open-endpoint owner, CORS origins and the OAuth proxy's tokens.
// The CDK construct writes these variables; their names are in lambda/contract, which both sides share.
import { MCP_HTTP_ENV, OAUTH_ENV } from '../contract/environment-names.js';

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
