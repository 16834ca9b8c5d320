// Throttling told apart from other AWS errors, and made a ServiceBusyError only once the client's retries are spent.
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetDurableExecutionCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { SFNClient } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { ServiceBusyError } from '../../../lambda/core/errors.js';
import { busyWhenThrottled, isThrottling } from '../../../lambda/handlers/aws-throttling.js';

const awsError = (name: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(name), { name, $metadata: { httpStatusCode: 400 }, ...extra });

describe('isThrottling', () => {
  it('knows each service’s throttle by its name, by HTTP 429, or by the SDK’s throttling mark', () => {
    expect(isThrottling(awsError('ProvisionedThroughputExceededException'))).toBe(true);
    expect(isThrottling(awsError('ThrottlingException'))).toBe(true);
    expect(isThrottling(awsError('SlowDown', { $metadata: { httpStatusCode: 429 } }))).toBe(true);
    expect(isThrottling(awsError('Busy', { $retryable: { throttling: true } }))).toBe(true);
  });

  it('leaves every other error alone', () => {
    expect(isThrottling(awsError('ConditionalCheckFailedException'))).toBe(false);
    expect(isThrottling(awsError('ExecutionLimitExceeded'))).toBe(false);
    expect(isThrottling(new Error('socket hang up'))).toBe(false);
    expect(isThrottling('ThrottlingException')).toBe(false);
  });
});

describe('busyWhenThrottled', () => {
  /** A DynamoDB client whose every attempt is answered by `fail` (counted), with the SDK's retries sped up. */
  function failingClient(fail: () => Error) {
    const dynamoDb = new DynamoDBClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
      maxAttempts: 3,
    });
    let attempts = 0;
    dynamoDb.middlewareStack.add(
      () => async () => {
        attempts++;
        throw fail();
      },
      { step: 'finalizeRequest', priority: 'low', name: 'answerEveryAttempt' },
    );
    busyWhenThrottled({ dynamoDb, stepFunctions: new SFNClient({ region: 'us-east-1' }) });
    return { dynamoDb, attempts: () => attempts };
  }

  it('answers ServiceBusyError naming the service and operation once the retries are spent', async () => {
    const { dynamoDb, attempts } = failingClient(() => awsError('ProvisionedThroughputExceededException'));
    const sent = dynamoDb.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'k' } } }));
    await expect(sent).rejects.toBeInstanceOf(ServiceBusyError);
    await expect(sent).rejects.toMatchObject({ service: 'DynamoDB', operation: 'GetItem', retryAfterSeconds: 1 });
    expect(attempts()).toBe(3);
  });

  it('passes any other error through as it is', async () => {
    const { dynamoDb } = failingClient(() => awsError('ResourceNotFoundException'));
    await expect(dynamoDb.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'k' } } }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });

  it("translates a durable function engine's Lambda throttles too, when the clients include Lambda", async () => {
    const lambda = new LambdaClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
      maxAttempts: 1,
    });
    lambda.middlewareStack.add(
      () => async () => {
        throw awsError('TooManyRequestsException', { $metadata: { httpStatusCode: 429 } });
      },
      { step: 'finalizeRequest', priority: 'low', name: 'answerEveryAttempt' },
    );
    busyWhenThrottled({
      dynamoDb: new DynamoDBClient({ region: 'us-east-1' }),
      stepFunctions: new SFNClient({ region: 'us-east-1' }),
      lambda,
    });
    const sent = lambda.send(new GetDurableExecutionCommand({ DurableExecutionArn: 'arn' }));
    await expect(sent).rejects.toMatchObject({
      name: 'ServiceBusyError',
      service: 'Lambda',
      operation: 'GetDurableExecution',
    });
  });
});
