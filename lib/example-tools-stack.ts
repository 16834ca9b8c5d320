// The example deployment: the example tools' state machines (the ASL files and Lambda step handlers the local stack
// runs) registered as MCP tools on one McpTaskEndpoint, with the outputs a client needs to connect.
import { Aws, CfnOutput, Fn, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { ASK_STEP, EXAMPLE_TOOLS } from '../lambda/example-tools/catalog.js';
import { toolDescription, type StateMachineTool } from '../lambda/tools/state-machine-tool.js';
import { HandlerFunction } from './handler-function.js';
import { McpTaskEndpoint } from './mcp-task-endpoint.js';
import type { McpTaskEndpointProps } from './mcp-task-endpoint-props.js';

export interface ExampleToolsStackProps extends StackProps {
  /** Passed to the endpoint; tools are the example tools. @default - the endpoint's defaults, plus a machine client */
  readonly endpoint?: Omit<McpTaskEndpointProps, 'tools'>;
}

export class ExampleToolsStack extends Stack {
  public readonly endpoint: McpTaskEndpoint;
  /** The example tools' state machines, by tool name. */
  public readonly stateMachines: Readonly<Record<string, sfn.StateMachine>>;

  constructor(scope: Construct, id: string, props: ExampleToolsStackProps = {}) {
    super(scope, id, props);
    const endpointProps = props.endpoint ?? { machineClient: true };
    const tracing = endpointProps.tracing ?? false;
    const removalPolicy = endpointProps.removalPolicy ?? RemovalPolicy.RETAIN;
    this.endpoint = new McpTaskEndpoint(this, 'McpTasks', endpointProps);
    const machines: Record<string, sfn.StateMachine> = {};
    for (const tool of EXAMPLE_TOOLS) {
      machines[tool.name] = this.exampleStateMachine(tool, tracing, removalPolicy);
      this.endpoint.addTool({ ...toolDescription(tool), stateMachine: machines[tool.name]! });
    }
    this.stateMachines = machines;
    this.outputs();
  }

  /** The tool's ASL as the local stack runs it, with each `${Placeholder}` bound to the ARN of its own function. */
  private exampleStateMachine(tool: StateMachineTool, tracing: boolean, removalPolicy: RemovalPolicy): sfn.StateMachine {
    const id = pascalCase(tool.name);
    const functions = Object.fromEntries(
      Object.entries(tool.lambdaSteps).map(([placeholder, step]) => [
        placeholder,
        // The ask step is the endpoint's own function (it needs the task table), shared by every tool that asks.
        step.functionName === ASK_STEP.functionName
          ? this.endpoint.askHandler
          : new HandlerFunction(this, `${id}${pascalCase(step.functionName)}`, { entry: step.entry, description: `Step ${step.functionName} of tool ${tool.name}`, tracing, removalPolicy }),
      ]),
    );
    // Vended-logs prefix: Step Functions then needs no growing account-wide CloudWatch Logs resource policy. The
    // suffix (the stack ID's UUID) is new with each creation of the stack, so a retained group from a destroyed
    // stack never collides with the next deploy.
    const logGroup = new logs.LogGroup(this, `${id}Logs`, {
      logGroupName: `/aws/vendedlogs/states/${this.stackName}-${id}-${Fn.select(2, Fn.split('/', Aws.STACK_ID))}`,
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy,
    });
    const machine = new sfn.StateMachine(this, id, {
      comment: tool.description,
      stateMachineType: sfn.StateMachineType.STANDARD,
      definitionBody: sfn.DefinitionBody.fromFile(tool.definitionPath),
      definitionSubstitutions: Object.fromEntries(Object.entries(functions).map(([placeholder, handler]) => [placeholder, handler.function.functionArn])),
      logs: { destination: logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
      tracingEnabled: tracing,
    });
    // Only the unqualified ARN the ASL calls (grantInvoke would add every version and alias, `<fn>:*`).
    iam.Grant.addToPrincipal({ grantee: machine, actions: ['lambda:InvokeFunction'], resourceArns: Object.values(functions).map((handler) => handler.function.functionArn) });
    Validations.of(machine.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'CloudWatch Logs log-delivery actions (and X-Ray, when tracing) support no resource-level permissions.',
    });
    if (!tracing) Validations.of(machine).acknowledge({ id: 'AwsSolutions-SF2', reason: 'X-Ray is opt-in (the endpoint tracing prop), so that a deployment costs nothing per request by default.' });
    return machine;
  }

  private outputs(): void {
    const { endpoint } = this;
    new CfnOutput(this, 'McpUrl', { value: endpoint.mcpUrl, description: 'MCP endpoint (Streamable HTTP)' });
    const auth = endpoint.auth;
    if (auth === undefined) return;
    new CfnOutput(this, 'UserPoolId', { value: auth.userPool.userPoolId });
    new CfnOutput(this, 'InteractiveClientId', { value: auth.userPoolClient.userPoolClientId, description: 'Public client (authorization code + PKCE)' });
    if (auth.machineClient) new CfnOutput(this, 'MachineClientId', { value: auth.machineClient.userPoolClientId, description: 'Confidential client (client credentials)' });
    new CfnOutput(this, 'OAuthScope', { value: auth.scope });
    if (auth.domain) new CfnOutput(this, 'TokenEndpoint', { value: `${auth.domain.baseUrl()}/oauth2/token` });
    if (endpoint.restApi.resourceMetadataUrl) new CfnOutput(this, 'ResourceMetadataUrl', { value: endpoint.restApi.resourceMetadataUrl });
  }
}

function pascalCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== '')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}
