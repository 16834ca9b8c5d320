// Where the OAuth proxy's endpoints are, relative to its issuer: one list for the proxy that serves them, the MCP
// function whose 401 points at the metadata, the local stack, and the CDK construct that routes them. Dependency-free,
// so the MCP function's bundle and the construct import nothing else of the proxy.
export const OAUTH_PATHS = {
  authorizationServerMetadata: '/.well-known/oauth-authorization-server',
  openIdConfiguration: '/.well-known/openid-configuration',
  protectedResourceMetadata: '/.well-known/oauth-protected-resource',
  jwks: '/jwks',
  authorize: '/authorize',
  /** Where the upstream provider sends the person back to. */
  callback: '/oauth/callback',
  token: '/token',
  register: '/register',
} as const;
