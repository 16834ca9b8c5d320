// The environment variables of the OAuth proxy function and of the MCP function that checks the proxy's tokens: one
// list, read by the CDK construct that sets them and by the composition roots that read them.
export const OAUTH_ENV = {
  /** The authorization server's issuer: the API's base URL, `https://<api>.execute-api.<region>.amazonaws.com/<stage>`. */
  issuer: 'OAUTH_ISSUER',
  /** The MCP URL: the one resource (RFC 8707) tokens are minted for and the MCP function accepts. */
  resource: 'OAUTH_RESOURCE',
  /** The proxy's table: registrations, pending authorizations, codes, refresh tokens, registration counters. */
  tableName: 'OAUTH_TABLE_NAME',
  /** Secrets Manager ARN of the access-token signing key (read at run time; never in the environment itself). */
  signingKeySecretArn: 'OAUTH_SIGNING_KEY_SECRET_ARN',
  /** The upstream OpenID provider (the Cognito user pool's issuer URL). */
  upstreamIssuer: 'OAUTH_UPSTREAM_ISSUER',
  /** The one confidential app client the proxy signs people in with. */
  upstreamClientId: 'OAUTH_UPSTREAM_CLIENT_ID',
  /** Secrets Manager ARN of that client's secret; only the proxy function may read it. */
  upstreamClientSecretArn: 'OAUTH_UPSTREAM_CLIENT_SECRET_ARN',
  /** JSON array of redirect URI patterns clients may use (see redirect-uri-policy.ts). */
  allowedRedirectUris: 'OAUTH_ALLOWED_REDIRECT_URIS',
  /** 'false' turns Client ID Metadata Documents off. */
  clientIdMetadataDocuments: 'OAUTH_CLIENT_ID_METADATA_DOCUMENTS',
  /** 'false' turns Dynamic Client Registration off. */
  dynamicClientRegistration: 'OAUTH_DYNAMIC_CLIENT_REGISTRATION',
  /** Registrations one source address may make per hour. */
  registrationsPerSourcePerHour: 'OAUTH_REGISTRATIONS_PER_SOURCE_PER_HOUR',
  /** Registrations the endpoint accepts per day from everyone together. */
  registrationsPerDay: 'OAUTH_REGISTRATIONS_PER_DAY',
  /** With a machine client: the MCP function also accepts Cognito access tokens of this user pool... */
  machineUserPoolId: 'OAUTH_MACHINE_USER_POOL_ID',
  /** ...issued to this client (client credentials grant)... */
  machineClientId: 'OAUTH_MACHINE_CLIENT_ID',
  /** ...carrying this scope. */
  machineScope: 'OAUTH_MACHINE_SCOPE',
} as const;
