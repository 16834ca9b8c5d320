// The package's `mcp-tasks-sfn/durable` entry (bundled by scripts/build-durable.ts): what a team's own durable function
// imports to ask its client and report progress, and the in-repo example's composition root too, so there is one way
// to do it. Both helpers (input/durable-ask, progress/durable-progress) record on the endpoint's task table, with
// UpdateItem only, as the ask and progress steps do for a state machine.
// Its declarations are public: nothing exported here may name an AWS SDK type (a consumer would need the SDK's
// declarations to type-check), so the DynamoDB client stays inside.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ENV } from '../contract/environment-names.js';
import { createDurableAsk, type DurableAsk } from '../input/durable-ask.js';
import { createDurableProgress, type DurableReport } from '../progress/durable-progress.js';
import { DynamoDbInputRequests } from '../store/dynamodb-input-requests.js';
import { DynamoDbProgressStore } from '../store/dynamodb-progress-store.js';
import { AWS_CLIENT_BOUNDS } from './aws-clients.js';
import { defaultLogger } from './default-logger.js';

export type { DurableToolEvent } from '../contract/durable-tool-event.js';
export type { InputAnswer, InputRequestMessage } from '../core/input-request.js';
export type { DurableAsk, DurableQuestion } from '../input/durable-ask.js';
export type { DurableProgressReport, DurableReport } from '../progress/durable-progress.js';
export type { ProgressStepResult } from '../progress/progress-recording.js';

/**
 * What a durable tool's workflow is built with: it asks its client and reports its progress through these.
 *
 * Neither throws a class of this package into the workflow: a question that cannot be recorded (malformed, or the
 * task gone or finished) fails the `waitForCallback` and so the execution, with the SDK's error carrying the reason
 * in its message; an answer that does not come within `timeoutSeconds` is the SDK's `CallbackTimeoutError`. A report
 * that cannot be written is dropped (`{ recorded: false }`); only a malformed one fails its step.
 */
export interface DurableWorkflowHelpers {
  /** Asks the client (an elicitation form, a sampling request, a roots list) and waits for the answer. */
  readonly ask: DurableAsk;
  /** Reports progress on the task, as one durable step (recorded once, whatever the replays). */
  readonly report: DurableReport;
}

/** The helpers over `tableName`, with one DynamoDB client bounded as every client of this project is. */
function helpersOver(tableName: string): DurableWorkflowHelpers {
  const dynamoDb = new DynamoDBClient({ ...AWS_CLIENT_BOUNDS });
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
 * The helpers over the endpoint's task table, named by the environment variable `TASK_TABLE_NAME` that
 * `endpoint.grantTaskItemWrites(fn)` sets (with `dynamodb:UpdateItem` on the table, all the helpers need).
 *
 * Call it once, at module scope: nothing is read or built until the first `ask` or `report`, which then rejects with
 * an error naming `TASK_TABLE_NAME` if the variable is unset, so a handler module still loads (and its tests run)
 * outside Lambda.
 *
 * @example
 * ```ts
 * import { withDurableExecution } from '@aws/durable-execution-sdk-js';
 * import { durableWorkflowHelpersFromEnvironment, type DurableToolEvent } from 'mcp-tasks-sfn/durable';
 *
 * const { ask, report } = durableWorkflowHelpersFromEnvironment();
 * export const handler = withDurableExecution(async (event: DurableToolEvent<{ orderId: string }>, context) => {
 *   await report(context, event, { message: 'Checking order {progress} of {total}', progress: 1, total: 1 });
 *   const answer = await ask(context, event, {
 *     request: {
 *       method: 'elicitation/create',
 *       params: { message: `Refund ${event.arguments.orderId}?`, requestedSchema: { type: 'object', properties: {} } },
 *     },
 *     timeoutSeconds: 3600,
 *   });
 *   return { content: [{ type: 'text', text: answer.action }] };
 * });
 * ```
 */
export function durableWorkflowHelpersFromEnvironment(): DurableWorkflowHelpers {
  let helpers: DurableWorkflowHelpers | undefined;
  const built = (): DurableWorkflowHelpers => {
    if (helpers !== undefined) return helpers;
    const tableName = process.env[ENV.tableName];
    if (tableName === undefined || tableName === '')
      throw new Error(
        `Environment variable ${ENV.tableName} is required: it names the MCP endpoint's task table ` +
          '(endpoint.grantTaskItemWrites(fn) sets it)',
      );
    helpers = helpersOver(tableName);
    return helpers;
  };
  // A missing variable rejects the returned promise, as any other failure does, rather than throwing. Not an async
  // wrapper: `report` hands back the SDK's DurablePromise as it is, which starts its step only when awaited.
  const using = <Result>(call: (ready: DurableWorkflowHelpers) => Promise<Result>): Promise<Result> => {
    let ready: DurableWorkflowHelpers;
    try {
      ready = built();
    } catch (error) {
      return Promise.reject(error);
    }
    return call(ready);
  };
  return {
    ask: (context, event, question) => using((ready) => ready.ask(context, event, question)),
    report: (context, event, report, name) => using((ready) => ready.report(context, event, report, name)),
  };
}
