// The expiry sweep in AWS: its function, run on a schedule by EventBridge, with only what its code does to the table
// (a Query on the active-expiry index, UpdateItem) and, per registered machine, StopExecution on this backend's
// executions.
import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { ENV } from '../../lambda/contract/environment-names.js';
import { ACTIVE_EXPIRY_INDEX } from '../../lambda/contract/task-table-schema.js';
import { HandlerFunction, projectPath, type HandlerFunctionProps } from '../handlers/handler-function.js';
import { EXPIRY_SWEEP_FUNCTION_TIMEOUT } from '../props/mcp-task-endpoint-defaults.js';
import { acknowledgeWildcardResource, LIST_BY_FUNCTION_REASON } from '../operations/nag-acknowledgements.js';

export interface ExpirySweepScheduleProps extends Pick<
  HandlerFunctionProps,
  'tracing' | 'logRetention' | 'removalPolicy'
> {
  readonly table: dynamodb.ITable;
  /**
   * How often the sweep runs: a task that expires unread has its execution stopped within this plus the function
   * timeout.
   */
  readonly rate: Duration;
}

export class ExpirySweepSchedule extends Construct {
  public readonly handler: HandlerFunction;
  public readonly function: lambda.Function;
  public readonly rule: events.Rule;

  constructor(scope: Construct, id: string, props: ExpirySweepScheduleProps) {
    super(scope, id);
    this.handler = new HandlerFunction(this, 'Handler', {
      entry: projectPath('lambda/handlers/expiry-sweep.ts'),
      description: 'Stops the executions of MCP tasks that expired unread, on a schedule',
      timeout: EXPIRY_SWEEP_FUNCTION_TIMEOUT,
      environment: { [ENV.tableName]: props.table.tableName },
      // A failed run is not retried: the next scheduled run finds the same tasks, and claims make an overlap harmless.
      retryAttempts: 0,
      ...(props.tracing !== undefined ? { tracing: props.tracing } : {}),
      ...(props.logRetention !== undefined ? { logRetention: props.logRetention } : {}),
      ...(props.removalPolicy !== undefined ? { removalPolicy: props.removalPolicy } : {}),
    });
    this.function = this.handler.function;
    iam.Grant.addToPrincipal({
      grantee: this.function,
      actions: ['dynamodb:Query'],
      resourceArns: [`${props.table.tableArn}/index/${ACTIVE_EXPIRY_INDEX}`],
    });
    // Claims and finishes tasks, and frees their active-task slots: all conditional updates, never a read or a delete.
    iam.Grant.addToPrincipal({
      grantee: this.function,
      actions: ['dynamodb:UpdateItem'],
      resourceArns: [props.table.tableArn],
    });
    props.table.encryptionKey?.grantEncryptDecrypt(this.function);
    this.rule = new events.Rule(this, 'Schedule', {
      description: 'Runs the MCP task expiry sweep',
      schedule: events.Schedule.rate(props.rate),
      // A run delivered later than the next one is due is worth nothing.
      targets: [
        new targets.LambdaFunction(this.function, {
          retryAttempts: 2,
          maxEventAge: Duration.minutes(Math.max(1, Math.min(props.rate.toMinutes(), 60))),
        }),
      ],
    });
  }

  /**
   * Lets the sweep stop the durable executions `executionsArn` covers (one durable function's `task-*` executions):
   * find one by its name (on the function), read it and stop it.
   */
  public grantStopDurableExecutions(functionArn: string, executionsArn: string, reason: string): void {
    iam.Grant.addToPrincipal({
      grantee: this.function,
      actions: ['lambda:GetDurableExecution', 'lambda:StopDurableExecution'],
      resourceArns: [executionsArn],
    });
    iam.Grant.addToPrincipal({
      grantee: this.function,
      actions: ['lambda:ListDurableExecutionsByFunction'],
      resourceArns: [functionArn, `${functionArn}:*`],
    });
    acknowledgeWildcardResource(this.handler.role, executionsArn, reason);
    acknowledgeWildcardResource(this.handler.role, `${functionArn}:*`, LIST_BY_FUNCTION_REASON);
  }

  /** Lets the sweep stop the executions `executionsArn` covers (one registered machine's `task-*` executions). */
  public grantStopExecutions(executionsArn: string, reason: string): void {
    iam.Grant.addToPrincipal({
      grantee: this.function,
      actions: ['states:StopExecution'],
      resourceArns: [executionsArn],
    });
    acknowledgeWildcardResource(this.handler.role, executionsArn, reason);
  }
}
