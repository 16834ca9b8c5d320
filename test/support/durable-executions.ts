// The durable executions of the local runner of durable functions, as Lambda lists them: what a test checks a task's
// execution by (the runner lives in the global setup's process, so it is asked over its API like Lambda).
import { ListDurableExecutionsByFunctionCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { inject } from 'vitest';
import { taskKey, taskKeyFromExecutionName } from '../../lambda/core/task-key.js';
import { LOCAL_ACCOUNT, LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/local-aws.js';

let lambda: LambdaClient | undefined;

/** The durable execution of `owner`'s task `taskId` on the local runner's function `functionName`, if it started. */
export async function durableExecutionOf(
  taskId: string,
  owner = 'alice',
  functionName = 'durable-review',
): Promise<{ name: string; status: string } | undefined> {
  lambda ??= new LambdaClient({
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    endpoint: inject('lambdaEndpoint'),
  });
  const { DurableExecutions = [] } = await lambda.send(
    new ListDurableExecutionsByFunctionCommand({
      FunctionName: `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:${functionName}`,
    }),
  );
  const key = taskKey(owner, taskId);
  const execution = DurableExecutions.find((each) => taskKeyFromExecutionName(each.DurableExecutionName ?? '') === key);
  return execution ? { name: execution.DurableExecutionName!, status: String(execution.Status) } : undefined;
}
