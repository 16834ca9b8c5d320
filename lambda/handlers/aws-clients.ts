// The production AWS clients. Its own module, loaded on first use by the MCP endpoint (see loaded-on-first-call.ts),
// so that importing the task core does not import the AWS SDK.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SFNClient } from '@aws-sdk/client-sfn';

export interface BackendClients {
  readonly dynamoDb: DynamoDBClient;
  readonly stepFunctions: SFNClient;
  /** Lambda, for the durable functions engine. @default - none: durable executions cannot be started or read */
  readonly lambda?: LambdaClient;
}

/**
 * Bounds on every AWS call. The SDK's defaults wait forever for a socket, and the Lambda sits behind API Gateway,
 * which gives up after 29 s: a hung DynamoDB or Step Functions call must fail fast enough for the function to
 * answer (and a plain call to stop its execution) within that. A connection inside a region takes milliseconds,
 * so 1 s means the endpoint is unreachable; 3 s covers a slow answer of any call made here (all single-item).
 */
export const AWS_CONNECT_TIMEOUT_MS = 1_000;
export const AWS_REQUEST_TIMEOUT_MS = 3_000;
/** The first try and two retries (the SDK default): with the bounds above a dead endpoint fails in about 10 s. */
export const AWS_MAX_ATTEMPTS = 3;

/** The client options every AWS client here shares: bounded connect, request and retries. */
export const AWS_CLIENT_BOUNDS = {
  maxAttempts: AWS_MAX_ATTEMPTS,
  // Without throwOnRequestTimeout the SDK only logs a warning when the request timeout passes and waits on.
  requestHandler: {
    connectionTimeout: AWS_CONNECT_TIMEOUT_MS,
    requestTimeout: AWS_REQUEST_TIMEOUT_MS,
    throwOnRequestTimeout: true,
  },
} as const;

/**
 * AWS clients as the SDK configures them from the environment (region, credentials, AWS_ENDPOINT_URL_* overrides), with
 * bounded calls.
 */
export function defaultClients(): BackendClients {
  return {
    dynamoDb: new DynamoDBClient({ ...AWS_CLIENT_BOUNDS }),
    stepFunctions: new SFNClient({ ...AWS_CLIENT_BOUNDS, ...stepFunctionsEndpointOverride() }),
    lambda: new LambdaClient({ ...AWS_CLIENT_BOUNDS }),
  };
}

/**
 * StartSyncExecution goes to the `sync-` host of Step Functions' endpoint (`sync-states.<region>.amazonaws.com`); an
 * endpoint set in the environment (AWS_ENDPOINT_URL_SFN: a stand-in such as the local emulator) has only the host it
 * names, so the SDK must not prefix it.
 */
function stepFunctionsEndpointOverride(): { readonly disableHostPrefix?: true } {
  const configured = process.env['AWS_ENDPOINT_URL_SFN'] ?? process.env['AWS_ENDPOINT_URL'];
  return configured ? { disableHostPrefix: true } : {};
}
