// The Lambda function behind a workflow step that writes onto its task's item: the ask step (an input request) and
// the progress step (a report). Each may update items of the task table and nothing else.
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { ENV } from '../lambda/contract/environment-names.js';
import { HandlerFunction, type HandlerFunctionProps } from './handler-function.js';

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
  iam.Grant.addToPrincipal({
    grantee: handler.function,
    actions: ['dynamodb:UpdateItem'],
    resourceArns: [table.tableArn],
  });
  table.encryptionKey?.grantEncryptDecrypt(handler.function);
  return handler;
}
