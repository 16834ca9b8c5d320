// The public API of McpTaskEndpoint: its props and the shape of a tool registration.
import type { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import type * as cognito from 'aws-cdk-lib/aws-cognito';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { JsonSchema, TaskSupport } from '../../lambda/contract/tool-definition.js';

/** What a tool registers as its durable function: a version, an alias, or a qualified ARN. */
export type DurableFunctionRef = lambda.IVersion | lambda.IAlias | string;

/**
 * One MCP tool: the workflow that runs it (a state machine or a Lambda durable function: exactly one), and what
 * `tools/list` tells clients about it.
 */
export interface McpToolProps {
  /** MCP tool name: 1-128 characters of `A-Za-z0-9_-.`, unique within the endpoint. */
  readonly name: string;
  /** Human-friendly name. @default - none */
  readonly title?: string;
  readonly description: string;
  /** JSON Schema of the arguments; must have `"type": "object"`. Arguments are validated against it before a start. */
  readonly inputSchema: JsonSchema;
  /**
   * A state machine: one made in this app, or an existing one (`sfn.StateMachine.fromStateMachineArn`, or its ARN,
   * `arn:aws:states:<region>:<account>:stateMachine:<name>`, unqualified). A STANDARD machine runs the tool's tasks
   * itself. For an EXPRESS machine the endpoint adds a STANDARD wrapper that runs it for tasks
   * (`states:startExecution.sync:2`), while a plain call runs the EXPRESS machine directly (StartSyncExecution, at
   * most 5 minutes); an EXPRESS machine cannot wait for a task token, so one with an ask step is refused.
   */
  readonly stateMachine?: sfn.IStateMachine | string;
  /**
   * A Lambda durable function, as a version (`fn.currentVersion`, `fn.latestVersion`), an alias (`fn.addAlias('live')`)
   * or a qualified ARN: Lambda starts durable executions only of a qualified function. Each task is one durable
   * execution (an asynchronous Invoke named after the task); its return value is the tool result, as a state machine's
   * output is. A function made in this app must be durable (`durableConfig`, which can only be set at creation).
   */
  readonly durableFunction?: DurableFunctionRef;
  /**
   * The type of a `stateMachine` not made in this app (an ARN, or `fromStateMachineArn`), which synth cannot read. For
   * a machine made in this app the type is read from the machine; when given, it must match.
   * @default sfn.StateMachineType.STANDARD
   */
  readonly stateMachineType?: sfn.StateMachineType;
  /**
   * Advertised as MCP's `execution.taskSupport`: whether a client may (`optional`), must (`required`) or must not
   * (`forbidden`) call the tool as a task.
   * @default 'optional'
   */
  readonly taskSupport?: TaskSupport;
}

export interface McpTaskEndpointProps {
  /** Tools registered at construction; `addTool` adds more. @default - none */
  readonly tools?: readonly McpToolProps[];

  /**
   * What happens to the task table, the user pool, the OAuth proxy's table and secrets, and the log groups when
   * they leave the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Customer managed KMS key for the task table and the OAuth proxy's table.
   * @default - the AWS managed key for DynamoDB
   */
  readonly tableEncryptionKey?: kms.IKey;

  /**
   * Serve MCP without authentication; every request then belongs to one fixed owner. Anyone who finds the URL can
   * start your state machines, so synth warns. Not combinable with the user pool and OAuth props.
   * @default false
   */
  readonly openEndpoint?: boolean;
  /** An existing user pool to authorize against. Not with `userPoolProps`. @default - a new user pool */
  readonly existingUserPoolObj?: cognito.IUserPool;
  /**
   * Overrides for the user pool this construct creates. Not with `existingUserPoolObj`.
   * @default - see mcp-task-endpoint-defaults.ts
   */
  readonly userPoolProps?: cognito.UserPoolProps;
  /**
   * Prefix of the Cognito hosted domain (`<prefix>.auth.<region>.amazoncognito.com`) that serves the OAuth
   * endpoints and the sign-in page. Required to get tokens from an existing user pool that has no domain yet, and
   * with an existing user pool while the OAuth proxy is on (it signs people in on that domain).
   * @default - for a new pool, derived from the construct path and the account ID; for an existing pool, none
   */
  readonly cognitoDomainPrefix?: string;
  /**
   * Identifier of the OAuth resource server; the scope clients request is `<identifier>/invoke`. Resource server
   * identifiers are unique per user pool: when several endpoints share one `existingUserPoolObj`, give each its own
   * identifier (the second deploy with the same one fails, and a shared scope would let one endpoint's tokens call
   * the other).
   * @default 'mcp-tasks'
   */
  readonly resourceServerIdentifier?: string;
  /**
   * Redirect URIs of the interactive (authorization code + PKCE) Cognito client that MCP clients use directly. Only
   * with `oauthProxy: false`: the proxy has no such client (see `allowedRedirectUris`).
   * @default - MCP Inspector's callbacks on localhost:6274
   */
  readonly oauthCallbackUrls?: readonly string[];
  /**
   * Also create a confidential client for machine-to-machine use (client credentials grant). Its Cognito access
   * tokens are accepted in both modes (with the proxy on, the MCP function checks them itself).
   * @default false
   */
  readonly machineClient?: boolean;

  /**
   * Make the endpoint its own OAuth 2.1 authorization server in front of the user pool (an "OAuth proxy", see
   * lib/auth/oauth-proxy.ts): it publishes RFC 8414 metadata with PKCE, registers clients (Dynamic Client Registration,
   * Client ID Metadata Documents), signs people in through the user pool's hosted login, and issues its own tokens
   * for the MCP URL, which the MCP function checks. That is what claude.ai, ChatGPT, Cursor and VS Code need to
   * connect by OAuth; Cognito alone publishes no registration endpoint and no PKCE support. `false` keeps API
   * Gateway's Cognito authorizer on /mcp and names the user pool as the authorization server, for a team that hands
   * out Cognito tokens itself. Only with authentication on (not with `openEndpoint`).
   * @default true
   */
  readonly oauthProxy?: boolean;
  /**
   * With the OAuth proxy: accept a `client_id` that is the HTTPS URL of a Client ID Metadata Document (the client
   * describes itself there, as claude.ai and VS Code do), fetched when the client first comes.
   * @default true
   */
  readonly clientIdMetadataDocuments?: boolean;
  /**
   * With the OAuth proxy: serve `/register` (RFC 7591 Dynamic Client Registration), limited by
   * `registrationsPerSourcePerHour` and `registrationsPerDay`. Clients registered earlier keep working when it is
   * turned off.
   * @default true
   */
  readonly dynamicClientRegistration?: boolean;
  /**
   * With the OAuth proxy: the redirect URIs a client may register or list in its metadata document. Each entry is
   * an absolute URI (matched exactly), a URI ending in `*` (matched as a prefix), or `'loopback'`
   * (`http://127.0.0.1`, `http://[::1]` and `http://localhost` on any port and path, for desktop clients). No
   * fragments, and plain http only on loopback. Add a client's hosted callback here to let it connect.
   * @default - loopback, and the callbacks of claude.ai, ChatGPT, VS Code for the Web and Cursor
   *   (DEFAULT_ALLOWED_REDIRECT_URIS in lambda/contract/redirect-uri-policy.ts)
   */
  readonly allowedRedirectUris?: readonly string[];
  /**
   * With the OAuth proxy and Dynamic Client Registration: registrations one source address may make per hour.
   * @default 10
   */
  readonly registrationsPerSourcePerHour?: number;
  /**
   * With the OAuth proxy and Dynamic Client Registration: registrations the endpoint accepts per day from everyone
   * together; each is one small DynamoDB item, kept while the client is in use.
   * @default 1000
   */
  readonly registrationsPerDay?: number;

  /** @default 'prod' */
  readonly stageName?: string;
  /**
   * Steady-state requests per second the stage accepts, MCP and OAuth together: one bucket for every caller. The
   * default is sized to Step Functions' DescribeExecution rate in the large Regions (see docs/deploy.md, Capacity);
   * raise it together with that quota, `mcpFunctionReservedConcurrency` and a per-client limit (`webAclArn`).
   * @default 100
   */
  readonly throttlingRateLimit?: number;
  /** Burst of requests the stage accepts. @default 200 */
  readonly throttlingBurstLimit?: number;
  /** Browser origins allowed to call the endpoint (CORS). @default - no CORS */
  readonly corsAllowOrigins?: readonly string[];
  /**
   * Execution logging of the stage; needs the account-wide API Gateway CloudWatch role.
   * @default - off (access logs are always on)
   */
  readonly executionLoggingLevel?: apigw.MethodLoggingLevel;
  /**
   * Create the API Gateway CloudWatch Logs role and make it the account's (`AWS::ApiGateway::Account`). API Gateway
   * writes access logs (always on here) and execution logs only through that role, and a stage with logging fails
   * to deploy in a region whose account setting names none. This is an **account-wide, per-region setting**, not a
   * resource of this endpoint: it replaces any role already set, and the role is retained when the stack is
   * deleted, because other APIs in the account keep relying on it. Leave it off when the account already has the
   * role (see docs/deploy.md, Prerequisites) or when another stack owns the setting.
   * @default false
   */
  readonly createApiGatewayAccountRole?: boolean;
  /**
   * A regional AWS WAF web ACL to associate with the stage. Stage throttling is one bucket shared by every caller;
   * a rate-based rule in this web ACL is the per-client limit (see docs/deploy.md, Limit each client).
   * @default - none
   */
  readonly webAclArn?: string;

  /**
   * How long a blocking `tasks/result` waits within one request before it asks the client to call again. Nothing is
   * written while it waits, and API Gateway closes a regional stream after 5 idle minutes, so at most 4 min 30 s.
   * @default Duration.seconds(50) (below the MCP TypeScript SDK's 60-second default request timeout)
   */
  readonly resultWait?: Duration;
  /**
   * How long a plain `tools/call` (from a client that did not ask for a task) waits for its result before it is
   * handed off as a task; also how long the `task_result` status tool waits. At most `resultWait`.
   * @default Duration.seconds(25)
   */
  readonly plainCallWait?: Duration;
  /**
   * Whether a plain call whose wait ends first is handed off as a task (a handle, its execution going on, followed with
   * the status tools), rather than stopped with a tool error.
   * @default true
   */
  readonly handOffPlainCalls?: boolean;
  /** Memory of the MCP function. @default 512 */
  readonly mcpFunctionMemorySize?: number;
  /**
   * Reserved concurrency of the MCP function: both a guaranteed share and a ceiling, so the endpoint cannot take the
   * concurrency the account's other functions need. Every request holds one instance for its duration, and a
   * blocking `tasks/result` holds it for up to `resultWait`, so serving the full stage rate takes about
   * `throttlingRateLimit × resultWait` (100/s × 50 s = 5,000 with the defaults, beyond the default account quota of
   * 1,000). Pick what the account can spare (Lambda keeps at least 100 unreserved): requests beyond it are
   * throttled instead of starving other functions. The webhook delivery function, which waits on receivers the
   * endpoint does not control, is capped separately (`webhookDeliveryMaxConcurrency`), so slow receivers cannot take
   * this share either way.
   * @default - none: the function draws on the account's unreserved concurrency
   */
  readonly mcpFunctionReservedConcurrency?: number;
  /**
   * How often the expiry sweep runs. A task whose retention ends while it is still active can no longer be read,
   * cancelled or deleted, so the sweep stops its execution; it does so within this rate plus one minute (the sweep
   * function's timeout). Whole minutes, from 1 minute to 1 day.
   * @default Duration.minutes(5)
   */
  readonly expirySweepRate?: Duration;
  /**
   * The Step Functions calls a second, on average, that the reconciler may make across the deployment. Polls and waits
   * read only the task table, which the status events keep current; the reconciler is the safety net for an event
   * EventBridge lost, describing each active task's execution a minute after its creation, then after pauses of half
   * its age (up to an hour), as far as this budget goes (most overdue first). Spent from `DescribeExecution`'s and
   * `GetExecutionHistory`'s account-wide refill (15 and 20 a second in us-east-1).
   * @default 2
   */
  readonly reconcilerCallsPerSecond?: number;
  /**
   * The most active tasks (submitted, working, input_required) one owner may hold at once, plain calls included; a
   * create beyond it is refused with JSON-RPC -32000 and retry data. At most 5,000 (the owner's active tasks are
   * tracked in one DynamoDB item).
   * @default 100
   */
  readonly maxActiveTasksPerOwner?: number;
  /**
   * The most tasks one owner may create per clock minute, plain calls included: bounds how fast one caller can start
   * executions (and spend on them), whatever API Gateway's stage throttling lets through.
   * @default 60
   */
  readonly maxTaskCreationsPerMinute?: number;
  /**
   * Deliver task events to webhooks (MCP Events' `events/subscribe` with a callback URL): an SQS FIFO queue of
   * deliveries (one message group per subscription and task, so a receiver gets each task's events in order), the
   * function that POSTs them (signed as Standard Webhooks), their dead-letter queue, and the Secrets Manager key that
   * seals subscription secrets at rest. `false` leaves all four out and `events/subscribe` answers Unsupported; the
   * task event log (`events/poll`, `events/stream`), its table and the function that fills it stay either way.
   * @default true
   */
  readonly webhooks?: boolean;
  /**
   * Webhook callback origins trusted as they are: a subscription to a URL on one of them skips the verification
   * handshake and the private-address guard, so list only receivers you run. Each is an origin,
   * `https://host[:port]` in lowercase with no path and no default port (`https://hooks.example.com`); plain http is
   * refused. Only with webhooks on.
   * @default - none: every callback URL is verified before events are sent to it
   */
  readonly trustedCallbackOrigins?: readonly string[];
  /**
   * The most webhook delivery function instances running at once: the maximum concurrency of its SQS event source
   * mapping, so deliveries beyond it wait in the queue (in order, none lost or retried for it) instead of taking the
   * account's Lambda concurrency from the MCP function while receivers are slow. 2 to 1,000. Only with webhooks on.
   * @default 50
   */
  readonly webhookDeliveryMaxConcurrency?: number;
  /**
   * Batches of each task table stream shard the event function works on at once (the stream mapping's parallelization
   * factor), 1 to 10. Lambda keeps each table item's changes in order at any factor, and a task is one item, so each
   * task's events keep their order; only events of different tasks may be appended and queued side by side. Raise it
   * when the stream function's iterator age grows; each step adds up to one function instance per shard.
   * @default 4
   */
  readonly taskEventStreamParallelizationFactor?: number;
  /** Active X-Ray tracing on the functions and the stage. @default false */
  readonly tracing?: boolean;
  /** A CloudWatch dashboard of the endpoint: API, functions, tasks per tool, throttles, dead letters. @default true */
  readonly dashboard?: boolean;
  /**
   * The topic every alarm of the endpoint notifies, on alarm and on recovery (see `operations`).
   * @default - the alarms exist without actions; add yours with `addAlarmAction`
   */
  readonly alarmTopic?: sns.ITopic;
  /** Retention of the functions' and the access log groups. @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
}
