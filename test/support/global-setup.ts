// Starts the local stand-ins once for the whole test run and hands their endpoints to the test files.
import type { TestProject } from 'vitest/node';
import { CONFORMANCE_TOOLS } from '../../lambda/conformance-tools/conformance-tool-catalog.js';
import { EXAMPLE_EXPRESS_TOOLS, EXAMPLE_TOOLS } from '../../lambda/example-tools/example-tool-catalog.js';
import { EXAMPLE_DURABLE_TOOLS } from '../../lambda/example-tools/example-durable-tools.js';
import type { ToolDefinition } from '../../lambda/contract/tool-definition.js';
import { startLocalInfrastructure, type LocalInfrastructure } from '../../local/infrastructure.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoDbEndpoint: string;
    stepFunctionsEndpoint: string;
    /** The local runner of durable functions, running the durable example tools. */
    lambdaEndpoint: string;
    /** The durable function example tools (`npm start` serves them beside the example tools). */
    durableTools: ToolDefinition[];
    /** The example tools (what `npm start` serves). */
    tools: ToolDefinition[];
    /** The conformance suite's fixture tools (what `npm run start:conformance` serves). */
    conformanceTools: ToolDefinition[];
    /** The EXPRESS example tools (`npm start` serves them beside the example tools). */
    expressTools: ToolDefinition[];
    /** The one table the emulator's progress step records on: a test that watches progress serves its tasks from it. */
    progressTableName: string;
  }
}

const PROGRESS_TABLE_NAME = 'tasks-progress';

let infrastructure: LocalInfrastructure<'example' | 'express' | 'durable' | 'conformance'> | undefined;

export async function setup(project: TestProject): Promise<void> {
  // Every catalog on the one emulator, so a test can serve any.
  infrastructure = await startLocalInfrastructure(
    {
      example: EXAMPLE_TOOLS,
      express: EXAMPLE_EXPRESS_TOOLS,
      durable: EXAMPLE_DURABLE_TOOLS,
      conformance: CONFORMANCE_TOOLS,
    },
    { progressTableName: PROGRESS_TABLE_NAME },
  );
  await infrastructure.createTable(PROGRESS_TABLE_NAME);
  project.provide('progressTableName', PROGRESS_TABLE_NAME);
  project.provide('dynamoDbEndpoint', infrastructure.dynamoDbEndpoint);
  project.provide('stepFunctionsEndpoint', infrastructure.stepFunctionsEndpoint);
  project.provide('lambdaEndpoint', infrastructure.lambdaEndpoint!);
  project.provide('durableTools', infrastructure.tools.durable);
  project.provide('tools', infrastructure.tools.example);
  project.provide('conformanceTools', infrastructure.tools.conformance);
  project.provide('expressTools', infrastructure.tools.express);
}

export async function teardown(): Promise<void> {
  await infrastructure?.stop();
}
