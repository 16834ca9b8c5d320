// Starts the local stand-ins once for the whole test run and hands their endpoints to the test files.
import type { TestProject } from 'vitest/node';
import { EXAMPLE_TOOLS } from '../../lambda/example-tools/catalog.js';
import type { ToolDefinition } from '../../lambda/tools/tool-definition.js';
import { startLocalInfrastructure, type LocalInfrastructure } from '../../local/infrastructure.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoDbEndpoint: string;
    stepFunctionsEndpoint: string;
    /** The example tools (what `npm start` serves). */
    tools: ToolDefinition[];
  }
}

let infrastructure: LocalInfrastructure<'example'> | undefined;

export async function setup(project: TestProject): Promise<void> {
  infrastructure = await startLocalInfrastructure({ example: EXAMPLE_TOOLS });
  project.provide('dynamoDbEndpoint', infrastructure.dynamoDbEndpoint);
  project.provide('stepFunctionsEndpoint', infrastructure.stepFunctionsEndpoint);
  project.provide('tools', infrastructure.tools.example);
}

export async function teardown(): Promise<void> {
  await infrastructure?.stop();
}
