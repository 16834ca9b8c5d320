// discoverTools as McpTaskEndpoint deploys it: the refresher with its schedule and its CloudTrail trigger, IAM scoped
// to the selection (never StartExecution on every machine unless asked for), the status rule covering the selected
// machines, the selection refused at synth, and a template that does not change when discovery is not asked for.
import { Duration } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { DISCOVERY_ENV, ENV } from '../../lambda/contract/environment-names.js';
import type { DiscoverToolsProps } from '../../lib/tools/tool-discovery.js';
import { MACHINE_CHANGE_EVENT_NAMES } from '../../lib/tools/tool-discovery.js';
import { exampleStack, joined, logicalId, statementsOf, TEST_ENV, type Statement } from './cdk-app.js';

const ARN = `arn:aws:states:${TEST_ENV.region}:${TEST_ENV.account}`;

type Ids = Record<'refresher' | 'mcp' | 'statusSync' | 'sweep' | 'table', string>;

function discovered(discover: DiscoverToolsProps): { template: Template; ids: Ids } {
  const { stack, template } = exampleStack({ discover });
  const { endpoint } = stack;
  return {
    template,
    ids: {
      refresher: logicalId(stack, endpoint.toolDiscovery!.function),
      mcp: logicalId(stack, endpoint.mcpFunction),
      statusSync: logicalId(stack, endpoint.statusSyncFunction),
      sweep: logicalId(stack, endpoint.expirySweep.function),
      table: logicalId(stack, endpoint.table),
    },
  };
}

/** The statements on `functionId`'s role that grant `action`, their resources as text. */
function grantsOf(
  template: Template,
  functionId: string,
  action: string,
): Array<Statement & { arns: string[]; Condition?: unknown }> {
  return statementsOf(template, functionId)
    .filter((statement) => statement.Action.includes(action))
    .map((statement) => ({ ...statement, arns: statement.Resource.map(joined).sort() }));
}

const BY_PREFIX_AND_TAG = { namePrefix: 'orders-', tag: { key: 'mcp:tool', value: 'true' } } as const;
const TAG_CONDITION = { StringEquals: { 'aws:ResourceTag/mcp:tool': 'true' } };

describe('discoverTools: the refresher', () => {
  const { template, ids } = discovered({ ...BY_PREFIX_AND_TAG, names: ['billing'] });

  it('gives the refresher the table, the selection and the tools written in code', () => {
    const fn = template.toJSON()['Resources'][ids.refresher].Properties;
    expect(fn['Environment'].Variables[ENV.tableName]).toEqual({ Ref: ids.table });
    expect(JSON.parse(fn['Environment'].Variables[DISCOVERY_ENV.selection] as string)).toEqual({
      ...BY_PREFIX_AND_TAG,
      names: ['billing'],
    });
    const reserved = JSON.parse(fn['Environment'].Variables[DISCOVERY_ENV.reservedToolNames] as string) as string[];
    expect(reserved.length).toBeGreaterThan(0);
    expect(fn['Timeout']).toBe(60);
  });

  it('has the MCP function serve the catalog the refresher keeps', () => {
    const variables = template.toJSON()['Resources'][ids.mcp].Properties['Environment'].Variables;
    expect(variables[ENV.discoveredTools]).toBe('true');
  });

  it('runs the refresher every 5 minutes by default, and at the rate asked for', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [ids.refresher, 'Arn'] } })],
    });
    const { template: hourly } = discovered({ ...BY_PREFIX_AND_TAG, refreshRate: Duration.hours(1) });
    hourly.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 hour)' });
  });

  it('runs the refresher when CloudTrail reports a machine created, updated, deleted, tagged or untagged', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['aws.states'],
        'detail-type': ['AWS API Call via CloudTrail'],
        detail: {
          eventSource: ['states.amazonaws.com'],
          eventName: ['CreateStateMachine', 'DeleteStateMachine', 'UpdateStateMachine', 'TagResource', 'UntagResource'],
        },
      },
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [ids.refresher, 'Arn'] } })],
    });
    expect(MACHINE_CHANGE_EVENT_NAMES).toHaveLength(5);
  });

  it('lets the refresher list machines, read only the selected ones, describe schemas and write one item', () => {
    const statements = statementsOf(template, ids.refresher);
    const actions = statements.flatMap((statement) => statement.Action).sort();
    expect(actions).toEqual([
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      'schemas:DescribeSchema',
      'states:DescribeStateMachine',
      'states:ListStateMachines',
      'states:ListTagsForResource',
    ]);
    expect(grantsOf(template, ids.refresher, 'states:ListStateMachines')[0]!.arns).toEqual(['*']);
    const machines = [`${ARN}:stateMachine:billing`, `${ARN}:stateMachine:orders-*`];
    expect(grantsOf(template, ids.refresher, 'states:ListTagsForResource')[0]).toMatchObject({ arns: machines });
    expect(grantsOf(template, ids.refresher, 'states:ListTagsForResource')[0]!.Condition).toBeUndefined();
    expect(grantsOf(template, ids.refresher, 'states:DescribeStateMachine')[0]).toMatchObject({
      arns: machines,
      Condition: TAG_CONDITION,
    });
    expect(grantsOf(template, ids.refresher, 'schemas:DescribeSchema')[0]!.arns).toEqual([
      `arn:aws:schemas:${TEST_ENV.region}:${TEST_ENV.account}:schema/*/*`,
    ]);
    expect(grantsOf(template, ids.refresher, 'dynamodb:PutItem')[0]!.Resource).toEqual([
      { 'Fn::GetAtt': [ids.table, 'Arn'] },
    ]);
  });
});

