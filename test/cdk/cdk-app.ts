// Test support: CDK apps configured like `cdk synth` (cdk.json's feature flags), with bundling only when asked for.
import { readFileSync } from 'node:fs';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ExampleToolsStack, type ExampleToolsStackProps } from '../../bin/example-tools-stack.js';
import { AWS_CUSTOM_RESOURCE_PROVIDER_ID } from '../../lib/operations/nag-acknowledgements.js';
import { DECLARED_CATALOG_ATTRIBUTE, unpackToolCatalog } from '../../lambda/contract/declared-tool-catalog.js';
import type { ToolDefinition } from '../../lambda/contract/tool-definition.js';
import type { DiscoverToolsProps } from '../../lib/tools/tool-discovery.js';

const CDK_JSON = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
  context: Record<string, unknown>;
};

/** A concrete environment, so ARNs in the template carry a known region and account. */
export const TEST_ENV = { account: '123456789012', region: 'eu-west-1' } as const;

/**
 * An app with the project's feature flags. The project's functions deploy prebuilt assets (built once per test run
 * by the global setup), so `bundling` changes nothing for them; it still skips any asset that bundles at synth.
 */
export function testApp(options: { bundling?: boolean } = {}): App {
  return new App({ context: { ...CDK_JSON.context, ...(options.bundling ? {} : { 'aws:cdk:bundling-stacks': [] }) } });
}

/** A stack to put constructs under test in. */
export function testStack(app: App = testApp(), id = 'TestStack'): Stack {
  return new Stack(app, id, { env: TEST_ENV });
}

/** `discover`: the endpoint also discovers the account's machines with this selection. */
export function exampleStack(
  options: { bundling?: boolean; props?: ExampleToolsStackProps; discover?: DiscoverToolsProps } = {},
): {
  app: App;
  stack: ExampleToolsStack;
  template: Template;
} {
  const app = testApp(options);
  const stack = new ExampleToolsStack(app, 'McpTasks', { env: TEST_ENV, ...options.props });
  if (options.discover) stack.endpoint.discoverTools(options.discover);
  return { app, stack, template: Template.fromStack(stack) };
}

