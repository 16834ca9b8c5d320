// Starts the local stand-ins once for the whole test run and hands their endpoints to the test files.
import type { TestProject } from 'vitest/node';
import { startLocalInfrastructure, type LocalInfrastructure } from '../../local/infrastructure.js';
import type { ToolDefinition } from '../../lambda/tools/tool-definition.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoDbEndpoint: string;
    stepFunctionsEndpoint: string;
    tools: ToolDefinition[];
  }
}

let infrastructure: LocalInfrastructure | undefined;

export async function setup(project: TestProject): Promise<void> {
  infrastructure = await startLocalInfrastructure();
  project.provide('dynamoDbEndpoint', infrastructure.dynamoDbEndpoint);
  project.provide('stepFunctionsEndpoint', infrastructure.stepFunctionsEndpoint);
  project.provide('tools', infrastructure.tools);
}

export async function teardown(): Promise<void> {
  await infrastructure?.stop();
}
