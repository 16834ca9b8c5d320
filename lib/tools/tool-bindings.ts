// What registering a tool's workflow gives the endpoint's functions, and the status rule that follows it, each only on
// the executions this backend starts (named `task-…`): for a state machine (and, for an EXPRESS tool, the synchronous
// runs of its plain calls) and for a durable function.
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { ExecutionReconcilerSchedule } from '../schedules/execution-reconciler-schedule.js';
import type { ExpirySweepSchedule } from '../schedules/expiry-sweep-schedule.js';
import type { HandlerFunction } from '../handlers/handler-function.js';
import type { DurableFunctionTarget } from './durable-function-target.js';
import {
  acknowledgeWildcardResource as acknowledge,
  LIST_BY_FUNCTION_REASON,
} from '../operations/nag-acknowledgements.js';
import { createDurableStatusRule, createStatusRule } from '../events/status-events.js';
import { durableExecutionsOf, executionsOf } from './tool-executions.js';

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
  acknowledge(parts.mcp.role, executions, reason);
  acknowledge(parts.statusSync.role, executions, reason);
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

/** The MCP function may invoke the tool's version or alias: each tool's own, even when tools share a function. */
export function grantDurableStart(parts: ToolBindingParts, target: DurableFunctionTarget): void {
  iam.Grant.addToPrincipal({
    grantee: parts.mcp.function,
    actions: ['lambda:InvokeFunction'],
    resourceArns: [target.qualifiedArn],
  });
}

/**
 * A durable function, once per function: the MCP function may find its executions by name (on the function), read,
 * stop and answer this backend's; status-sync may read them, the reconciler read them and their history, and the
 * expiry sweep stop them; a rule pushes their status changes.
 */
export function bindDurableFunction(
  scope: Construct,
  parts: ToolBindingParts,
  target: DurableFunctionTarget,
  toolName: string,
): events.Rule {
  const functionArn = target.unqualifiedArn;
  const executions = durableExecutionsOf(functionArn);
  iam.Grant.addToPrincipal({
    grantee: parts.mcp.function,
    // GetDurableExecution: a cancel records an end that came before its stop. Polls read only the table.
    actions: [
      'lambda:GetDurableExecution',
      'lambda:StopDurableExecution',
      'lambda:SendDurableExecutionCallbackSuccess',
    ],
    resourceArns: [executions],
  });
  iam.Grant.addToPrincipal({
    grantee: parts.mcp.function,
    actions: ['lambda:ListDurableExecutionsByFunction'],
    resourceArns: [functionArn, `${functionArn}:*`],
  });
  iam.Grant.addToPrincipal({
    grantee: parts.statusSync.function,
    actions: ['lambda:GetDurableExecution'],
    resourceArns: [executions],
  });
  const reason =
    `Durable execution names are made per task at run time (task-<key>-<nonce>) and their ARNs carry the version and ` +
    `an execution ID; the wildcard covers only this backend's executions of the function behind tool '${toolName}'.`;
  acknowledge(parts.mcp.role, executions, reason);
  acknowledge(parts.mcp.role, `${functionArn}:*`, LIST_BY_FUNCTION_REASON);
  acknowledge(parts.statusSync.role, executions, reason);
  parts.expirySweep.grantStopDurableExecutions(functionArn, executions, reason);
  parts.reconciler.grantCheckDurableExecutions(functionArn, executions, reason);
  return createDurableStatusRule(scope, `StatusRule-${toolName}`, {
    functionArn,
    handler: parts.statusSync.function,
    deadLetterQueue: parts.statusDeadLetterQueue,
  });
}
