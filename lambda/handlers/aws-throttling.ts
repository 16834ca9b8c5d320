// AWS throttling as the task model's ServiceBusyError. A call an AWS service refused for load, after the SDK's own
// retries, is a definite answer the caller can act on (wait, then retry), not an internal fault: translated once,
// here, on every client the composition roots hand to the stores and the executor, so no adapter spells vendor error
// names and the protocol layer answers every one of them the same retryable way.
import type { InitializeMiddleware } from '@smithy/types';
import { ServiceBusyError } from '../core/errors.js';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { SFNClient } from '@aws-sdk/client-sfn';
import type { BackendClients } from './aws-clients.js';

/** Error names AWS services give a throttled call (DynamoDB, Step Functions, EC2-style and HTTP 429). */
export const THROTTLING_ERROR_NAMES: ReadonlySet<string> = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'TooManyRequests',
]);

/**
 * How long a refused caller is told to wait. The SDK has already backed off through its retries, and both services
 * refill their token buckets every second, so a second is the soonest a retry can find room.
 */
export const THROTTLED_RETRY_AFTER_SECONDS = 1;

/** Whether `error` is an AWS service's refusal for load. */
export function isThrottling(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { $metadata, $retryable } = error as { $metadata?: { httpStatusCode?: number }; $retryable?: unknown };
  return (
    THROTTLING_ERROR_NAMES.has(error.name) ||
    $metadata?.httpStatusCode === 429 ||
    ($retryable as { throttling?: boolean } | undefined)?.throttling === true
  );
}

/**
 * Installs the translation on every client: outermost (initialize step, high priority), so it sees what is left once
 * the retries are spent. Adding it again replaces it (override), so clients shared by several parts translate once.
 */
export function busyWhenThrottled(clients: BackendClients): BackendClients {
  translateThrottles(clients.dynamoDb, 'DynamoDB');
  translateThrottles(clients.stepFunctions, 'Step Functions');
  if (clients.lambda !== undefined) translateThrottles(clients.lambda, 'Lambda');
  return clients;
}

/** The same translation on one client (the OAuth proxy has only its table's). */
export function translateThrottles(client: DynamoDBClient | SFNClient | LambdaClient, service: string): void {
  (client as DynamoDBClient).middlewareStack.add(translator(service), TRANSLATOR);
}

const TRANSLATOR = { step: 'initialize', priority: 'high', name: 'busyWhenThrottled', override: true } as const;

function translator<Input extends object, Output extends object>(service: string): InitializeMiddleware<Input, Output> {
  return (next, context) => async (args) => {
    try {
      return await next(args);
    } catch (error) {
      if (!isThrottling(error)) throw error;
      throw new ServiceBusyError(service, operationName(context.commandName), THROTTLED_RETRY_AFTER_SECONDS, {
        cause: error,
      });
    }
  };
}

/**
 * `DescribeExecutionCommand` → `DescribeExecution`: the API name, as CloudWatch and IAM spell it. The document client's
 * commands (`GetCommand`) reach the DynamoDB client's stack as the command they wrap (`GetItemCommand`), so DynamoDB
 * calls are named by their API names too (`GetItem`), whichever client the store sends them with.
 */
export function operationName(commandName: string | undefined): string {
  return (commandName ?? 'Unknown').replace(/Command$/, '');
}
