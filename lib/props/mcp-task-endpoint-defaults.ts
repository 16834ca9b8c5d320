// Defaults of McpTaskEndpoint, in one place; props override them.
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import * as logs from 'aws-cdk-lib/aws-logs';
import { DEFAULT_ALLOWED_REDIRECT_URIS } from '../../lambda/contract/redirect-uri-policy.js';

export const DEFAULT_REMOVAL_POLICY = RemovalPolicy.RETAIN;
export const DEFAULT_STAGE_NAME = 'prod';
/**
 * Requests per second the stage accepts: where the poll path meets Step Functions' DescribeExecution refill (15 a
 * second in the large Regions) for tasks of five to ten minutes polled as hinted, each costing one describe on its
 * first poll and one per refresh interval after (see docs/deploy.md, Capacity). Shorter tasks reach it later, longer
 * ones sooner; past it polls still answer from the table, which status events keep current.
 */
export const DEFAULT_THROTTLING_RATE_LIMIT = 100;
/** Two seconds of the rate: a burst of clients polling on the same tick. */
export const DEFAULT_THROTTLING_BURST_LIMIT = 200;
export const DEFAULT_RESULT_WAIT = Duration.seconds(50);
/** API Gateway drops a regional response stream after 5 minutes without a byte; leave room to answer. */
export const MAX_RESULT_WAIT = Duration.seconds(270);
/** Beyond the longest wait: the function must still answer after a blocking call gives up. */
export const FUNCTION_TIMEOUT_MARGIN = Duration.seconds(30);
export const DEFAULT_MCP_FUNCTION_MEMORY_SIZE = 512;
export const DEFAULT_LOG_RETENTION = logs.RetentionDays.ONE_MONTH;
export const DEFAULT_RESOURCE_SERVER_IDENTIFIER = 'mcp-tasks';
/** The one scope of the resource server; the authorizer requires it, so only tokens minted for this API pass. */
export const OAUTH_SCOPE_NAME = 'invoke';
/** MCP Inspector's OAuth redirect URIs (normal and debug flow). */
export const DEFAULT_OAUTH_CALLBACK_URLS: readonly string[] = [
  'http://localhost:6274/oauth/callback',
  'http://localhost:6274/oauth/callback/debug',
];

/** The endpoint is its own OAuth authorization server in front of the user pool (see lib/auth/oauth-proxy.ts). */
export const DEFAULT_OAUTH_PROXY = true;
/** Clients may name themselves by the URL of their Client ID Metadata Document (claude.ai, VS Code). */
export const DEFAULT_CLIENT_ID_METADATA_DOCUMENTS = true;
/** Clients may register themselves (RFC 7591 Dynamic Client Registration). */
export const DEFAULT_DYNAMIC_CLIENT_REGISTRATION = true;
/** Loopback on any port, and the hosted callbacks of claude.ai, ChatGPT, VS Code for the Web and Cursor. */
export { DEFAULT_ALLOWED_REDIRECT_URIS };
/** Dynamic client registrations one source address may make per hour. */
export const DEFAULT_REGISTRATIONS_PER_SOURCE_PER_HOUR = 10;
/** Dynamic client registrations the endpoint accepts per day, from everyone together. */
export const DEFAULT_REGISTRATIONS_PER_DAY = 1000;
/**
 * How long the proxy may keep asking the user pool whether a person still may sign in: its refresh tokens are bound
 * to the upstream one, so a person is signed in again after this at the latest.
 */
export const OAUTH_PROXY_UPSTREAM_REFRESH_TOKEN_VALIDITY = Duration.days(30);
/** Characters of the generated access-token signing key: letters and digits, about 380 bits. */
export const OAUTH_SIGNING_KEY_LENGTH = 64;

/** The owner of every task when the endpoint is deliberately open. */
export const OPEN_ENDPOINT_OWNER = 'anonymous';

/** Status-push retries: EventBridge to Lambda, then Lambda's own asynchronous retries, before the dead-letter queue. */
export const STATUS_EVENT_TARGET_RETRY_ATTEMPTS = 8;
export const STATUS_EVENT_MAX_AGE = Duration.hours(2);
export const STATUS_FUNCTION_RETRY_ATTEMPTS = 2;

/**
 * How often the expiry sweep runs: a task that expires unread has its execution stopped within this plus its timeout.
 */
export const DEFAULT_EXPIRY_SWEEP_RATE = Duration.minutes(5);
/** The reconciler's budget: a small share of DescribeExecution's refill (15 a second in us-east-1). */
export const DEFAULT_RECONCILER_CALLS_PER_SECOND = 2;
/** One sweep run at most; it starts no task in its last 15 s (lambda/handlers/expiry-sweep.ts). */
export const EXPIRY_SWEEP_FUNCTION_TIMEOUT = Duration.minutes(1);

/** Task events are delivered to webhooks too: the delivery queue, its function and the sealing key are deployed. */
export const DEFAULT_WEBHOOKS = true;
/** Task table stream records the event projector takes per invocation. */
export const TASK_EVENT_STREAM_BATCH_SIZE = 100;
/**
 * Batches of one stream shard worked at once. Lambda keeps the order of each item's changes at any factor, and a
 * task is one item of the task table (its partition key, no sort key), so every task's events keep their order; four
 * lets one shard carry about four times the events, for at most four instances per shard.
 */
