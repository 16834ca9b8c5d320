// The CDK app: the example tools behind one MCP task endpoint, checked by cdk-nag's AWS Solutions rules at synth.
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ExampleToolsStack } from './example-tools-stack.js';

const app = new App();
// `cdk deploy -c createApiGatewayAccountRole=false` where the account already has API Gateway's logging role.
const accountRole = app.node.tryGetContext('createApiGatewayAccountRole') as string | boolean | undefined;
// `cdk deploy -c discoverTools=true`: also the account's machines tagged mcp:tool=true as tools, as npm start does.
const discoverTools = String(app.node.tryGetContext('discoverTools') as string | boolean | undefined) === 'true';
new ExampleToolsStack(app, 'McpTasks', {
  ...(discoverTools ? { discoverTools } : {}),
  ...(String(accountRole) === 'false' ? { endpoint: { machineClient: true, createApiGatewayAccountRole: false } } : {}),
  description: 'MCP tasks on AWS: Step Functions state machines as MCP tools (example tools)',
  // The CLI sets CDK_DEFAULT_ACCOUNT and CDK_DEFAULT_REGION from its profile (the region falls back to us-east-1
  // when none is configured), so the template names a concrete region; without credentials the account stays a
  // token and synth still works offline. Set the profile's region before `cdk deploy`.
  env: { account: process.env['CDK_DEFAULT_ACCOUNT'], region: process.env['CDK_DEFAULT_REGION'] },
});
// cdk-nag 3 runs as a policy validation plugin (its 2.x Aspects form crashes on this CDK version).
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
