// Checks of the tools registered on McpTaskEndpoint: MCP's rules (shared with the runtime), then each tool's state
// machine: its ARN, where it lives and, for an EXPRESS one, what EXPRESS cannot do. Every problem is collected, so one
// synth reports them all.
import { Stack, Token } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { toolDefinitionProblems } from '../lambda/contract/tool-definition.js';
import type { McpToolProps } from './mcp-task-endpoint-props.js';

/** An unqualified state machine ARN (a version or alias ARN would break the execution ARNs the backend derives). */
const STATE_MACHINE_ARN = /^arn:aws[a-z-]*:states:([a-z0-9-]+):(\d{12}):stateMachine:[0-9A-Za-z_-]{1,80}$/;

/** The account and region the endpoint's functions and status rules live in (either may be a token). */
export interface ToolEnvironment {
  readonly region: string;
  readonly account: string;
}

/** The L1 of a state machine made in this app, whose type and definition synth can read; undefined otherwise. */
function appStateMachineResource(machine: sfn.IStateMachine | string): sfn.CfnStateMachine | undefined {
  return machine instanceof sfn.StateMachine ? (machine.node.defaultChild as sfn.CfnStateMachine) : undefined;
}

/** A tool's machine type: read from a machine made in this app, else as the tool's `stateMachineType` says. */
export function stateMachineTypeOf(tool: McpToolProps): sfn.StateMachineType {
  const resource = appStateMachineResource(tool.stateMachine);
  if (resource !== undefined)
    return resource.stateMachineType === sfn.StateMachineType.EXPRESS
      ? sfn.StateMachineType.EXPRESS
      : sfn.StateMachineType.STANDARD;
  return tool.stateMachineType ?? sfn.StateMachineType.STANDARD;
}

/**
 * Whether a machine made in this app waits for a task token anywhere (an ask step does), read from its definition as
 * synth renders it; undefined when synth cannot read the definition (an imported machine, or one defined in S3).
 */
function waitsForTaskToken(machine: sfn.IStateMachine | string): boolean | undefined {
  const resource = appStateMachineResource(machine);
  if (resource?.definitionString === undefined) return undefined;
  return JSON.stringify(Stack.of(resource).resolve(resource.definitionString)).includes('.waitForTaskToken');
}

/**
 * Every problem with the registered tools: MCP's name rules and duplicates (shared with the runtime), then the
 * machines. With `environment`, a machine in another region or account is a problem wherever both sides are known:
 * the status rule only sees events of its own account and region, Step Functions has no resource policies to
 * let another account start or describe executions, and the function's SDK client calls its own region.
 */
export function toolProblems(tools: readonly McpToolProps[], environment?: ToolEnvironment): string[] {
  const problems = toolDefinitionProblems(tools);
  for (const tool of tools) {
    const machine = tool.stateMachine;
    if (typeof machine === 'string') {
      if (Token.isUnresolved(machine)) continue;
      const match = STATE_MACHINE_ARN.exec(machine);
      if (!match) {
        problems.push(
          `Tool '${tool.name}': '${machine}' is not an unqualified state machine ARN ` +
            `(arn:aws:states:<region>:<account>:stateMachine:<name>)`,
        );
      } else if (environment) {
        problems.push(...environmentProblems(tool.name, { region: match[1]!, account: match[2]! }, environment));
      }
    } else if (environment) {
      problems.push(...environmentProblems(tool.name, machine.env, environment));
    }
    problems.push(...expressProblems(tool));
  }
  return problems;
}

/** What an EXPRESS registration gets wrong: a type that contradicts the machine's, or a wait for a task token. */
function expressProblems(tool: McpToolProps): string[] {
  const problems: string[] = [];
  const type = stateMachineTypeOf(tool);
  if (appStateMachineResource(tool.stateMachine) !== undefined && tool.stateMachineType !== undefined) {
    if (tool.stateMachineType !== type)
      problems.push(
        `Tool '${tool.name}': stateMachineType is ${tool.stateMachineType}, but its state machine is ${type}; ` +
          `leave stateMachineType out for a machine made in this app (it is read from the machine)`,
      );
  }
  if (type === sfn.StateMachineType.EXPRESS && waitsForTaskToken(tool.stateMachine) === true)
    problems.push(
      `Tool '${tool.name}': its EXPRESS state machine waits for a task token (endpoint.askStep, or another ` +
        `.waitForTaskToken state), and an EXPRESS machine cannot wait for one; make the machine STANDARD ` +
        `(stateMachineType: sfn.StateMachineType.STANDARD), or move the question into a STANDARD tool`,
    );
  return problems;
}

function environmentProblems(toolName: string, machine: ToolEnvironment, endpoint: ToolEnvironment): string[] {
  const problems: string[] = [];
  const where = [
    ['region', machine.region, endpoint.region],
    ['account', machine.account, endpoint.account],
  ] as const;
  for (const [what, theirs, ours] of where) {
    if (!Token.isUnresolved(theirs) && !Token.isUnresolved(ours) && theirs !== ours) {
      problems.push(
        `Tool '${toolName}': its state machine is in ${what} ${theirs}, the endpoint in ${what} ` +
          `${ours}; a tool's machine must be in the endpoint's own account and region (status events ` +
          `stay in their account and region, and Step Functions has no resource policies), so deploy ` +
          `the endpoint there or front the machine with one that is`,
      );
    }
  }
  return problems;
}
