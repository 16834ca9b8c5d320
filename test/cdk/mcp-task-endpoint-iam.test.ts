// McpTaskEndpoint as deployed by the example app: the template's IAM, least privilege for every function, the example
// state machines and CDK's custom resource provider.
import { describe, expect, it } from 'vitest';
import { EXAMPLE_TOOLS } from '../../lambda/example-tools/example-tool-catalog.js';
import { OWNER_INDEX } from '../../lambda/contract/task-table-schema.js';
import { EVENT_TABLE_ACTIONS } from '../../lib/events/task-events.js';
import { dynamoDbActionsOf, isCustomResourceProvider, logicalId, ownResources } from './cdk-app.js';
import {
  executionsOf,
  ids,
  isDurableToolGrant,
  policyStatements,
  resource,
  resources,
  sorted,
  sortedResources,
  stack,
  template,
  useEndpointTemplate,
  type Statement,
} from './endpoint-template.js';

useEndpointTemplate();

describe('IAM', () => {
  it('lets the MCP function use the table items and the owner index, start the tools’ machines (and run the EXPRESS one) and describe, read the history of or stop only their executions, use the events table, queue webhook deliveries, and read the token signing key, the webhook sealing key and the requestState key', () => {
    const statements = policyStatements(ids.mcpFunction)
      .filter((statement) => !isDurableToolGrant(statement))
      .map((statement) => ({
        ...statement,
        Action: sorted(statement.Action),
        Resource: sortedResources(statement.Resource),
      }));
    expect(statements).toHaveLength(10);
    expect(statements).toEqual(
      expect.arrayContaining([
        {
          Effect: 'Allow',
          Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          Resource: [{ 'Fn::GetAtt': [expect.stringMatching(/^McpTasksMcpHandlerLogGroup/), 'Arn'] }],
        },
        // Answers to input requests resume executions; task-token actions have no resource-level permissions.
        { Effect: 'Allow', Action: ['states:SendTaskFailure', 'states:SendTaskSuccess'], Resource: ['*'] },
        {
          Effect: 'Allow',
          Action: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
          Resource: [{ 'Fn::GetAtt': [ids.table, 'Arn'] }],
        },
        {
          Effect: 'Allow',
          Action: ['dynamodb:Query'],
          Resource: [{ 'Fn::Join': ['', [{ 'Fn::GetAtt': [ids.table, 'Arn'] }, `/index/${OWNER_INDEX}`]] }],
        },
        {
          Effect: 'Allow',
          Action: ['states:StartExecution'],
          Resource: sortedResources(ids.taskMachines.map((id) => ({ Ref: id }))),
        },
        {
          Effect: 'Allow',
          Action: ['states:DescribeExecution', 'states:StopExecution'],
          Resource: sortedResources(ids.taskMachines.map(executionsOf)),
        },
        // The EXPRESS tool's plain calls run its own machine.
        { Effect: 'Allow', Action: ['states:StartSyncExecution'], Resource: [{ Ref: ids.express }] },
        // Task events: poll, stream and subscribe (mcp-task-endpoint-events.test.ts).
        {
          Effect: 'Allow',
          Action: sorted(EVENT_TABLE_ACTIONS),
          Resource: [{ 'Fn::GetAtt': [logicalId(stack, stack.endpoint.eventTable), 'Arn'] }],
        },
        // A subscription's replay: the events after its cursor, queued for delivery.
        {
          Effect: 'Allow',
          Action: ['sqs:SendMessage'],
          Resource: [{ 'Fn::GetAtt': [logicalId(stack, stack.endpoint.webhookDeliveryQueue!), 'Arn'] }],
        },
        // The OAuth proxy's access tokens are checked with the first (oauth-proxy-credentials.test.ts), subscription
        // secrets sealed with the second, plain calls' requestStates signed with the third.
        {
          Effect: 'Allow',
          Action: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'],
          Resource: sortedResources([
            { Ref: logicalId(stack, stack.endpoint.oauthProxy!.signingKey) },
            { Ref: logicalId(stack, stack.endpoint.webhookSealingKey as never) },
            { Ref: logicalId(stack, stack.endpoint.requestStateKey as never) },
          ]),
        },
      ]),
    );
  });

  it('lets the ask function update task items and write its logs, nothing more', () => {
    const statements = policyStatements(ids.askFunction).map((statement) => ({
      ...statement,
      Action: sorted(statement.Action),
      Resource: sortedResources(statement.Resource),
    }));
    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: [{ 'Fn::GetAtt': [expect.stringMatching(/^McpTasksAskHandlerLogGroup/), 'Arn'] }],
      },
      { Effect: 'Allow', Action: ['dynamodb:UpdateItem'], Resource: [{ 'Fn::GetAtt': [ids.table, 'Arn'] }] },
    ]);
  });

  it('lets the status-sync function read and update items, describe the tools’ executions and dead-letter, nothing more', () => {
    const statements = policyStatements(ids.statusFunction)
      .filter((statement) => !isDurableToolGrant(statement))
      .map((statement) => ({
        ...statement,
        Action: sorted(statement.Action),
        Resource: sortedResources(statement.Resource),
      }));
    expect(statements).toHaveLength(4);
    expect(statements).toEqual(
      expect.arrayContaining([
        {
          Effect: 'Allow',
          Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          Resource: [{ 'Fn::GetAtt': [expect.stringMatching(/^McpTasksStatusSyncHandlerLogGroup/), 'Arn'] }],
        },
        {
          Effect: 'Allow',
          Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
          Resource: [{ 'Fn::GetAtt': [ids.table, 'Arn'] }],
        },
        {
          Effect: 'Allow',
          Action: ['states:DescribeExecution'],
          Resource: sortedResources(ids.taskMachines.map(executionsOf)),
        },
        { Effect: 'Allow', Action: ['sqs:SendMessage'], Resource: [{ 'Fn::GetAtt': [ids.queue, 'Arn'] }] },
      ]),
    );
  });

  it('lets the progress function update task items and write its logs, nothing more', () => {
    const statements = policyStatements(logicalId(stack, stack.endpoint.progressFunction)).map((statement) => ({
      ...statement,
      Action: sorted(statement.Action),
      Resource: sortedResources(statement.Resource),
    }));
    expect(statements).toContainEqual({
      Effect: 'Allow',
      Action: ['dynamodb:UpdateItem'],
      Resource: [{ 'Fn::GetAtt': [ids.table, 'Arn'] }],
    });
    expect(statements.flatMap((statement) => statement.Action).sort()).toEqual([
      'dynamodb:UpdateItem',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
    ]);
  });

  it('gives analyze_documents the endpoint’s progress function as its progress step', () => {
    const machine = resource(logicalId(stack, stack.stateMachines['analyze_documents']!)).Properties;
    expect(JSON.stringify(machine['DefinitionSubstitutions'])).toContain(
      logicalId(stack, stack.endpoint.progressFunction),
    );
  });

  it('grants every DynamoDB call the task store makes', () => {
    const granted = new Set(policyStatements(ids.mcpFunction).flatMap((statement) => [statement.Action].flat()));
    for (const action of dynamoDbActionsOf('lambda/store/dynamodb-task-store.ts')) expect(granted).toContain(action);
  });

  it('lets each example state machine invoke only the unqualified ARNs of its own step functions', () => {
    for (const tool of EXAMPLE_TOOLS) {
      const machine = resource(logicalId(stack, stack.stateMachines[tool.name]!)).Properties;
      const roleId = (machine['RoleArn'] as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      const statements = Object.values(resources('AWS::IAM::Policy'))
        .filter((policy) => (policy.Properties['Roles'] as { Ref: string }[]).some((role) => role.Ref === roleId))
        .flatMap((policy) => policy.Properties['PolicyDocument'].Statement as Statement[])
        .filter((statement) => [statement.Action].flat().some((action) => action.startsWith('lambda:')));
      const stepFunctions = Object.keys(tool.lambdaSteps).length;
      expect(statements.map((statement) => sorted(statement.Action))).toEqual(
        stepFunctions > 0 ? [['lambda:InvokeFunction']] : [],
      );
      for (const statement of statements) {
        const arns = [statement.Resource].flat();
        expect(arns).toHaveLength(stepFunctions);
        for (const arn of arns) expect(arn).toEqual({ 'Fn::GetAtt': [expect.any(String), 'Arn'] });
      }
    }
  });

  it('attaches no managed policy to the functions’ roles', () => {
    for (const role of Object.values(ownResources(template, 'AWS::IAM::Role')).filter((candidate) =>
      JSON.stringify(candidate.Properties).includes('lambda.amazonaws.com'),
    )) {
      expect(role.Properties['ManagedPolicyArns']).toBeUndefined();
    }
  });

  it('lets CDK’s custom resource provider describe that one client’s pool (its secret, read at deployment) and put and delete the task table’s items (the tool catalog), nothing more', () => {
    const providerPolicies = Object.entries(resources('AWS::IAM::Policy')).filter(([, policy]) =>
      (policy.Properties['Roles'] as { Ref: string }[]).some((role) => isCustomResourceProvider(role.Ref)),
    );
    expect(providerPolicies.flatMap(([, policy]) => policy.Properties['PolicyDocument'].Statement)).toEqual([
      {
        Effect: 'Allow',
        Action: ['dynamodb:DeleteItem', 'dynamodb:PutItem'],
        Resource: { 'Fn::GetAtt': [ids.table, 'Arn'] },
      },
      {
        Effect: 'Allow',
        Action: 'cognito-idp:DescribeUserPoolClient',
        Resource: { 'Fn::GetAtt': [ids.userPool, 'Arn'] },
      },
    ]);
  });
});