/** The logical ID of a construct's CloudFormation resource, as `Ref`s in the template name it. */
export function logicalId(stack: Stack, construct: { node: { defaultChild?: unknown } }): string {
  return stack.getLogicalId(construct.node.defaultChild as Parameters<Stack['getLogicalId']>[0]);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- template properties, read as the assertions need them
export type TemplateResource = { Type: string; Properties: Record<string, any> };
export type Statement = { Effect: string; Action: string[]; Resource: unknown[] };

/** Every IAM statement on the role of the function `functionId`, with actions sorted and resources as arrays. */
export function statementsOf(template: Template, functionId: string): Statement[] {
  const resources = template.toJSON()['Resources'] as Record<string, TemplateResource>;
  const roleId = (resources[functionId]!.Properties['Role'] as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  return Object.values(resources)
    .filter(
      (candidate) =>
        candidate.Type === 'AWS::IAM::Policy' &&
        (candidate.Properties['Roles'] as { Ref: string }[]).some((role) => role.Ref === roleId),
    )
    .flatMap((policy) => policy.Properties['PolicyDocument'].Statement as Statement[])
    .map((statement) => ({
      ...statement,
      Action: [statement.Action].flat().sort(),
      Resource: [statement.Resource].flat(),
    }));
}

/**
 * Whether a template resource belongs to CDK's AwsCustomResource provider (its function, role, policy and log group),
 * which writes the tool catalog and reads the OAuth proxy's Cognito client secret at deployment: CDK's code, not one
 * of this project's handlers.
 */
export function isCustomResourceProvider(logicalId: string): boolean {
  return logicalId.startsWith(AWS_CUSTOM_RESOURCE_PROVIDER_ID);
}

/** The template's resources of `type` that this project makes, CDK's AwsCustomResource provider left out. */
export function ownResources(template: Template, type: string): Record<string, TemplateResource> {
  return Object.fromEntries(
    Object.entries(template.findResources(type) as Record<string, TemplateResource>).filter(
      ([id]) => !isCustomResourceProvider(id),
    ),
  );
}

/**
 * The IAM actions behind the commands a store module sends (a path from the package root): the document client's, and
 * the low-level client's GetItem the task store reads by; a transaction needs its members' actions, nothing of its own.
 */
export function dynamoDbActionsOf(storeModule: string): string[] {
  const source = readFileSync(new URL(`../../${storeModule}`, import.meta.url), 'utf8');
  const byCommand: Record<string, string> = {
    GetCommand: 'GetItem',
    GetItemCommand: 'GetItem',
    PutCommand: 'PutItem',
    UpdateCommand: 'UpdateItem',
    DeleteCommand: 'DeleteItem',
    QueryCommand: 'Query',
    ScanCommand: 'Scan',
  };
  const byTransactItem: Record<string, string> = {
    Put: 'PutItem',
    Update: 'UpdateItem',
    Delete: 'DeleteItem',
    ConditionCheck: 'ConditionCheckItem',
  };
  const actions = new Set<string>();
  for (const [, command] of source.matchAll(/new (\w+Command)\(/g)) {
    if (command !== 'TransactWriteCommand') actions.add(byCommand[command!] ?? `unmapped ${command}`);
    // A transaction member is written `{ Update: params }` or `Update: { ... }`.
    else
      for (const [, inline, literal] of source.matchAll(
        /\{ (Put|Update|Delete|ConditionCheck): |\b(Put|Update|Delete|ConditionCheck): \{/g,
      ))
        actions.add(byTransactItem[(inline ?? literal)!]!);
  }
  return [...actions].map((action) => `dynamodb:${action}`);
}

/** A CloudFormation value as text, with `${LogicalId}` and `${LogicalId.Attribute}` where CloudFormation fills in. */
export function joined(value: unknown): string {
  if (typeof value === 'string') return value;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a template's JSON, walked node by node
  const node = value as Record<string, any>;
  if (node['Fn::Join']) return (node['Fn::Join'][1] as unknown[]).map(joined).join(node['Fn::Join'][0]);
  if (node['Ref']) return `\${${node['Ref']}}`;
  if (node['Fn::GetAtt']) return `\${${node['Fn::GetAtt'].join('.')}}`;
  throw new Error(`cannot render ${JSON.stringify(value)}`);
}

/** One AWS SDK call of an AwsCustomResource, as CloudFormation hands it over, tokens rendered by {@link joined}. */
export interface SdkCall {
  readonly service: string;
  readonly action: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the call's parameters, read as the assertions need
  readonly parameters: Record<string, any>;
  readonly physicalResourceId?: { readonly id: string };
}

/** The declared tool catalog's custom resource (the one that puts an item) among a template's resources. */
export function declaredCatalogResource(resources: Record<string, TemplateResource & { DependsOn?: string[] }>): {
  readonly id: string;
  readonly create: SdkCall;
  readonly update: SdkCall;
  readonly delete: SdkCall;
} {
  const found = Object.entries(resources).filter(
    ([, resource]) => resource.Type === 'Custom::AWS' && joined(resource.Properties['Create']).includes('"PutItem"'),
  );
  if (found.length !== 1) throw new Error(`expected one catalog custom resource, found ${found.length}`);
  const [id, resource] = found[0]!;
  const call = (name: string) => JSON.parse(joined(resource.Properties[name])) as SdkCall;
  return { id, create: call('Create'), update: call('Update'), delete: call('Delete') };
}

/** The tools a catalog PutItem writes, unpacked as the MCP function reads them: state machines as `${LogicalId}`. */
export function declaredCatalogTools(put: SdkCall): ToolDefinition[] {
  const item = put.parameters['Item'] as Record<string, { S: string }>;
  return unpackToolCatalog(
    item[DECLARED_CATALOG_ATTRIBUTE.tools]!.S,
    item[DECLARED_CATALOG_ATTRIBUTE.stateMachines]!.S,
  );
}
