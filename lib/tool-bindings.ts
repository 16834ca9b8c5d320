// What registering a tool's state machine gives the endpoint's functions, and the status rule that follows it, each
// only on the executions this backend starts (named `task-…`); and, for an EXPRESS tool, the synchronous runs of its
// plain calls.
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { ExecutionReconcilerSchedule } from './execution-reconciler-schedule.js';
import type { ExpirySweepSchedule } from './expiry-sweep-schedule.js';
import type { HandlerFunction } from './handler-function.js';
import { acknowledgeWildcardResource } from './nag-acknowledgements.js';
import { createStatusRule } from './status-events.js';
import { executionsOf } from './tool-executions.js';

/** The endpoint's parts a tool's state machine is bound to. */
export interface ToolBindingParts {
  readonly mcp: HandlerFunction;
  readonly statusSync: HandlerFunction;
  readonly expirySweep: ExpirySweepSchedule;
  readonly reconciler: ExecutionReconcilerSchedule;
  readonly statusDeadLetterQueue: sqs.IQueue;
}

/**
 * A STANDARD machine that runs a tool's tasks (the tool's own, or an EXPRESS tool's wrapper): the MCP function may
 * start it and describe or stop its executions; status-sync may describe them, the reconciler describe them and read
 * their history, and the expiry sweep stop them; a rule pushes their status changes.
 */
export function bindTaskStateMachine(
  scope: Construct,
  parts: ToolBindingParts,
  machine: sfn.IStateMachine,
  toolName: string,
): events.Rule {
  machine.grantStartExecution(parts.mcp.function);
  const executions = executionsOf(machine);
  // DescribeExecution: a cancel records an end that came before its stop. Polls read only the table.
  iam.Grant.addToPrincipal({
    grantee: parts.mcp.function,
    actions: ['states:DescribeExecution', 'states:StopExecution'],
    resourceArns: [executions],
  });
  iam.Grant.addToPrincipal({
    grantee: parts.statusSync.function,
    actions: ['states:DescribeExecution'],
    resourceArns: [executions],
  });
  const reason =
    `Execution names are made per task at run time (task-<key>-<nonce>); the wildcard covers ` +
    `only this backend's executions of the machine behind tool '${toolName}'.`;
  acknowledgeWildcardResource(parts.mcp.role, executions, reason);
  acknowledgeWildcardResource(parts.statusSync.role, executions, reason);
  parts.expirySweep.grantStopExecutions(executions, reason);
  parts.reconciler.grantCheckExecutions(executions, reason);
  return createStatusRule(scope, `StatusRule-${toolName}`, {
    stateMachineArn: machine.stateMachineArn,
    handler: parts.statusSync.function,
    deadLetterQueue: parts.statusDeadLetterQueue,
  });
}

/** An EXPRESS tool's plain calls: the MCP function may run its machine synchronously, and nothing more on it. */
export function grantSyncRuns(parts: ToolBindingParts, expressMachine: sfn.IStateMachine): void {
  iam.Grant.addToPrincipal({
    grantee: parts.mcp.function,
    actions: ['states:StartSyncExecution'],
    resourceArns: [expressMachine.stateMachineArn],
  });
}
