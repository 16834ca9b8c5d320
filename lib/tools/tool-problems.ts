// Checks of the tools registered on McpTaskEndpoint: MCP's rules (shared with the runtime), then each tool's workflow:
// a state machine's ARN, where it lives and, for an EXPRESS one, what EXPRESS cannot do; a durable function's
// qualifier, durability and place. Every problem is collected, so one synth reports them all.
import { Stack, Token } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { toolDefinitionProblems } from '../../lambda/contract/tool-definition.js';
import { FUNCTION_ARN, isQualifiedFunction, underlyingFunction } from './durable-function-target.js';
import type { McpToolProps } from '../props/mcp-task-endpoint-props.js';

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
  const resource = tool.stateMachine === undefined ? undefined : appStateMachineResource(tool.stateMachine);
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
    const workflowProblem = workflowChoiceProblem(tool);
    if (workflowProblem !== undefined) {
      problems.push(workflowProblem);
      continue;
    }
    if (tool.durableFunction !== undefined) {
      problems.push(...durableFunctionProblems(tool.name, tool.durableFunction, environment));
      continue;
    }
    const machine = tool.stateMachine!;
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
  if (appStateMachineResource(tool.stateMachine!) !== undefined && tool.stateMachineType !== undefined) {
    if (tool.stateMachineType !== type)
      problems.push(
        `Tool '${tool.name}': stateMachineType is ${tool.stateMachineType}, but its state machine is ${type}; ` +
          `leave stateMachineType out for a machine made in this app (it is read from the machine)`,
      );
  }
  if (type === sfn.StateMachineType.EXPRESS && waitsForTaskToken(tool.stateMachine!) === true)
    problems.push(
      `Tool '${tool.name}': its EXPRESS state machine waits for a task token (endpoint.askStep, or another ` +
        `.waitForTaskToken state), and an EXPRESS machine cannot wait for one; make the machine STANDARD ` +
        `(stateMachineType: sfn.StateMachineType.STANDARD), or move the question into a STANDARD tool`,
    );
  return problems;
}

/** Whether a tool names exactly one workflow, and no state machine setting beside a durable function. */
function workflowChoiceProblem(tool: McpToolProps): string | undefined {
  const both = tool.stateMachine !== undefined && tool.durableFunction !== undefined;
  if (both || (tool.stateMachine === undefined && tool.durableFunction === undefined))
    return (
      `Tool '${tool.name}': give exactly one of stateMachine and durableFunction ` +
      `(it has ${both ? 'both' : 'neither'})`
    );
  if (tool.durableFunction !== undefined && tool.stateMachineType !== undefined)
    return `Tool '${tool.name}': stateMachineType applies to a stateMachine only`;
  return undefined;
}

/**
 * What is wrong with a durable function registration: no qualifier (Lambda starts durable executions only of a version
 * or alias), a function made in this app without durableConfig, or one in another account or region.
 */
function durableFunctionProblems(
  toolName: string,
  value: NonNullable<McpToolProps['durableFunction']>,
  environment: ToolEnvironment | undefined,
): string[] {
  const problems: string[] = [];
  const underlying = underlyingFunction(value);
  if (underlying instanceof lambda.Function) {
    const resource = underlying.node.defaultChild as lambda.CfnFunction;
    if (resource.durableConfig === undefined)
      problems.push(
        `Tool '${toolName}': its function ${underlying.node.path} is not durable (it has no durableConfig); ` +
          `durability can only be set when a function is created`,
      );
  }
  if (typeof value !== 'string') {
    if (!isQualifiedFunction(value))
      problems.push(
        `Tool '${toolName}': durableFunction is a function without a version or alias, and Lambda starts durable ` +
          `executions only of a qualified function: pass fn.currentVersion, fn.latestVersion or an alias`,
      );
    else if (environment && underlying !== undefined)
      problems.push(...environmentProblems(toolName, underlying.env, environment, 'function'));
    return problems;
  }
  if (Token.isUnresolved(value)) return problems;
  const match = FUNCTION_ARN.exec(value);
  if (match === null || match[5] === undefined) {
    problems.push(
      `Tool '${toolName}': '${value}' names no version or alias (arn:aws:lambda:<region>:<account>:function:` +
        `<name>:<version or alias>), and Lambda starts durable executions only of a qualified function`,
    );
  } else if (environment) {
    problems.push(...environmentProblems(toolName, { region: match[2]!, account: match[3]! }, environment, 'function'));
  }
  return problems;
}

function environmentProblems(
  toolName: string,
  machine: ToolEnvironment,
  endpoint: ToolEnvironment,
  kind: 'state machine' | 'function' = 'state machine',
): string[] {
  const problems: string[] = [];
  const where = [
    ['region', machine.region, endpoint.region],
    ['account', machine.account, endpoint.account],
  ] as const;
  const why =
    kind === 'state machine'
      ? `a tool's machine must be in the endpoint's own account and region (status events stay in their account ` +
        `and region, and Step Functions has no resource policies), so deploy the endpoint there or front the ` +
        `machine with one that is`
      : `a tool's function must be in the endpoint's own account and region (status events stay in their account ` +
        `and region), so deploy the endpoint there`;
  for (const [what, theirs, ours] of where) {
    if (!Token.isUnresolved(theirs) && !Token.isUnresolved(ours) && theirs !== ours)
      problems.push(`Tool '${toolName}': its ${kind} is in ${what} ${theirs}, the endpoint in ${what} ${ours}; ${why}`);
  }
  return problems;
}
