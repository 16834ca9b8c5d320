// Which executions of a tool's state machine the endpoint's functions may reach: only those this backend starts (their
// names carry lambda/contract's EXECUTION_NAME_PREFIX), in the machine's own account and region.
import { Arn, ArnFormat, Stack, Token } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { EXECUTION_NAME_PREFIX } from '../lambda/contract/execution-name.js';
import type { McpToolProps } from './mcp-task-endpoint-props.js';

/** The ARN of the tool's state machine, whether it was registered as a construct or as an ARN. */
export function stateMachineArnOf(tool: McpToolProps): string {
  return typeof tool.stateMachine === 'string' ? tool.stateMachine : tool.stateMachine.stateMachineArn;
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
