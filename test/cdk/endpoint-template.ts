// Test fixture for McpTaskEndpoint as deployed by the example app: the example stack synthesized once per test file,
// from the prebuilt assets, its template, the logical IDs of the endpoint's resources, and helpers that read them.
// useEndpointTemplate() registers the hook that synthesizes it; `stack`, `template`, `outdir` and `ids` are live
// bindings, set before the test file's first test.
import { beforeAll } from 'vitest';
import type { Template } from 'aws-cdk-lib/assertions';
import { EXAMPLE_TOOLS } from '../../lambda/example-tools/example-tool-catalog.js';
import type { ExampleToolsStack } from '../../bin/example-tools-stack.js';
import { exampleStack, logicalId, TEST_ENV } from './cdk-app.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- template properties, read as the assertions need them
export type Resource = { Type: string; Properties: Record<string, any> };
export type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

export let stack: ExampleToolsStack;
export let template: Template;
export let outdir: string;
export let ids: {
  table: string;
  mcpFunction: string;
  askFunction: string;
  statusFunction: string;
  queue: string;
  userPool: string;
  resourceServer: string;
  api: string;
  oauthFunction: string;
  /** The STANDARD example tools' machines, in catalog order. */
  machines: string[];
  /** The EXPRESS example tool's own machine (its plain calls), and the STANDARD wrapper that runs its tasks. */
  express: string;
  wrapper: string;
  /** Every machine that runs tasks: the STANDARD tools' own, then the wrapper. */
  taskMachines: string[];
};

/** Registers the beforeAll hook that synthesizes the example stack; use what it sets inside tests only. */
export function useEndpointTemplate(): void {
  beforeAll(() => {
    // Synthesized once for the whole file, from the prebuilt assets: this is also the proof that synth works offline.
    const synth = exampleStack({ bundling: true });
    ({ stack, template } = synth);
    outdir = synth.app.outdir;
    const { endpoint } = stack;
    ids = {
      table: logicalId(stack, endpoint.table),
      mcpFunction: logicalId(stack, endpoint.mcpFunction),
      askFunction: logicalId(stack, endpoint.askHandler.function),
      statusFunction: logicalId(stack, endpoint.statusSyncFunction),
      queue: logicalId(stack, endpoint.statusDeadLetterQueue),
      userPool: logicalId(stack, endpoint.auth!.userPool as never),
      resourceServer: logicalId(stack, endpoint.auth!.resourceServer),
      api: logicalId(stack, endpoint.restApi.api),
      oauthFunction: logicalId(stack, endpoint.oauthProxy!.function),
      machines: EXAMPLE_TOOLS.map((tool) => logicalId(stack, stack.stateMachines[tool.name]!)),
      express: logicalId(stack, stack.stateMachines['extract_keywords']!),
      wrapper: logicalId(stack, endpoint.expressWrappers['extract_keywords']!.stateMachine),
      taskMachines: [],
    };
    ids.taskMachines = [...ids.machines, ids.wrapper];
  });
}

export function resources(type: string): Record<string, Resource> {
  return template.findResources(type) as Record<string, Resource>;
}

export function resource(id: string): Resource {
  return template.toJSON()['Resources'][id] as Resource;
}

/** The status push rules: every rule but the expiry sweep's schedule (test/cdk/expiry-sweep-schedule.test.ts). */
export function statusRules(): Resource[] {
  return Object.values(resources('AWS::Events::Rule')).filter((rule) => rule.Properties['EventPattern'] !== undefined);
}

export function policyStatements(functionId: string): Statement[] {
  const roleId = (resource(functionId).Properties['Role'] as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  const policies = Object.values(resources('AWS::IAM::Policy')).filter((policy) =>
    (policy.Properties['Roles'] as { Ref: string }[]).some((role) => role.Ref === roleId),
  );
  return policies.flatMap((policy) => policy.Properties['PolicyDocument'].Statement as Statement[]);
}

export const sorted = (actions: string | string[]): string[] => [actions].flat().sort();
/**
 * Whether a statement is about the example's durable function tool (Lambda actions only), whose grants
 * mcp-task-endpoint-durable.test.ts checks: the tests of the state machine tools' grants leave them out.
 */
export const isDurableToolGrant = (statement: { Action: string | string[] }): boolean =>
  sorted(statement.Action).every((action) => action.startsWith('lambda:'));
/** A statement's resources as one sorted list, so a missing or an extra resource both fail the comparison. */
export const sortedResources = (resource: unknown): unknown[] =>
  [resource].flat().sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
export const executionsOf = (machineId: string) => ({
  'Fn::Join': [
    '',
    [
      `arn:aws:states:${TEST_ENV.region}:${TEST_ENV.account}:execution:`,
      { 'Fn::GetAtt': [machineId, 'Name'] },
      ':task-*',
    ],
  ],
});
