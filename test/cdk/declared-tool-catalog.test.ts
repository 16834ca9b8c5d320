// The example app's declared tool catalog: one task table item, put at deploy time by an AwsCustomResource with every
// tool and its state machines (CloudFormation filling in the ARNs), deleted with its version, written before the MCP
// function that reads it, by a provider that may do nothing else. The EXPRESS example tool is in it, with its wrapper.
import { Template } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { describe, expect, it } from 'vitest';
import { DECLARED_CATALOG_KEY_PREFIX } from '../../lambda/contract/declared-tool-catalog.js';
import { ENV } from '../../lambda/contract/environment-names.js';
import { PARTITION_KEY } from '../../lambda/contract/task-table-schema.js';
import { EXAMPLE_EXPRESS_TOOLS, EXAMPLE_TOOLS } from '../../lambda/example-tools/example-tool-catalog.js';
import { EXAMPLE_DURABLE_TOOLS } from '../../lambda/example-tools/example-durable-tools.js';
import { McpTaskEndpoint } from '../../lib/mcp-task-endpoint.js';
import {
  declaredCatalogResource,
  declaredCatalogTools,
  isCustomResourceProvider,
  logicalId,
  testStack,
  type SdkCall,
} from './cdk-app.js';
import { ids, resource, resources, stack, template, useEndpointTemplate } from './endpoint-template.js';
import { rolesAllowed } from './oauth-proxy-template.js';

useEndpointTemplate();

const catalog = () => declaredCatalogResource(template.toJSON()['Resources']);
const keyOf = (call: SdkCall) => call.physicalResourceId?.id;

describe('the declared tool catalog', () => {
  it('puts every tool into the task table at deploy time, each with its state machine ARN, in registration order', () => {
    const { create } = catalog();
    expect(create).toMatchObject({
      service: 'DynamoDB',
      action: 'PutItem',
      parameters: { TableName: `\${${ids.table}}` },
    });
    const tools = declaredCatalogTools(create);
    expect(tools.map((tool) => tool.name)).toEqual(
      [...EXAMPLE_TOOLS, ...EXAMPLE_EXPRESS_TOOLS, ...EXAMPLE_DURABLE_TOOLS].map((tool) => tool.name),
    );
    expect(tools.slice(0, EXAMPLE_TOOLS.length).map((tool) => tool.stateMachineArn)).toEqual(
      ids.machines.map((id) => `\${${id}}`),
    );
    expect(tools.find((tool) => tool.name === 'text_stats')).toMatchObject({
      description: EXAMPLE_TOOLS.find((tool) => tool.name === 'text_stats')!.description,
      inputSchema: EXAMPLE_TOOLS.find((tool) => tool.name === 'text_stats')!.inputSchema,
    });
  });

  it('serves the EXPRESS example tool: its wrapper runs its tasks, its own machine its plain calls', () => {
    const wrapper = stack.endpoint.expressWrappers['extract_keywords'];
    expect(wrapper).toBeDefined();
    expect(resource(logicalId(stack, stack.stateMachines['extract_keywords']!)).Properties['StateMachineType']).toBe(
      'EXPRESS',
    );
    expect(declaredCatalogTools(catalog().create).find((tool) => tool.name === 'extract_keywords')).toMatchObject({
      stateMachineArn: `\${${logicalId(stack, wrapper!.stateMachine)}}`,
      expressStateMachineArn: `\${${logicalId(stack, stack.stateMachines['extract_keywords']!)}}`,
    });
  });

  it('keys the item by a hash of the catalog, the same key on update and the one the MCP function is told', () => {
    const { create, update } = catalog();
    expect(keyOf(create)).toMatch(new RegExp(`^${DECLARED_CATALOG_KEY_PREFIX}[0-9a-f]{64}$`));
    expect(create.parameters['Item'][PARTITION_KEY]).toEqual({ S: keyOf(create) });
    expect(update).toEqual(create);
    expect(resource(ids.mcpFunction).Properties['Environment'].Variables[ENV.toolCatalogItem]).toBe(keyOf(create));
  });

  it('deletes its own key on delete, so that an update’s clean-up removes the previous version’s item', () => {
    const { create, delete: onDelete } = catalog();
    expect(onDelete).toMatchObject({
      service: 'DynamoDB',
      action: 'DeleteItem',
      parameters: { TableName: `\${${ids.table}}`, Key: { [PARTITION_KEY]: { S: keyOf(create) } } },
    });
  });

  it('uses the SDK of the provider’s runtime, installing none', () => {
    expect(resource(catalog().id).Properties['InstallLatestAwsSdk']).toBe(false);
  });

  it('may only put and delete items of the task table', () => {
    const policy = stack.endpoint.toolCatalog.resource.node.findChild('CustomResourcePolicy');
    const document = resource(logicalId(stack, policy)).Properties['PolicyDocument'];
    expect(document.Statement).toEqual([
      {
        Effect: 'Allow',
        Action: ['dynamodb:DeleteItem', 'dynamodb:PutItem'],
        Resource: { 'Fn::GetAtt': [ids.table, 'Arn'] },
      },
    ]);
  });

  it('is written before the MCP function is created or updated', () => {
    expect(template.toJSON()['Resources'][ids.mcpFunction].DependsOn).toContain(catalog().id);
  });

  it('is the one item-writing custom resource of the stack', () => {
    const puts = Object.values(resources('Custom::AWS')).filter((each) =>
      JSON.stringify(each.Properties['Create']).includes('PutItem'),
    );
    expect(puts).toHaveLength(1);
  });
});

describe('the declared tool catalog on a table with a customer managed key', () => {
  it('lets the provider write the item under the key', () => {
    const keyed = testStack();
    const key = new kms.Key(keyed, 'Key', { enableKeyRotation: true });
    new McpTaskEndpoint(keyed, 'Endpoint', { openEndpoint: true, tableEncryptionKey: key });
    const allowed = rolesAllowed(Template.fromStack(keyed), 'kms:Decrypt', logicalId(keyed, key));
    expect(allowed.filter(isCustomResourceProvider)).toHaveLength(1);
  });
});

describe('the declared tool catalog’s key', () => {
  const keyOfStack = (machineName?: string, description = 'Reports.') => {
    const stack = testStack();
    const machine = new sfn.StateMachine(stack, 'Report', {
      definitionBody: sfn.DefinitionBody.fromChainable(new sfn.Pass(stack, 'ReportPass')),
      ...(machineName ? { stateMachineName: machineName } : {}),
    });
    new McpTaskEndpoint(stack, 'Endpoint', {
      openEndpoint: true,
      tools: [{ name: 'report', description, inputSchema: { type: 'object' }, stateMachine: machine }],
    });
    return keyOf(declaredCatalogResource(Template.fromStack(stack).toJSON()['Resources']).create);
  };

  it('is the same for the same catalog, and new when a description changes', () => {
    expect(keyOfStack()).toBe(keyOfStack());
    expect(keyOfStack(undefined, 'Reports, now nightly.')).not.toBe(keyOfStack());
  });

  it('is new when a machine is replaced under the same logical ID (a new name, so a new ARN)', () => {
    expect(keyOfStack('report-v2')).not.toBe(keyOfStack('report-v1'));
  });
});
