// The STANDARD state machine that runs an EXPRESS tool's machine for its tasks. EXPRESS machines have neither
// DescribeExecution nor status events, and last 5 minutes at most; a task needs both and may be read for days. The
// wrapper has them, and runs the EXPRESS machine with `states:startExecution.sync:2`, its output the child's. Its ASL
// is lambda/contract's, so the CDK app and the local stack deploy the same wrapper.
import { Aws, Fn, Names, Stack, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { expressWrapperDefinition } from '../../lambda/contract/express-wrapper.js';
import { EXPRESS_WRAPPER_TIMEOUT } from '../props/mcp-task-endpoint-defaults.js';
import { acknowledgeWildcardResource } from '../operations/nag-acknowledgements.js';
import { executionsOf } from './tool-executions.js';

export interface ExpressWrapperProps {
  /** The EXPRESS machine the wrapper runs. */
  readonly expressStateMachine: sfn.IStateMachine;
  /** The MCP tool it serves, for descriptions. */
  readonly toolName: string;
  /** Active X-Ray tracing of the wrapper. */
  readonly tracing: boolean;
  readonly logRetention: logs.RetentionDays;
  /** Applies to the wrapper's log group. */
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The wrapper's ASL: lambda/contract's, bounded by {@link EXPRESS_WRAPPER_TIMEOUT} when it sets no `TimeoutSeconds`
 * of its own (CDK's `timeout` prop applies only to definitions CDK builds, not to text). The ARN may be a token: its
 * text passes through JSON unchanged.
 */
export function wrapperDefinition(expressStateMachineArn: string): string {
  const asl = JSON.parse(expressWrapperDefinition(expressStateMachineArn)) as Record<string, unknown>;
  return JSON.stringify({ ...asl, TimeoutSeconds: asl['TimeoutSeconds'] ?? EXPRESS_WRAPPER_TIMEOUT.toSeconds() });
}

export class ExpressWrapper extends Construct {
  public readonly stateMachine: sfn.StateMachine;
  public readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ExpressWrapperProps) {
    super(scope, id);
    // Vended-logs prefix: Step Functions then needs no growing account-wide CloudWatch Logs resource policy. The
    // stack ID's UUID makes the name new with each creation of the stack, so a group retained from a destroyed stack
    // never collides with the next deploy.
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      logGroupName:
        `/aws/vendedlogs/states/${Names.uniqueResourceName(this, { maxLength: 200 })}-` +
        Fn.select(2, Fn.split('/', Aws.STACK_ID)),
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    const express = props.expressStateMachine;
    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      comment: `Runs the EXPRESS state machine of MCP tool ${props.toolName} for its tasks`,
      stateMachineType: sfn.StateMachineType.STANDARD,
      definitionBody: sfn.DefinitionBody.fromString(wrapperDefinition(express.stateMachineArn)),
      logs: { destination: this.logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
      tracingEnabled: props.tracing,
    });
    this.grantRunningTheExpressMachine(express);
    Validations.of(this.stateMachine.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'CloudWatch Logs log-delivery actions (and X-Ray, when tracing) support no resource-level permissions.',
    });
    if (!props.tracing)
      Validations.of(this.stateMachine).acknowledge({
        id: 'AwsSolutions-SF2',
        reason:
          'X-Ray is opt-in (the endpoint tracing prop), so that a deployment costs nothing per request by default.',
      });
  }

  /**
   * What `states:startExecution.sync:2` needs, as
   * https://docs.aws.amazon.com/step-functions/latest/dg/stepfunctions-iam.html lists it: the start of the child,
   * describing and stopping its executions, and the managed rule through which Step Functions learns that a child
   * ended. The definition is text, so CDK cannot derive these itself. The child is named as the wrapper's execution
   * (`task-…`), so only those executions of the EXPRESS machine are covered.
   */
  private grantRunningTheExpressMachine(express: sfn.IStateMachine): void {
    const children = executionsOf(express);
    iam.Grant.addToPrincipal({
      grantee: this.stateMachine,
      actions: ['states:StartExecution'],
      resourceArns: [express.stateMachineArn],
    });
    iam.Grant.addToPrincipal({
      grantee: this.stateMachine,
      actions: ['states:DescribeExecution', 'states:StopExecution'],
      resourceArns: [children],
    });
    iam.Grant.addToPrincipal({
      grantee: this.stateMachine,
      actions: ['events:PutTargets', 'events:PutRule', 'events:DescribeRule'],
      resourceArns: [
        Stack.of(this).formatArn({
          service: 'events',
          resource: 'rule',
          resourceName: 'StepFunctionsGetEventsForStepFunctionsExecutionRule',
        }),
      ],
    });
    acknowledgeWildcardResource(
      this.stateMachine.role,
      children,
      "Child executions are named as the wrapper's (task-<key>-<nonce>) at run time; the wildcard covers only " +
        'those executions of the EXPRESS machine, which the wrapper starts and may stop.',
    );
  }
}
