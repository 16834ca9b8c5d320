// Which executions of a tool's workflow the endpoint's functions may reach: only those this backend starts (their names
// carry lambda/contract's EXECUTION_NAME_PREFIX), of the tool's own state machine or durable function.
import { Arn, ArnFormat, Stack, Token } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { EXECUTION_NAME_PREFIX } from '../../lambda/contract/execution-name.js';
import type { McpToolProps } from '../props/mcp-task-endpoint-props.js';

/**
 * The ARN of the tool's workflow as registered: its state machine's, or its durable function's version or alias (an
 * empty entry for a registration synth refuses anyway).
 */
export function workflowArnOf(tool: McpToolProps): string {
  if (tool.stateMachine !== undefined)
    return typeof tool.stateMachine === 'string' ? tool.stateMachine : tool.stateMachine.stateMachineArn;
  if (tool.durableFunction === undefined) return '';
  return typeof tool.durableFunction === 'string' ? tool.durableFunction : tool.durableFunction.functionArn;
}

/**
 * `<function ARN>:<version>/durable-execution/task-<rest>`, version and rest as wildcards: the durable executions this
 * backend starts (named `task-…`) of any version of the function. Lambda authorizes the durable execution APIs against
 * the execution's ARN, whose qualifier is always a version (never an alias), so the version is left open.
 */
export function durableExecutionsOf(unqualifiedFunctionArn: string): string {
  return `${unqualifiedFunctionArn}:*/durable-execution/${EXECUTION_NAME_PREFIX}*`;
}

/**
 * `arn:<partition>:states:<region>:<account>:execution:<machine name>:task-*`: only the executions this backend
 * starts (all named `task-…`), in the machine's own account and region. (The L2's grantExecution puts an imported
 * ARN in the importing stack's account and region, and covers every execution.)
 */
export function executionsOf(machine: sfn.IStateMachine): string {
  // Only executions this backend started (see core/task-key): another system's executions of a shared machine stay out
  // of reach.
  const executions = `${EXECUTION_NAME_PREFIX}*`;
  if (machine instanceof sfn.StateMachine) {
    return Stack.of(machine).formatArn({
      service: 'states',
      resource: 'execution',
      resourceName: `${machine.stateMachineName}:${executions}`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
  }
  if (!Token.isUnresolved(machine.stateMachineArn))
    return `${machine.stateMachineArn.replace(':stateMachine:', ':execution:')}:${executions}`;
  const arn = Arn.split(machine.stateMachineArn, ArnFormat.COLON_RESOURCE_NAME);
  return Arn.format({
    ...arn,
    service: 'states',
    resource: 'execution',
    resourceName: `${arn.resourceName}:${executions}`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
}
