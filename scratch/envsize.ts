import { App, Stack } from 'aws-cdk-lib';
import { ExampleToolsStack } from '../bin/example-tools-stack.js';
const app = new App();
const s = new ExampleToolsStack(app, 'X', {});
const fn = s.endpoint.mcpFunction;
const cfn = fn.node.defaultChild as { environment: unknown };
const resolved = Stack.of(fn).resolve(cfn.environment) as { variables: Record<string, unknown> };
for (const [k, v] of Object.entries(resolved.variables))
  console.log(k, JSON.stringify(v).length, JSON.stringify(v).slice(0, 150));
