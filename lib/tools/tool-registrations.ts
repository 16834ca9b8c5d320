// The tools registered on an McpTaskEndpoint and what each registration made: the machine entries the declared tool
// catalog carries, an EXPRESS tool's STANDARD wrapper, the grants and the status rules. A machine shared by
// several tools is bound once.
import { Stack, type RemovalPolicy } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { stateMachineEntry } from '../../lambda/contract/declared-tool-catalog.js';
import { ExpressWrapper } from './express-wrapper.js';
import type { McpToolProps } from '../props/mcp-task-endpoint-props.js';
import { durableFunctionTarget, type DurableFunctionTarget } from './durable-function-target.js';
import {
  bindDurableFunction,
  bindTaskStateMachine,
  grantDurableStart,
  grantSyncRuns,
  type ToolBindingParts,
} from './tool-bindings.js';
import { workflowArnOf } from './tool-executions.js';
import { stateMachineTypeOf, toolProblems, type ToolEnvironment } from './tool-problems.js';

export interface ToolRegistrationsProps {
  /** The endpoint's tools, in registration order: appended to here, read by the declared tool catalog. */
  readonly tools: McpToolProps[];
  /** Per tool, in the same order: its state machine entry in the declared tool catalog (appended to here). */
  readonly machineEntries: string[];
  readonly parts: ToolBindingParts;
  /** Where the endpoint runs: a registered machine must be in the same account and region. */
  readonly environment: ToolEnvironment;
  /** What an EXPRESS tool's wrapper shares with the endpoint's own resources. */
  readonly wrapperSettings: {
    readonly tracing: boolean;
    readonly logRetention: logs.RetentionDays;
    readonly removalPolicy: RemovalPolicy;
  };
}

export class ToolRegistrations {
  /** The STANDARD wrapper made for each EXPRESS tool, by tool name. */
  readonly wrappers: Record<string, ExpressWrapper> = {};
  /** One status rule per machine that runs tasks (a STANDARD tool's own, or a wrapper) and per durable function. */
  readonly rules: events.Rule[] = [];
  private readonly boundMachines = new Set<string>();

  /** `scope`: the endpoint, under which the wrappers and rules are made. */
  constructor(
    private readonly scope: Construct,
    private readonly props: ToolRegistrationsProps,
  ) {}

  /**
   * Registers the tool. A STANDARD machine runs its tasks itself. An EXPRESS machine gets a STANDARD wrapper that runs
   * it for tasks, and the MCP function may run it synchronously for plain calls. A duplicate or malformed registration
   * is only recorded: it fails synth with the others (see {@link problems}), where binding it now would fail alone.
   */
  add(tool: McpToolProps): void {
    const { tools, machineEntries, environment } = this.props;
    const duplicate = tools.some((known) => known.name === tool.name);
    tools.push(tool);
    if (duplicate || toolProblems([tool], environment).length > 0) {
      machineEntries.push(workflowArnOf(tool));
      return;
    }
    if (tool.durableFunction !== undefined) {
      this.addDurable(tool.name, durableFunctionTarget(tool.durableFunction)!);
      return;
    }
    const machine =
      typeof tool.stateMachine === 'string'
        ? sfn.StateMachine.fromStateMachineArn(this.scope, `Machine-${tool.name}`, tool.stateMachine)
        : tool.stateMachine!;
    if (stateMachineTypeOf(tool) === sfn.StateMachineType.STANDARD) {
      this.bindOnce(machine, tool.name);
      machineEntries.push(stateMachineEntry(machine.stateMachineArn));
      return;
    }
    const wrapper = new ExpressWrapper(this.scope, `ExpressWrapper-${tool.name}`, {
      expressStateMachine: machine,
      toolName: tool.name,
      ...this.props.wrapperSettings,
    });
    this.wrappers[tool.name] = wrapper;
    this.bindOnce(wrapper.stateMachine, tool.name);
    grantSyncRuns(this.props.parts, machine);
    machineEntries.push(stateMachineEntry(wrapper.stateMachine.stateMachineArn, machine.stateMachineArn));
  }

  /** Every problem with the registered tools, for synth. */
  problems(): string[] {
    return toolProblems(this.props.tools, this.props.environment);
  }

  /**
   * A durable function tool: its entry is the version's or alias's ARN, which the MCP function may invoke; the
   * function's executions are granted and followed once, however many tools share it.
   */
  private addDurable(toolName: string, target: DurableFunctionTarget): void {
    grantDurableStart(this.props.parts, target);
    this.props.machineEntries.push(target.qualifiedArn);
    const key = JSON.stringify(Stack.of(this.scope).resolve(target.unqualifiedArn));
    if (this.boundMachines.has(key)) return;
    this.boundMachines.add(key);
    this.rules.push(bindDurableFunction(this.scope, this.props.parts, target, toolName));
  }

  private bindOnce(machine: sfn.IStateMachine, toolName: string): void {
    const key = JSON.stringify(Stack.of(this.scope).resolve(machine.stateMachineArn));
    if (this.boundMachines.has(key)) return;
    this.boundMachines.add(key);
    this.rules.push(bindTaskStateMachine(this.scope, this.props.parts, machine, toolName));
  }
}
