// The names of the environment variables the CDK construct sets and the functions read: one list per reader, the
// only place each name is written. The values are read where the function is composed (handlers/environment.ts,
// handlers/mcp-http-environment.ts, handlers/oauth-proxy-core.ts); this file holds the names alone.

/** Every function that serves or updates tasks: the task table and the task service's settings. */
export const ENV = {
  tableName: 'TASK_TABLE_NAME',
  /**
   * The MCP function's declared tool catalog: the key of its item in the task table (see declared-tool-catalog.ts),
   * read at an instance's first request. The tools themselves stay out of the environment, so their number is not
   * bounded by Lambda's 4 KB.
   */
  toolCatalogItem: 'TOOL_CATALOG_ITEM',
  pollIntervalMs: 'POLL_INTERVAL_MS',
  defaultTtlMs: 'DEFAULT_TTL_MS',
  maxTtlMs: 'MAX_TTL_MS',
  directCallTimeoutMs: 'DIRECT_CALL_TIMEOUT_MS',
  /** 'false' stops a plain call's execution when its wait ends, rather than handing the call off as a task. */
  handOffPlainCalls: 'HAND_OFF_PLAIN_CALLS',
  resultWaitMs: 'RESULT_WAIT_MS',
  maxActiveTasksPerOwner: 'MAX_ACTIVE_TASKS_PER_OWNER',
  maxTaskCreationsPerMinute: 'MAX_TASK_CREATIONS_PER_MINUTE',
  /** Comma-separated host names the Host and Origin headers may name; unset accepts any. */
  allowedHosts: 'ALLOWED_HOSTS',
  /**
   * The Secrets Manager secret holding the HMAC key of plain calls' SEP-2322 `requestState` (at least 32 bytes), read
   * at first use; unset: a random key per instance. Only its ARN is configuration: the key itself is a secret.
   */
  requestStateKeySecretArn: 'REQUEST_STATE_KEY_SECRET_ARN',
  /** 'true' serves the tools discovered among the account's state machines beside the declared ones; unset: none. */
  discoveredTools: 'DISCOVERED_TOOLS',
  /** The most expired tasks one expiry sweep run handles. */
  expirySweepMaxTasks: 'EXPIRY_SWEEP_MAX_TASKS',
  /** The most task executions one reconciler run (one a minute) checks: its budget of Step Functions calls. */
  reconcilerMaxChecks: 'RECONCILER_MAX_CHECKS',
  /** 'true' loads Powertools Tracer (see handlers/tracing.ts); Powertools' own variable, but here unset means off. */
  tracing: 'POWERTOOLS_TRACE_ENABLED',
} as const;

/** Only the deployed MCP function: the open-endpoint owner and CORS origins. */
export const MCP_HTTP_ENV = {
  /** Set only when the endpoint is deliberately open: every request then belongs to this one owner. */
  openEndpointOwner: 'OPEN_ENDPOINT_OWNER',
  /** Comma-separated browser origins allowed to read responses; unset means no CORS headers. */
  corsAllowOrigins: 'CORS_ALLOW_ORIGINS',
} as const;

/** The OAuth proxy function, and the MCP function when it checks the proxy's tokens. */
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

/** Task events and webhooks: the functions that record events, serve them and deliver them. */
export const EVENTS_ENV = {
  /** The events table: each task's event log and the webhook subscriptions. Unset turns task events off. */
  eventTableName: 'EVENT_TABLE_NAME',
  /** 'false' turns webhook subscriptions off (events/subscribe answers Unsupported); the event log stays. */
  webhooksEnabled: 'WEBHOOKS_ENABLED',
  /** The FIFO queue every webhook delivery goes through (SQS URL). */
  deliveryQueueUrl: 'WEBHOOK_DELIVERY_QUEUE_URL',
  /**
   * Secrets Manager ARN of the key that seals subscription secrets at rest (read at run time; never in the
   * environment itself).
   */
  sealingKeySecretArn: 'WEBHOOK_SEALING_KEY_SECRET_ARN',
  /**
   * Comma-separated callback origins (`https://hooks.example.com`) that need no verification handshake. An origin
   * listed here is trusted as it is: it may be http and on a private address.
   */
  trustedCallbackOrigins: 'WEBHOOK_TRUSTED_CALLBACK_ORIGINS',
} as const;

/** The tool catalog refresher: which machines become tools, and the names they may not take. */
export const DISCOVERY_ENV = {
  /** JSON of the DiscoverySelection (see discovery-selection.ts), as the construct was given it. */
  selection: 'DISCOVERY_SELECTION',
  /** JSON array of the tool names written in code (addTool): a discovered machine never takes one. */
  reservedToolNames: 'DISCOVERY_RESERVED_TOOL_NAMES',
} as const;
