// Lambda entry point of the progress step: a state machine's Task state invokes it with its execution ARN
// and what to report; it records that on the task the execution runs for. Needs UpdateItem on the task table, nothing
// else.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  InvalidProgressReportError,
  reportProgress,
  type ProgressStepEvent,
  type ProgressStepResult,
} from '../progress/progress-recording.js';
import { DynamoDbProgressStore } from '../store/dynamodb-progress-store.js';
import { ENV } from '../contract/environment-names.js';
import { AWS_CLIENT_BOUNDS } from './aws-clients.js';
import { defaultLogger } from './default-logger.js';

const logger = defaultLogger();

/** A progress step over `tableName`: what this module's handler is, and what the local stack binds its emulator to. */
export function createProgressHandler(
  tableName: string,
  dynamoDb: DynamoDBClient = new DynamoDBClient({ ...AWS_CLIENT_BOUNDS }),
) {
  const store = new DynamoDbProgressStore({ client: DynamoDBDocumentClient.from(dynamoDb), tableName });
  return (event: ProgressStepEvent): Promise<ProgressStepResult> =>
    reportProgress(store, event).catch((error: unknown) => {
      // A report is a side note: DynamoDB throttling or an outage must not fail the workflow it runs in (the SDK has
      // already retried). A malformed report is a bug in the state machine, so that one fails the Task state.
      if (error instanceof InvalidProgressReportError) throw error;
      logger.warn('Could not record progress', { error: String(error) });
      return { recorded: false };
    });
}

let handle: ((event: ProgressStepEvent) => Promise<ProgressStepResult>) | undefined;

export const handler = (event: ProgressStepEvent): Promise<ProgressStepResult> => {
  // Built on the first report, once per instance: the composition root reads the table name here and nowhere else.
  const tableName = process.env[ENV.tableName];
  if (tableName === undefined || tableName === '') throw new Error(`Environment variable ${ENV.tableName} is required`);
  handle ??= createProgressHandler(tableName);
  return handle(event);
};
