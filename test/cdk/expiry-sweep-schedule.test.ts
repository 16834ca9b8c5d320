// The expiry sweep as McpTaskEndpoint deploys it: the index it queries, its schedule, and the least IAM it needs.
import { readFileSync } from 'node:fs';
import { Duration } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_TOOLS } from '../../lambda/example-tools/example-tool-catalog.js';
import { ENV } from '../../lambda/contract/environment-names.js';
import { METRICS_ENV, METRICS_NAMESPACE } from '../../lambda/contract/metric-names.js';
import {
  ACTIVE_EXPIRY_INDEX,
  ACTIVE_EXPIRY_PARTITION_KEY,
  ACTIVE_EXPIRY_PROJECTED_ATTRIBUTES,
  ACTIVE_EXPIRY_SORT_KEY,
} from '../../lambda/contract/task-table-schema.js';
import type { ExampleToolsStack } from '../../bin/example-tools-stack.js';
import { exampleStack, logicalId, statementsOf, TEST_ENV, type TemplateResource } from './cdk-app.js';
import { isDurableToolGrant } from './endpoint-template.js';

let stack: ExampleToolsStack;
let template: Template;
/** `taskMachines`: every machine that runs tasks, the STANDARD example tools' own and the EXPRESS one's wrapper. */
let ids: { table: string; sweepFunction: string; taskMachines: string[] };

beforeAll(() => {
  ({ stack, template } = exampleStack());
  ids = {
    table: logicalId(stack, stack.endpoint.table),
    sweepFunction: logicalId(stack, stack.endpoint.expirySweep.function),
    taskMachines: [
      ...EXAMPLE_TOOLS.map((tool) => logicalId(stack, stack.stateMachines[tool.name]!)),
      logicalId(stack, stack.endpoint.expressWrappers['extract_keywords']!.stateMachine),
    ],
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

describe('expiry sweep', () => {
  it('gets a sparse index of active tasks by expiry, with only what the sweep reads projected', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      GlobalSecondaryIndexes: Match.arrayWith([
        {
          IndexName: ACTIVE_EXPIRY_INDEX,
          KeySchema: [
            { AttributeName: ACTIVE_EXPIRY_PARTITION_KEY, KeyType: 'HASH' },
            { AttributeName: ACTIVE_EXPIRY_SORT_KEY, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...ACTIVE_EXPIRY_PROJECTED_ATTRIBUTES] },
        },
      ]),
    });
  });

  it('runs the sweep function every 5 minutes by default', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [ids.sweepFunction, 'Arn'] } })],
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      FunctionName: { 'Fn::GetAtt': [ids.sweepFunction, 'Arn'] },
      Principal: 'events.amazonaws.com',
    });
  });

  it('runs at the rate asked for', () => {
    const { template: hourly } = exampleStack({ props: { endpoint: { expirySweepRate: Duration.hours(1) } } });
    hourly.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 hour)' });
  });

  it('gives the sweep function the table name, a one-minute timeout and no retries of a failed run', () => {
    const fn = (template.toJSON()['Resources'] as Record<string, TemplateResource>)[ids.sweepFunction]!.Properties;
    expect(fn['Environment'].Variables).toEqual({
      [ENV.tableName]: { Ref: ids.table },
      NODE_OPTIONS: '--enable-source-maps',
      // Where its task metrics go (see lib/operations/endpoint-operations.ts).
      [METRICS_ENV.namespace]: METRICS_NAMESPACE,
      [METRICS_ENV.serviceName]: expect.any(String),
    });
    expect(fn['Timeout']).toBe(60);
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: ids.sweepFunction },
      MaximumRetryAttempts: 0,
    });
  });

  it('lets the sweep query its index, update items and stop only the tools’ executions, nothing more', () => {
    const statements = statementsOf(template, ids.sweepFunction).filter((statement) => !isDurableToolGrant(statement));
    expect(statements).toHaveLength(4);
    expect(statements).toEqual(
      expect.arrayContaining([
        {
          Effect: 'Allow',
          Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          Resource: [{ 'Fn::GetAtt': [expect.stringMatching(/ExpirySweepHandlerLogGroup/), 'Arn'] }],
        },
        {
          Effect: 'Allow',
          Action: ['dynamodb:Query'],
          Resource: [{ 'Fn::Join': ['', [{ 'Fn::GetAtt': [ids.table, 'Arn'] }, `/index/${ACTIVE_EXPIRY_INDEX}`]] }],
        },
        { Effect: 'Allow', Action: ['dynamodb:UpdateItem'], Resource: [{ 'Fn::GetAtt': [ids.table, 'Arn'] }] },
        {
          Effect: 'Allow',
          Action: ['states:StopExecution'],
          Resource: expect.arrayContaining(ids.taskMachines.map(executionsOf)),
        },
      ]),
    );
    expect(statements.find((statement) => statement.Action.includes('states:StopExecution'))!.Resource).toHaveLength(
      ids.taskMachines.length,
    );
  });

  it('grants every DynamoDB call the sweep store makes (and the task store’s releaseActiveSlot, an UpdateItem)', () => {
    const granted = new Set(
      statementsOf(template, ids.sweepFunction).flatMap((statement) => statement.Action as string[]),
    );
    // The store's own calls, and the index query it shares with the reconciler.
    const source = ['dynamodb-expiry-sweep-store.ts', 'sharded-index-query.ts']
      .map((file) => readFileSync(new URL(`../../lambda/store/${file}`, import.meta.url), 'utf8'))
      .join('\n');
    const byCommand: Record<string, string> = { QueryCommand: 'dynamodb:Query', UpdateCommand: 'dynamodb:UpdateItem' };
    for (const [, command] of source.matchAll(/new (\w+Command)\(/g))
      expect(granted).toContain(byCommand[command!] ?? `unmapped ${command}`);
  });

  it('refuses a rate that is not whole minutes between 1 minute and 1 day', () => {
    for (const rate of [Duration.seconds(30), Duration.seconds(90), Duration.days(2)]) {
      expect(() => exampleStack({ props: { endpoint: { expirySweepRate: rate } } })).toThrow(
        /expirySweepRate must be a whole number of minutes/,
      );
    }
  });
});
