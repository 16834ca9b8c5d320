// The bounds every AWS call here is held to, in a module of their own: the short GetItem path (lean-get-item.ts) holds
// its requests to them too, and the declared catalog's read takes that path without loading the AWS SDK's clients.

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