describe('discoverTools: what the endpoint may do with the selected machines', () => {
  const { template, ids } = discovered(BY_PREFIX_AND_TAG);
  const executions = `${ARN}:execution:orders-*:task-*`;

  it('lets the MCP function start only machines of the prefix that carry the tag', () => {
    const [start] = grantsOf(template, ids.mcp, 'states:StartExecution').filter((statement) =>
      statement.arns.includes(`${ARN}:stateMachine:orders-*`),
    );
    expect(start).toMatchObject({
      Action: ['states:StartExecution', 'states:StartSyncExecution'],
      arns: [`${ARN}:stateMachine:orders-*`],
      Condition: TAG_CONDITION,
    });
  });

  it('lets the MCP function describe, read and stop only this backend’s executions of them', () => {
    const grant = grantsOf(template, ids.mcp, 'states:StopExecution').find((statement) =>
      statement.arns.includes(executions),
    );
    // CDK merges this grant with the registered tools' own (same actions, no condition).
    expect(grant!.Action).toEqual(['states:DescribeExecution', 'states:StopExecution']);
    expect(grant!.Condition).toBeUndefined();
    expect(grantsOf(template, ids.statusSync, 'states:DescribeExecution').flatMap((s) => s.arns)).toContain(executions);
    expect(grantsOf(template, ids.sweep, 'states:StopExecution').flatMap((s) => s.arns)).toContain(executions);
  });

  it('never grants StartExecution on every resource', () => {
    for (const fn of [ids.refresher, ids.mcp, ids.statusSync, ids.sweep])
      for (const statement of grantsOf(template, fn, 'states:StartExecution'))
        expect(statement.arns).not.toContain('*');
  });

  it('pushes the status changes of this backend’s executions of the prefix’s machines', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: Match.objectLike({
        detail: Match.objectLike({
          stateMachineArn: [{ prefix: Match.anyValue() }],
          name: [{ prefix: 'task-' }],
        }),
      }),
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [ids.statusSync, 'Arn'] } })],
    });
    const rules = Object.values(template.findResources('AWS::Events::Rule')) as Array<{
      Properties: { EventPattern?: { detail?: { stateMachineArn?: Array<{ prefix?: unknown }> } } };
    }>;
    const prefixes = rules.flatMap((rule) => rule.Properties.EventPattern?.detail?.stateMachineArn ?? []);
    expect(prefixes.map((matcher) => joined(matcher.prefix ?? ''))).toContain(`${ARN}:stateMachine:orders-`);
  });

  it('scopes a tag-only selection by the tag on every machine, and reads every machine’s tags to find them', () => {
    const { template: byTag, ids: tagIds } = discovered({ tag: { key: 'mcp:tool', value: 'true' } });
    expect(grantsOf(byTag, tagIds.mcp, 'states:StartExecution').at(-1)).toMatchObject({
      arns: [`${ARN}:stateMachine:*`],
      Condition: TAG_CONDITION,
    });
    expect(grantsOf(byTag, tagIds.refresher, 'states:ListTagsForResource')[0]).toMatchObject({
      arns: [`${ARN}:stateMachine:*`],
    });
  });

  it('grants exactly the listed machines when names select', () => {
    const { template: byName, ids: nameIds } = discovered({ names: ['billing', 'refunds'] });
    expect(grantsOf(byName, nameIds.mcp, 'states:StartExecution').at(-1)).toMatchObject({
      arns: [`${ARN}:stateMachine:billing`, `${ARN}:stateMachine:refunds`],
    });
    expect(grantsOf(byName, nameIds.mcp, 'states:StartExecution').at(-1)!.Condition).toBeUndefined();
  });

  it('grants every machine of the account and region only with allowAnyStateMachine', () => {
    const { template: any, ids: anyIds } = discovered({ ...BY_PREFIX_AND_TAG, allowAnyStateMachine: true });
    const start = grantsOf(any, anyIds.mcp, 'states:StartExecution').at(-1)!;
    expect(start.arns).toEqual([`${ARN}:stateMachine:*`]);
    expect(start.Condition).toBeUndefined();
  });
});

describe('discoverTools: refused at synth', () => {
  it('refuses a selection with neither names, a prefix nor a tag', () => {
    expect(() => exampleStack({ discover: {} })).toThrow(/never selects every machine/);
  });

  it('reports every problem at once', () => {
    expect(() =>
      exampleStack({ discover: { names: [], tag: { key: '', value: 'v' }, refreshRate: Duration.seconds(30) } }),
    ).toThrow(/names must list at least one name[\s\S]*tag\.key[\s\S]*refreshRate/);
  });

  it('refuses a listed name that is already a tool added with addTool', () => {
    const { stack } = exampleStack();
    const taken = stack.endpoint.registeredTools[0]!.name;
    expect(() => exampleStack({ discover: { names: [taken] } })).toThrow(new RegExp(`'${taken}'.*addTool`));
  });

  it('is called once per endpoint', () => {
    const { stack } = exampleStack({ discover: { namePrefix: 'a-' } });
    expect(() => stack.endpoint.discoverTools({ namePrefix: 'b-' })).toThrow(/once per endpoint/);
  });
});

describe('without discoverTools', () => {
  it('makes no refresher, no discovery rule and no grant beyond the registered tools', () => {
    const { stack, template } = exampleStack();
    expect(stack.endpoint.toolDiscovery).toBeUndefined();
    expect(JSON.stringify(template.toJSON())).not.toMatch(
      /ToolDiscovery|ListStateMachines|DISCOVERY_|DISCOVERED_TOOLS|CloudTrail/,
    );
  });
});
