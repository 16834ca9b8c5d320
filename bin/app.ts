// The CDK app: the example tools behind one MCP task endpoint, checked by cdk-nag's AWS Solutions rules at synth.
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ExampleToolsStack } from '../lib/example-tools-stack.js';

const app = new App();
new ExampleToolsStack(app, 'McpTasks', {
  description: 'MCP tasks on AWS: Step Functions state machines as MCP tools (example tools)',
  // Unset: an environment-agnostic template that synthesizes offline; `cdk deploy` uses the CLI's account and region.
  env: { account: process.env['CDK_DEFAULT_ACCOUNT'], region: process.env['CDK_DEFAULT_REGION'] },
});
// cdk-nag 3 runs as a policy validation plugin (its 2.x Aspects form crashes on this CDK version).
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
