// Defaults of McpTaskEndpoint, in one place; props override them.
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import * as logs from 'aws-cdk-lib/aws-logs';

export const DEFAULT_REMOVAL_POLICY = RemovalPolicy.RETAIN;
export const DEFAULT_STAGE_NAME = 'prod';
export const DEFAULT_THROTTLING_RATE_LIMIT = 50;
export const DEFAULT_THROTTLING_BURST_LIMIT = 100;
export const DEFAULT_RESULT_WAIT = Duration.seconds(50);
/** API Gateway drops a regional response stream after 5 minutes without a byte; leave room to answer. */
export const MAX_RESULT_WAIT = Duration.seconds(270);
/** Beyond the longest wait: the function must still answer after a blocking call gives up. */
export const FUNCTION_TIMEOUT_MARGIN = Duration.seconds(30);
export const DEFAULT_MCP_FUNCTION_MEMORY_SIZE = 512;
/**
 * Least time between two DescribeExecution calls for one active task on a poll. EventBridge pushes every status
 * change, so this only catches a missed event, and a steady-state tasks/get stays one DynamoDB read.
 */
export const REFRESH_INTERVAL = Duration.seconds(60);
export const DEFAULT_LOG_RETENTION = logs.RetentionDays.ONE_MONTH;
export const DEFAULT_RESOURCE_SERVER_IDENTIFIER = 'mcp-tasks';
/** The one scope of the resource server; the authorizer requires it, so only tokens minted for this API pass. */
export const OAUTH_SCOPE_NAME = 'invoke';
/** MCP Inspector's OAuth redirect URIs (normal and debug flow). */
export const DEFAULT_OAUTH_CALLBACK_URLS: readonly string[] = [
  'http://localhost:6274/oauth/callback',
  'http://localhost:6274/oauth/callback/debug',
];
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
/** One sweep run at most; it starts no task in its last 15 s (lambda/handlers/expiry-sweep.ts). */
export const EXPIRY_SWEEP_FUNCTION_TIMEOUT = Duration.minutes(1);

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
