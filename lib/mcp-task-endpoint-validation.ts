// Checks of McpTaskEndpoint's props and tools. Each check collects every problem, so one synth reports them all.
import { Token } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { toolDefinitionProblems } from '../lambda/tools/tool-definition.js';
import { MAX_RESULT_WAIT } from './mcp-task-endpoint-defaults.js';
import type { McpTaskEndpointProps, McpToolProps } from './mcp-task-endpoint-props.js';

/** An unqualified state machine ARN (a version or alias ARN would break the execution ARNs the backend derives). */
const STATE_MACHINE_ARN = /^arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:stateMachine:[0-9A-Za-z_-]{1,80}$/;
const DOMAIN_PREFIX = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Every problem with the props; empty when they are sound. */
export function propsProblems(props: McpTaskEndpointProps): string[] {
  const problems: string[] = [];
  if (props.existingUserPoolObj && props.userPoolProps) problems.push('Pass existingUserPoolObj or userPoolProps, not both');
  if (props.openEndpoint) {
    for (const key of ['existingUserPoolObj', 'userPoolProps', 'cognitoDomainPrefix', 'oauthCallbackUrls', 'machineClient', 'resourceServerIdentifier'] as const) {
      if (props[key] !== undefined) problems.push(`openEndpoint is true, so ${key} would have no effect; remove one of them`);
    }
  }
  const prefix = props.cognitoDomainPrefix;
  if (prefix !== undefined && !Token.isUnresolved(prefix) && (!DOMAIN_PREFIX.test(prefix) || /aws|amazon|cognito/.test(prefix))) {
    problems.push(`cognitoDomainPrefix '${prefix}' must be 1-63 lowercase letters, digits or hyphens, and may not contain aws, amazon or cognito`);
  }
  const wait = props.resultWait;
  if (wait !== undefined && !wait.isUnresolved() && (wait.toMilliseconds() < 1000 || wait.toMilliseconds() > MAX_RESULT_WAIT.toMilliseconds())) {
    problems.push(`resultWait must be between 1 second and ${MAX_RESULT_WAIT.toHumanString()} (a regional API Gateway stream closes after 5 idle minutes)`);
  }
  for (const [key, value] of [
    ['throttlingRateLimit', props.throttlingRateLimit],
    ['throttlingBurstLimit', props.throttlingBurstLimit],
  ] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value > 0)) problems.push(`${key} must be a positive integer, got ${value}`);
  }
  for (const origin of props.corsAllowOrigins ?? []) {
    if (origin !== '*' && !/^https?:\/\/[^/\s,]+$/.test(origin)) problems.push(`corsAllowOrigins entry '${origin}' must be '*' or a scheme://host[:port] origin`);
  }
  return problems;
}

/** Every problem with the registered tools: MCP's name rules and duplicates (shared with the runtime), then the machines. */
export function toolProblems(tools: readonly McpToolProps[]): string[] {
  const problems = toolDefinitionProblems(tools);
  for (const tool of tools) {
    const machine = tool.stateMachine;
    if (typeof machine === 'string') {
      if (!Token.isUnresolved(machine) && !STATE_MACHINE_ARN.test(machine)) {
        problems.push(`Tool '${tool.name}': '${machine}' is not an unqualified state machine ARN (arn:aws:states:<region>:<account>:stateMachine:<name>)`);
      }
    } else if (machine instanceof sfn.StateMachine && machine.stateMachineType === sfn.StateMachineType.EXPRESS) {
      problems.push(`Tool '${tool.name}': its state machine is EXPRESS; tasks need a STANDARD machine (DescribeExecution and status events)`);
    }
  }
  return problems;
}

/** Throws one error listing every problem, or returns when there are none. */
export function throwIfProblems(subject: string, problems: readonly string[]): void {
  if (problems.length > 0) throw new Error(`${subject} is invalid:\n- ${problems.join('\n- ')}`);
}