export const DEFAULT_TASK_EVENT_STREAM_PARALLELIZATION_FACTOR = 4;
/** Lambda's range for a stream mapping's parallelization factor. */
export const MAX_TASK_EVENT_STREAM_PARALLELIZATION_FACTOR = 10;
/**
 * Retries of a stream batch that fails (split in two each time, so one bad record ends up alone) before its records'
 * position goes to the on-failure queue. Appends are idempotent per stream record, so a retry repeats no event.
 */
export const TASK_EVENT_STREAM_RETRY_ATTEMPTS = 10;
/**
 * A stream record this old is given up on: as long as DynamoDB keeps it (24 hours), so only a stuck stream loses one.
 */
export const TASK_EVENT_STREAM_MAX_RECORD_AGE = Duration.hours(24);
/** One stream batch at most: a hundred records, each an append and a few queued deliveries. */
export const TASK_EVENT_STREAM_FUNCTION_TIMEOUT = Duration.minutes(1);
/**
 * One delivery per invocation. On FIFO, the messages held back behind one being retried are received again with it,
 * and each receive counts toward the queue's maxReceiveCount: one at a time, a delivery is received only for its own
 * attempts. Message groups (one subscription, one task) still run in parallel, each in its own invocation.
 */
export const WEBHOOK_DELIVERY_BATCH_SIZE = 1;
/**
 * Delivery function instances the queue's event source mapping runs at once. A receiver that answers slowly holds an
 * instance for up to its 5 s timeout (10 s with a first verification), so fifty serve at least five deliveries a
 * second to receivers that all time out, and hundreds to prompt ones, while the rest of the account's concurrency
 * stays free for the MCP function.
 */
export const DEFAULT_WEBHOOK_DELIVERY_MAX_CONCURRENCY = 50;
/** Lambda's range for an SQS event source mapping's maximum concurrency. */
export const WEBHOOK_DELIVERY_MAX_CONCURRENCY_RANGE = { min: 2, max: 1000 } as const;
/** One delivery at most: its POST gives up after 5 s, and a first one to an unverified URL makes two. */
export const WEBHOOK_DELIVERY_FUNCTION_TIMEOUT = Duration.minutes(1);
/**
 * How long a received delivery stays hidden: six times the function's timeout (what Lambda advises for an SQS event
 * source). A retry sets its own, shorter wait with ChangeMessageVisibility.
 */
export const WEBHOOK_DELIVERY_VISIBILITY_TIMEOUT = Duration.minutes(6);
/**
 * Receives of one delivery before SQS moves it to the dead-letter queue: the runtime's 5 attempts at the receiver and
 * 5 more. A receive the function fails on (the subscription store unreadable, a crash, a timeout) costs the receiver
 * no attempt, so this is what bounds those: only a delivery failing on the server's side ends up there.
 */
export const WEBHOOK_DELIVERY_MAX_RECEIVE_COUNT = 10;
/**
 * Characters of the generated webhook sealing key: letters and digits, about 380 bits. The runtime derives the
 * AES-256 key as sha256 of this string (see lib/events/task-events.ts).
 */
export const WEBHOOK_SEALING_KEY_LENGTH = 64;

/** A user pool for people and machines that call MCP tools: no self sign-up, strong passwords, TOTP required. */
export function defaultUserPoolProps(removalPolicy: RemovalPolicy): cognito.UserPoolProps {
  return {
    selfSignUpEnabled: false,
    signInAliases: { email: true },
    autoVerify: { email: true },
    passwordPolicy: {
      minLength: 12,
      requireLowercase: true,
      requireUppercase: true,
      requireDigits: true,
      requireSymbols: true,
    },
    mfa: cognito.Mfa.REQUIRED,
    mfaSecondFactor: { otp: true, sms: false },
    accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
    removalPolicy,
  };
}

/**
 * The longest run of an EXPRESS tool's STANDARD wrapper: the EXPRESS machine's own cap (5 minutes), plus the start of
 * the child and the wait for its end (`.sync:2` learns it through EventBridge).
 */
export const EXPRESS_WRAPPER_TIMEOUT = Duration.minutes(10);

/**
 * How often the tool catalog refresher reads the account when nothing told it of a change: the longest a machine
 * change waits to show when its CloudTrail event is lost or there is no trail to deliver it.
 */
export const DEFAULT_DISCOVERY_REFRESH_RATE = Duration.minutes(5);
/** One refresh lists the account and reads a few calls per selected machine, four at a time; a minute is ample. */
export const DISCOVERY_REFRESH_FUNCTION_TIMEOUT = Duration.minutes(1);

/** What synth warns of an endpoint with `openEndpoint: true`. */
export const OPEN_ENDPOINT_WARNING =
  'openEndpoint is true: the MCP endpoint has no authentication, so anyone with its URL can start your state ' +
  'machines and read every task.';
