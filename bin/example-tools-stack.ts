// The example deployment: the example tools' state machines (the ASL files and Lambda step handlers the local stack
// runs), STANDARD and EXPRESS, and the durable function tool's function, registered as MCP tools on one
// McpTaskEndpoint, with the outputs a client needs to connect.
import { Aws, CfnOutput, Duration, Fn, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { ASK_STEP, EXAMPLE_EXPRESS_TOOLS, EXAMPLE_TOOLS } from '../lambda/example-tools/example-tool-catalog.js';
import { EXAMPLE_DURABLE_TOOLS, type DurableFunctionTool } from '../lambda/example-tools/example-durable-tools.js';
import { EXAMPLE_DISCOVERY } from '../lambda/example-tools/example-discovery.js';
import { toolDescription, type StateMachineTool } from '../lambda/tools/state-machine-tool.js';
import { isProgressStep } from '../lambda/progress/progress-lambda-step.js';
import { HandlerFunction } from '../lib/handlers/handler-function.js';
import { McpTaskEndpoint } from '../lib/mcp-task-endpoint.js';
import type { McpTaskEndpointProps } from '../lib/props/mcp-task-endpoint-props.js';

export interface ExampleToolsStackProps extends StackProps {
  /**
   * Passed to the endpoint; tools are the example tools. `createApiGatewayAccountRole` is on unless set to false
   * here (see {@link EXAMPLE_ENDPOINT_DEFAULTS}).
   * @default - the endpoint's defaults, plus a machine client
   */
  readonly endpoint?: Omit<McpTaskEndpointProps, 'tools'>;
  /**
   * Also make tools of the account's state machines tagged `mcp:tool=true`, as `npm start` does
   * (`cdk deploy -c discoverTools=true`).
   * @default false
   */
  readonly discoverTools?: boolean;
}

/**
 * What the example deploys beyond the construct's defaults. The API Gateway account role: the stage always writes
 * access logs, which API Gateway can only do through the role set in the account's per-region settings, and a new
 * account has none, so without it the first deploy fails on the stage. The construct leaves that account-wide
 * setting alone by default (a library should not change it quietly); the example, meant to deploy anywhere, sets
 * it. Opt out with `endpoint: { createApiGatewayAccountRole: false }`
 * (`cdk deploy -c createApiGatewayAccountRole=false`)
 * where the account already has one, e.g. one managed by a landing zone.
 */
export const EXAMPLE_ENDPOINT_DEFAULTS = {
  createApiGatewayAccountRole: true,
} as const satisfies Partial<McpTaskEndpointProps>;

export class ExampleToolsStack extends Stack {
  public readonly endpoint: McpTaskEndpoint;
  /** The example tools' state machines, by tool name (an EXPRESS tool's own machine; the endpoint wraps it). */
  public readonly stateMachines: Readonly<Record<string, sfn.StateMachine>>;
  /** The example durable function tools' functions, by tool name (each tool runs its alias `live`). */
  public readonly durableFunctions: Readonly<Record<string, lambda.Function>>;

  constructor(scope: Construct, id: string, props: ExampleToolsStackProps = {}) {
    super(scope, id, props);
    const endpointProps = { ...EXAMPLE_ENDPOINT_DEFAULTS, ...(props.endpoint ?? { machineClient: true }) };
    const tracing = endpointProps.tracing ?? false;
    const removalPolicy = endpointProps.removalPolicy ?? RemovalPolicy.RETAIN;
    this.endpoint = new McpTaskEndpoint(this, 'McpTasks', endpointProps);
    const machines: Record<string, sfn.StateMachine> = {};
    for (const tool of [...EXAMPLE_TOOLS, ...EXAMPLE_EXPRESS_TOOLS]) {
      machines[tool.name] = this.exampleStateMachine(tool, tracing, removalPolicy);
      this.endpoint.addTool({ ...toolDescription(tool), stateMachine: machines[tool.name]! });
    }
    this.stateMachines = machines;
    const durableFunctions: Record<string, lambda.Function> = {};
    for (const tool of EXAMPLE_DURABLE_TOOLS) {
      durableFunctions[tool.name] = this.exampleDurableFunction(tool, tracing, removalPolicy);
      const { functionName: _name, entry: _entry, ...description } = tool;
      this.endpoint.addTool({ ...description, durableFunction: durableFunctions[tool.name]!.addAlias('live') });
    }
    this.durableFunctions = durableFunctions;
    if (props.discoverTools) this.endpoint.discoverTools({ tag: EXAMPLE_DISCOVERY.tag });
    this.outputs();
  }

  /**
   * A durable function tool's function, from the module the local stack runs: durable for up to an hour, its history
   * kept a week, and allowed to record its questions and progress on the endpoint's task table.
   */
  private exampleDurableFunction(
    tool: DurableFunctionTool,
    tracing: boolean,
    removalPolicy: RemovalPolicy,
  ): lambda.Function {
    const handler = new HandlerFunction(this, pascalCase(tool.name), {
      entry: tool.entry,
      description: `Durable function of tool ${tool.name}`,
      durableConfig: { executionTimeout: Duration.hours(1), retentionPeriod: Duration.days(7) },
      timeout: Duration.minutes(1),
      tracing,
      removalPolicy,
    });
    this.endpoint.grantTaskItemWrites(handler.function);
    return handler.function;
  }

  /** The tool's ASL as the local stack runs it, with each `${Placeholder}` bound to the ARN of its own function. */
  private exampleStateMachine(
    tool: StateMachineTool,
    tracing: boolean,
    removalPolicy: RemovalPolicy,
  ): sfn.StateMachine {
    const id = pascalCase(tool.name);
    const functions = Object.fromEntries(
      Object.entries(tool.lambdaSteps).map(([placeholder, step]) => [
        placeholder,
        // The progress and ask steps are the endpoint's own functions (they need the task table), shared by every tool.
        isProgressStep(step)
          ? this.endpoint.progressHandler
          : step.functionName === ASK_STEP.functionName
            ? this.endpoint.askHandler
            : new HandlerFunction(this, `${id}${pascalCase(step.functionName)}`, {
                entry: step.entry,
                description: `Step ${step.functionName} of tool ${tool.name}`,
                tracing,
                removalPolicy,
              }),
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
      // An EXPRESS tool's tasks run in the STANDARD wrapper the endpoint adds; its plain calls run it directly.
      stateMachineType: tool.type === 'EXPRESS' ? sfn.StateMachineType.EXPRESS : sfn.StateMachineType.STANDARD,
      definitionBody: sfn.DefinitionBody.fromFile(tool.definitionPath),
      definitionSubstitutions: Object.fromEntries(
        Object.entries(functions).map(([placeholder, handler]) => [placeholder, handler.function.functionArn]),
      ),
      logs: { destination: logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
      tracingEnabled: tracing,
    });
    // Only the unqualified ARN the ASL calls (grantInvoke would add every version and alias, `<fn>:*`).
    iam.Grant.addToPrincipal({
      grantee: machine,
      actions: ['lambda:InvokeFunction'],
      resourceArns: Object.values(functions).map((handler) => handler.function.functionArn),
    });
    Validations.of(machine.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'CloudWatch Logs log-delivery actions (and X-Ray, when tracing) support no resource-level permissions.',
    });
    if (!tracing)
      Validations.of(machine).acknowledge({
        id: 'AwsSolutions-SF2',
        reason:
          'X-Ray is opt-in (the endpoint tracing prop), so that a deployment costs nothing per request by default.',
      });
    return machine;
  }

  private outputs(): void {
    const { endpoint } = this;
    new CfnOutput(this, 'McpUrl', {
      value: endpoint.mcpUrl,
      description:
        'MCP endpoint (Streamable HTTP): paste it into your MCP client (docs/deploy.md, Connect your client)',
    });
    const auth = endpoint.auth;
    if (endpoint.authorizationServerUrl) {
      new CfnOutput(this, 'AuthorizationServerUrl', {
        value: endpoint.authorizationServerUrl,
        description: endpoint.oauthProxy
          ? "The endpoint's own OAuth authorization server (issuer), in front of the user pool"
          : 'The OAuth authorization server (issuer): the Cognito user pool',
      });
    }
    new CfnOutput(this, 'InspectorCommand', {
      value: inspectorCommand(endpoint.mcpUrl, auth !== undefined),
      description: auth
        ? "Lists the tools with MCP Inspector's CLI; set TOKEN first (TokenCommand, with a machine client)"
        : "Lists the tools with MCP Inspector's CLI",
    });
    if (auth === undefined) return;
    new CfnOutput(this, 'UserPoolId', { value: auth.userPool.userPoolId });
    if (auth.userPoolClient) {
      new CfnOutput(this, 'InteractiveClientId', {
        value: auth.userPoolClient.userPoolClientId,
        description: 'Public client (authorization code + PKCE)',
      });
    }
    if (auth.machineClient)
      new CfnOutput(this, 'MachineClientId', {
        value: auth.machineClient.userPoolClientId,
        description: 'Confidential client (client credentials)',
      });
    new CfnOutput(this, 'OAuthScope', { value: auth.scope });
    if (auth.domain) {
      const tokenEndpoint = `${auth.domain.baseUrl()}/oauth2/token`;
      new CfnOutput(this, 'TokenEndpoint', { value: tokenEndpoint });
      if (auth.machineClient) {
        new CfnOutput(this, 'TokenCommand', {
          value: tokenCommand({
            userPoolId: auth.userPool.userPoolId,
            clientId: auth.machineClient.userPoolClientId,
            scope: auth.scope,
            tokenEndpoint,
          }),
          description:
            'Sets TOKEN to an access token of the machine client (client credentials); needs the AWS ' +
            'CLI, curl and node',
        });
      }
    }
    if (endpoint.restApi.resourceMetadataUrl)
      new CfnOutput(this, 'ResourceMetadataUrl', { value: endpoint.restApi.resourceMetadataUrl });
    new CfnOutput(this, 'TaskTableName', {
      value: endpoint.table.tableName,
      description: "The task table, for operators' commands: mcp-tasks discovery --table, the AWS CLI",
    });
  }
}

/**
 * `npx @modelcontextprotocol/inspector --cli <url> --transport http --method tools/list`, in the modern era, with
 * the bearer token from $TOKEN when the endpoint has auth (Inspector's `--header "Name: Value"`).
 */
export function inspectorCommand(mcpUrl: string, withToken: boolean): string {
  const header = withToken ? ' --header "Authorization: Bearer $TOKEN"' : '';
  return (
    `npx @modelcontextprotocol/inspector --cli ${mcpUrl} --transport http --protocol-era ` +
    `modern --method tools/list${header}`
  );
}

/**
 * A client-credentials token for the machine client: its secret read with the AWS CLI, then Cognito's token endpoint.
 */
function tokenCommand(client: { userPoolId: string; clientId: string; scope: string; tokenEndpoint: string }): string {
  const secret =
    `$(aws cognito-idp describe-user-pool-client --region ${Aws.REGION} --user-pool-id ` +
    `${client.userPoolId} --client-id ${client.clientId} --query UserPoolClient.ClientSecret ` +
    `--output text)`;
  return (
    `export TOKEN=$(curl -s -u "${client.clientId}:${secret}" -d grant_type=client_credentials ` +
    `-d scope=${client.scope} ${client.tokenEndpoint} | node -pe ` +
    `'JSON.parse(require("fs").readFileSync(0)).access_token')`
  );
}

function pascalCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== '')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}
