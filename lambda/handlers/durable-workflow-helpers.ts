// The composition root of a durable function's workflow helpers (input/durable-ask, progress/durable-progress): both
// record on the endpoint's task table, with UpdateItem only, as the ask and progress steps do for a state machine.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ENV } from '../contract/environment-names.js';
import { createDurableAsk, type DurableAsk } from '../input/durable-ask.js';
import { createDurableProgress, type DurableReport } from '../progress/durable-progress.js';
import { DynamoDbInputRequests } from '../store/dynamodb-input-requests.js';
import { DynamoDbProgressStore } from '../store/dynamodb-progress-store.js';
import { AWS_CLIENT_BOUNDS } from './aws-clients.js';
import { defaultLogger } from './task-core.js';

/** What a durable tool's workflow is built with: it asks its client and reports its progress through these. */
export interface DurableWorkflowHelpers {
  readonly ask: DurableAsk;
  readonly report: DurableReport;
}

/** The helpers over `tableName`: what the local stack binds its durable functions to. */
export function durableWorkflowHelpers(tableName: string, dynamoDb: DynamoDBClient): DurableWorkflowHelpers {
  const client = DynamoDBDocumentClient.from(dynamoDb, { marshallOptions: { removeUndefinedValues: true } });
  const logger = defaultLogger();
  return {
    ask: createDurableAsk({ inputs: new DynamoDbInputRequests({ client, tableName }) }),
    report: createDurableProgress({
      store: new DynamoDbProgressStore({ client, tableName }),
      onError: (error) => logger.warn('Could not record progress', { error: String(error) }),
    }),
  };
}

/**
 * The helpers over the table named in the environment (ENV.tableName, which the endpoint's grant sets), built at the
 * first use, once per instance: a deployed durable function's handler module builds its workflow with these.
 */
export function durableWorkflowHelpersFromEnvironment(): DurableWorkflowHelpers {
  let helpers: DurableWorkflowHelpers | undefined;
  const built = (): DurableWorkflowHelpers => {
    if (helpers !== undefined) return helpers;
    const tableName = process.env[ENV.tableName];
    if (tableName === undefined || tableName === '')
      throw new Error(`Environment variable ${ENV.tableName} is required`);
    helpers = durableWorkflowHelpers(tableName, new DynamoDBClient({ ...AWS_CLIENT_BOUNDS }));
    return helpers;
  };
  return {
    ask: (context, event, question) => built().ask(context, event, question),
    report: (context, event, report, name) => built().report(context, event, report, name),
  };
}
