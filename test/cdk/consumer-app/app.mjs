// A CDK app as a team writes it after `npm i mcp-tasks-sfn`: plain JavaScript, its own state machine made with
// aws-cdk-lib's Step Functions constructs, registered as an MCP tool, and cdk-nag's AWS Solutions rules as a
// validation plugin (synth fails on any finding left unacknowledged). Copied into a temporary folder and run
// there by packed-construct.test.ts; argv[2] is the cloud assembly folder. With `--unlogged-machine` it adds a
// machine without logs or tracing, which cdk-nag must refuse: proof that the rules ran.
import { App, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { McpTaskEndpoint } from 'mcp-tasks-sfn';

const app = new App({ outdir: process.argv[2] });
const stack = new Stack(app, 'Consumer', { env: { account: '123456789012', region: 'eu-west-1' } });

const greeting = new sfn.Pass(stack, 'Greet', {
  parameters: { 'greeting.$': "States.Format('Hello, {}!', $.name)" },
});
const greet = new sfn.StateMachine(stack, 'GreetMachine', {
  stateMachineType: sfn.StateMachineType.STANDARD,
  definitionBody: sfn.DefinitionBody.fromChainable(greeting),
  logs: {
    destination: new logs.LogGroup(stack, 'GreetLogs', { removalPolicy: RemovalPolicy.DESTROY }),
    level: sfn.LogLevel.ALL,
  },
  tracingEnabled: true,
});
Validations.of(greet.role).acknowledge({
  id: 'AwsSolutions-IAM5[Resource::*]',
  reason: 'CloudWatch Logs log delivery and X-Ray actions support no resource-level permissions.',
});

const endpoint = new McpTaskEndpoint(stack, 'Mcp', {
  removalPolicy: RemovalPolicy.DESTROY,
  createApiGatewayAccountRole: true,
});
endpoint.addTool({
  name: 'greet',
  description: 'Greets someone by name.',
  inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  stateMachine: greet,
});

if (process.argv.includes('--unlogged-machine')) {
  new sfn.StateMachine(stack, 'UnloggedMachine', {
    definitionBody: sfn.DefinitionBody.fromChainable(new sfn.Pass(stack, 'Nothing')),
  });
}

Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
