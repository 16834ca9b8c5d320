// Lambda entry point of the ask step: see input/input-request-recording. The table comes from the environment, read
// once at the first invocation (the local stack sets it after loading this module).
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createAskStep, type AskStepEvent } from '../input/input-request-recording.js';
import { DynamoDbInputRequests } from '../store/dynamodb-input-requests.js';
import { ENV } from '../contract/environment-names.js';
import { AWS_CLIENT_BOUNDS } from './aws-clients.js';

let askStep: ReturnType<typeof createAskStep> | undefined;

export function handler(event: AskStepEvent): Promise<{ key: string }> {
  if (askStep === undefined) {
    const tableName = process.env[ENV.tableName];
    if (tableName === undefined || tableName === '')
      throw new Error(`Environment variable ${ENV.tableName} is required`);
    const client = DynamoDBDocumentClient.from(new DynamoDBClient({ ...AWS_CLIENT_BOUNDS }), {
      marshallOptions: { removeUndefinedValues: true },
    });
    askStep = createAskStep({ inputs: new DynamoDbInputRequests({ client, tableName }) });
  }
  return askStep(event);
}
