// One Lambda handler as this project deploys every handler: its prebuilt asset (one ESM bundle for Node 22, see
// scripts/build-assets.ts) on arm64, JSON logs into its own log group, and a role that starts with nothing but
// writing to that log group.
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { acknowledgeWildcardResource } from '../operations/nag-acknowledgements.js';
import { ENV } from '../../lambda/contract/environment-names.js';
import { prebuiltAsset } from './handler-asset.js';

export { ESM_REQUIRE_BANNER, projectPath } from './handler-asset.js';

export interface HandlerFunctionProps {
  /**
   * The handler module (it exports `handler`), absolute path inside this package, e.g.
   * `projectPath('lambda/handlers/mcp-http.ts')`. What deploys is its prebuilt asset, dist/assets/<path>/index.mjs.
   */
  readonly entry: string;
  readonly description: string;
  /** @default - none */
  readonly environment?: Record<string, string>;
  /** @default Duration.seconds(30) */
  readonly timeout?: Duration;
  /** @default 256 */
  readonly memorySize?: number;
  /**
   * Reserved concurrency: a guaranteed share of the account's concurrency and a ceiling.
   * @default - none (unreserved)
   */
  readonly reservedConcurrentExecutions?: number;
  /** Active X-Ray tracing, and Powertools Tracer in the handler (lambda/handlers/tracing.ts). @default false */
  readonly tracing?: boolean;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** Applies to the log group. @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /** Asynchronous invocations that fail after their retries land here. @default - none */
  readonly deadLetterQueue?: sqs.IQueue;
  /** Retries of failed asynchronous invocations. @default 2 (Lambda's own default) */
  readonly retryAttempts?: number;
  /**
   * How long an asynchronous event may wait for a successful invocation.
   * @default Duration.hours(6) (Lambda's default)
   */
  readonly maxEventAge?: Duration;
  /**
   * Makes the function durable (a Lambda durable function's workflow), and lets it checkpoint its own executions and
   * read their state, which the durable execution SDK does on every invocation. @default - not durable
   */
  readonly durableConfig?: lambda.DurableConfig;
}

export class HandlerFunction extends Construct {
  public readonly function: lambda.Function;
  public readonly role: iam.Role;
  public readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: HandlerFunctionProps) {
    super(scope, id);
    this.logGroup = new logs.LogGroup(this, 'LogGroup', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    // An explicit role instead of AWSLambdaBasicExecutionRole, whose logs:* on every log group is more than needed.
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: props.description,
    });
    this.logGroup.grantWrite(this.role);
    // Always the prebuilt asset, in this repository as in an installed package: one code path, and the app that
    // installs the package needs no esbuild, no Docker and none of the handlers' dependencies.
    this.function = new lambda.Function(this, 'Function', {
      code: lambda.Code.fromAsset(prebuiltAsset(props.entry)),
      handler: 'index.handler',
      description: props.description,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? 256,
      timeout: props.timeout ?? Duration.seconds(30),
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      applicationLogLevelV2: lambda.ApplicationLogLevel.INFO,
      systemLogLevelV2: lambda.SystemLogLevel.WARN,
      tracing: props.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
      // The handlers load Powertools Tracer only when told: with tracing off it costs no cold start.
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        ...(props.tracing ? { [ENV.tracing]: 'true' } : {}),
        ...props.environment,
      },
      ...(props.reservedConcurrentExecutions !== undefined
        ? { reservedConcurrentExecutions: props.reservedConcurrentExecutions }
        : {}),
      ...(props.deadLetterQueue ? { deadLetterQueue: props.deadLetterQueue } : {}),
      ...(props.retryAttempts !== undefined ? { retryAttempts: props.retryAttempts } : {}),
      ...(props.maxEventAge ? { maxEventAge: props.maxEventAge } : {}),
      ...(props.durableConfig ? { durableConfig: props.durableConfig } : {}),
    });
    if (props.durableConfig) this.grantOwnCheckpoints();
    Validations.of(this.function).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'Node.js 22 is deliberate: it is the runtime the project builds and tests with (the local ' +
        'stack and CI run Node 22); move with the project.',
    });
    if (props.tracing) {
      Validations.of(this.role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: 'xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions.',
      });
    }
  }

  /**
   * What AWSLambdaBasicDurableExecutionRolePolicy grants on every function (CDK adds it only to a role it makes), on
   * this function's own executions only.
   */
  private grantOwnCheckpoints(): void {
    const executions = `${this.function.functionArn}:*/durable-execution/*`;
    // A policy of its own, outside the role: the function depends on its role (and the role's default policy), so
    // a statement naming the function's ARN there would be a circular dependency.
    new iam.Policy(this, 'DurableExecutionPolicy', {
      roles: [this.role],
      statements: [
        new iam.PolicyStatement({
          actions: ['lambda:CheckpointDurableExecution', 'lambda:GetDurableExecutionState'],
          resources: [executions],
        }),
      ],
    });
    acknowledgeWildcardResource(
      this,
      executions,
      'A durable function checkpoints its own executions, whose versions and IDs are known only when they run.',
    );
  }
}
