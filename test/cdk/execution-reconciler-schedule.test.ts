// The reconciler as McpTaskEndpoint deploys it: the index it queries, its minute schedule, its budget of Step
// Functions calls, and the least IAM it needs.
import { readFileSync } from 'node:fs';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_TOOLS } from '../../lambda/example-tools/example-tool-catalog.js';
import { ENV } from '../../lambda/contract/environment-names.js';
import {
  CHECK_DUE_INDEX,
  CHECK_DUE_PARTITION_KEY,
  CHECK_DUE_PROJECTED_ATTRIBUTES,
  CHECK_DUE_SORT_KEY,
} from '../../lambda/contract/task-table-schema.js';
import type { ExampleToolsStack } from '../../bin/example-tools-stack.js';
import { exampleStack, logicalId, statementsOf, TEST_ENV, type TemplateResource } from './cdk-app.js';

let stack: ExampleToolsStack;
let template: Template;
let ids: { table: string; reconciler: string; machines: string[] };

beforeAll(() => {
  ({ stack, template } = exampleStack());
  ids = {
    table: logicalId(stack, stack.endpoint.table),
    reconciler: logicalId(stack, stack.endpoint.reconciler.function),
    machines: EXAMPLE_TOOLS.map((tool) => logicalId(stack, stack.stateMachines[tool.name]!)),
  };
});

const executionsOf = (machineId: string) => ({
  'Fn::Join': [
    '',
    [
      `arn:aws:states:${TEST_ENV.region}:${TEST_ENV.account}:execution:`,
      { 'Fn::GetAtt': [machineId, 'Name'] },
      ':task-*',
    ],
  ],
});

const variablesOf = (template: Template, functionId: string): Record<string, unknown> =>
  (template.toJSON()['Resources'] as Record<string, TemplateResource>)[functionId]!.Properties['Environment']
    .Variables as Record<string, unknown>;

describe('the reconciler', () => {
  it('gets a sparse index of active tasks by their next check', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      GlobalSecondaryIndexes: Match.arrayWith([
        {
          IndexName: CHECK_DUE_INDEX,
          KeySchema: [
            { AttributeName: CHECK_DUE_PARTITION_KEY, KeyType: 'HASH' },
            { AttributeName: CHECK_DUE_SORT_KEY, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...CHECK_DUE_PROJECTED_ATTRIBUTES] },
        },
      ]),
    });
  });

  it('runs every minute, a run at most a minute long and never retried', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [ids.reconciler, 'Arn'] } })],
    });
    const fn = (template.toJSON()['Resources'] as Record<string, TemplateResource>)[ids.reconciler]!.Properties;
    expect(fn['Timeout']).toBe(60);
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: ids.reconciler },
      MaximumRetryAttempts: 0,
    });
  });

  it('spends 2 Step Functions calls a second by default, and the budget asked for: checks per run of two calls', () => {
    expect(variablesOf(template, ids.reconciler)).toMatchObject({
      [ENV.tableName]: { Ref: ids.table },
      [ENV.reconcilerMaxChecks]: '60',
    });
    const { stack: thrifty, template: thriftyTemplate } = exampleStack({
      props: { endpoint: { reconcilerCallsPerSecond: 5 } },
    });
    expect(variablesOf(thriftyTemplate, logicalId(thrifty, thrifty.endpoint.reconciler.function))).toMatchObject({
      [ENV.reconcilerMaxChecks]: '150',
    });
  });

  it('refuses a budget that is not a positive whole number of calls', () => {
    for (const budget of [0, -1, 1.5])
      expect(() => exampleStack({ props: { endpoint: { reconcilerCallsPerSecond: budget } } })).toThrow(
        /reconcilerCallsPerSecond must be a positive integer/,
      );
  });

  it('may query its index, read and update task items, and describe only the tools’ executions', () => {
    const statements = statementsOf(template, ids.reconciler);
    expect(statements).toEqual(
      expect.arrayContaining([
        {
          Effect: 'Allow',
          Action: ['dynamodb:Query'],
          Resource: [{ 'Fn::Join': ['', [{ 'Fn::GetAtt': [ids.table, 'Arn'] }, `/index/${CHECK_DUE_INDEX}`]] }],
        },
        {
          Effect: 'Allow',
          Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
          Resource: [{ 'Fn::GetAtt': [ids.table, 'Arn'] }],
        },
        {
          Effect: 'Allow',
          Action: ['states:DescribeExecution', 'states:GetExecutionHistory'],
          Resource: expect.arrayContaining(ids.machines.map(executionsOf)),
        },
      ]),
    );
    const actions = statements.flatMap((statement) => statement.Action as string[]);
    expect(actions.filter((action) => action.startsWith('states:'))).toEqual([
      'states:DescribeExecution',
      'states:GetExecutionHistory',
    ]);
    expect(JSON.stringify(statements)).not.toContain('"*"');
  });

  it('is granted every DynamoDB call the task store makes on its path (query, get, update)', () => {
    const granted = new Set(
      statementsOf(template, ids.reconciler).flatMap((statement) => statement.Action as string[]),
    );
    const source = readFileSync(new URL('../../lambda/store/dynamodb-task-store.ts', import.meta.url), 'utf8');
    expect(source).toContain('IndexName: CHECK_DUE_INDEX');
    for (const action of ['dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:UpdateItem'])
      expect(granted).toContain(action);
  });
});
