// The Lambda function behind a workflow step that writes onto its task's item: the ask step (an input request) and
// the progress step (a report); and the same grant for a durable function's ask and progress helpers. Each may update
// items of the task table and nothing else.
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { ENV } from '../../lambda/contract/environment-names.js';
import { HandlerFunction, type HandlerFunctionProps } from '../handlers/handler-function.js';

export interface TaskItemWriterProps extends Pick<
  HandlerFunctionProps,
  'entry' | 'description' | 'timeout' | 'tracing' | 'logRetention' | 'removalPolicy'
> {
  readonly table: dynamodb.ITable;
}

export function createTaskItemWriter(scope: Construct, id: string, props: TaskItemWriterProps): HandlerFunction {
  const { table, ...functionProps } = props;
  const handler = new HandlerFunction(scope, id, {
    ...functionProps,
    environment: { [ENV.tableName]: table.tableName },
  });
  grantTaskItemUpdates(table, handler.function);
  return handler;
}

/**
 * Lets a durable function tool's workflow ask a person and report progress (the durable ask and progress helpers):
 * what {@link grantTaskItemUpdates} grants, and the table's name in the function's environment (`TASK_TABLE_NAME`),
 * where the helpers read it. Only a function made in the app has an environment CDK can add to. An imported one is
 * granted through the role it was imported with (`fromFunctionAttributes({ functionArn, role })`); one imported
 * without (`fromFunctionArn`) gets nothing: CDK only warns to add the statement to its role.
 */
export function grantTaskItemWrites(table: dynamodb.ITable, fn: lambda.IFunction): iam.Grant {
  if (fn instanceof lambda.Function) fn.addEnvironment(ENV.tableName, table.tableName);
  return grantTaskItemUpdates(table, fn);
}

/**
 * What writing onto a task's item takes: `dynamodb:UpdateItem` on the table itself (no index, no other action), and
 * the table's key when it has one. The grant returned covers both, so a dependency on it waits for the key's too.
 */
export function grantTaskItemUpdates(table: dynamodb.ITable, grantee: iam.IGrantable): iam.Grant {
  const grant = iam.Grant.addToPrincipal({ grantee, actions: ['dynamodb:UpdateItem'], resourceArns: [table.tableArn] });
  const keyGrant = table.encryptionKey?.grantEncryptDecrypt(grantee);
  return keyGrant ? grant.combine(keyGrant) : grant;
}
