// The production AWS clients. Its own module, loaded on first use by the MCP endpoint (see loaded-on-first-call.ts),
// so that importing the task core does not import the AWS SDK.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SFNClient } from '@aws-sdk/client-sfn';
import { AWS_CLIENT_BOUNDS } from './aws-call-bounds.js';

export interface BackendClients {
  readonly dynamoDb: DynamoDBClient;
  readonly stepFunctions: SFNClient;
  /** Lambda, for the durable functions engine. @default - none: durable executions cannot be started or read */
  readonly lambda?: LambdaClient;
}

export {
  AWS_CLIENT_BOUNDS,
  AWS_CONNECT_TIMEOUT_MS,
  AWS_MAX_ATTEMPTS,
  AWS_REQUEST_TIMEOUT_MS,
} from './aws-call-bounds.js';

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
