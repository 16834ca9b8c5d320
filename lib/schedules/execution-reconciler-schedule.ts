// The reconciler in AWS: its function, run every minute by EventBridge, with only what its code does to the table (a
// Query on the check index, GetItem, UpdateItem) and, per registered machine, DescribeExecution and
// GetExecutionHistory on this backend's executions (per durable function, GetDurableExecution and
// GetDurableExecutionHistory, and the lookup of an execution by its name). Its budget is the number of checks a run
// may make.
import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { ENV } from '../../lambda/contract/environment-names.js';
import { CHECK_DUE_INDEX } from '../../lambda/contract/task-table-schema.js';
import { HandlerFunction, projectPath, type HandlerFunctionProps } from '../handlers/handler-function.js';
import { acknowledgeWildcardResource, LIST_BY_FUNCTION_REASON } from '../operations/nag-acknowledgements.js';
import { pick } from '../props/pick-props.js';

/** The reconciler runs this often; its budget is spent over this period. */
export const RECONCILER_RATE = Duration.minutes(1);
/** Step Functions calls one check may make: DescribeExecution, and GetExecutionHistory while the execution runs. */
const CALLS_PER_CHECK = 2;

export interface ExecutionReconcilerScheduleProps extends Pick<
  HandlerFunctionProps,
  'tracing' | 'logRetention' | 'removalPolicy'
> {
  readonly table: dynamodb.ITable;
  /** The average Step Functions calls a second the reconciler may make, across the deployment. */
  readonly callsPerSecond: number;
}

export class ExecutionReconcilerSchedule extends Construct {
  public readonly handler: HandlerFunction;
  public readonly function: lambda.Function;
  public readonly rule: events.Rule;
  /** The most task executions one run checks: `callsPerSecond` over a run's minute, two calls a check. */
  public readonly maxChecksPerRun: number;

  constructor(scope: Construct, id: string, props: ExecutionReconcilerScheduleProps) {
    super(scope, id);
    this.maxChecksPerRun = Math.max(
      1,
      Math.floor((props.callsPerSecond * RECONCILER_RATE.toSeconds()) / CALLS_PER_CHECK),
    );
    this.handler = new HandlerFunction(this, 'Handler', {
      entry: projectPath('lambda/handlers/execution-reconciler.ts'),
      description: 'Checks the executions of MCP tasks whose status news is old, within a budget, every minute',
      // One run ends before the next begins, so runs do not add up to more than the budget.
      timeout: RECONCILER_RATE,
      environment: {
        [ENV.tableName]: props.table.tableName,
        [ENV.reconcilerMaxChecks]: String(this.maxChecksPerRun),
      },
      // A failed run is not retried: the next run, a minute later, finds the same tasks due.
      retryAttempts: 0,
      ...pick(props, ['tracing', 'logRetention', 'removalPolicy']),
    });
    this.function = this.handler.function;
    iam.Grant.addToPrincipal({
      grantee: this.function,
      actions: ['dynamodb:Query'],
      resourceArns: [`${props.table.tableArn}/index/${CHECK_DUE_INDEX}`],
    });
    // Reads the task due, claims its check and records what the execution shows (and frees a finished task's slot).
    iam.Grant.addToPrincipal({
      grantee: this.function,
      actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      resourceArns: [props.table.tableArn],
    });
    props.table.encryptionKey?.grantEncryptDecrypt(this.function);
    this.rule = new events.Rule(this, 'Schedule', {
      description: 'Runs the MCP task reconciler',
      schedule: events.Schedule.rate(RECONCILER_RATE),
      // A run delivered later than the next one is due is worth nothing.
      targets: [new targets.LambdaFunction(this.function, { retryAttempts: 0, maxEventAge: RECONCILER_RATE })],
    });
  }

  /** Lets the reconciler check the executions `executionsArn` covers (one registered machine's `task-*` executions). */
  public grantCheckExecutions(executionsArn: string, reason: string): void {
    iam.Grant.addToPrincipal({
      grantee: this.function,
      actions: ['states:DescribeExecution', 'states:GetExecutionHistory'],
      resourceArns: [executionsArn],
    });
    acknowledgeWildcardResource(this.handler.role, executionsArn, reason);
  }

  /**
   * Lets the reconciler check the durable executions `executionsArn` covers (one durable function's `task-*`
   * executions): find one by its name (on the function: a task stores its execution's reference), read it and the
   * newest page of its history (its current step).
   */
  public grantCheckDurableExecutions(functionArn: string, executionsArn: string, reason: string): void {
    iam.Grant.addToPrincipal({
      grantee: this.function,
      actions: ['lambda:GetDurableExecution', 'lambda:GetDurableExecutionHistory'],
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
}
