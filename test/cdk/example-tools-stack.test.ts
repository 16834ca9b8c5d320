// The example stack as `cdk deploy McpTasks` deploys it: what lets it deploy on a fresh account, and the outputs a
// developer copies to try it.
import { isDeepStrictEqual } from 'node:util';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { exampleStack, joined, logicalId, statementsOf, type TemplateResource } from './cdk-app.js';

describe('the example stack on a fresh account', () => {
  const { stack, template } = exampleStack();

  it('sets the API Gateway account role its access logs need, and creates the stage only once it is set', () => {
    const [[accountId, account]] = Object.entries(template.findResources('AWS::ApiGateway::Account')) as [
      [string, { Properties: { CloudWatchRoleArn: unknown } }],
    ];
    const roleId = (account.Properties.CloudWatchRoleArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    template.hasResource('AWS::IAM::Role', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        ManagedPolicyArns: [
          Match.objectLike({
            'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp('AmazonAPIGatewayPushToCloudWatchLogs')])],
          }),
        ],
      }),
    });
    expect(template.toJSON()['Resources'][roleId].Type).toBe('AWS::IAM::Role');
    template.hasResource('AWS::ApiGateway::Stage', {
      DependsOn: Match.arrayWith([accountId]),
      Properties: Match.objectLike({ AccessLogSetting: Match.anyValue() }),
    });
  });

  it('discovers the account’s machines tagged mcp:tool=true only when asked, as npm start does', () => {
    const refresherRules = (template: ReturnType<typeof exampleStack>['template']) =>
      Object.values(template.findResources('AWS::Events::Rule')).filter((rule) =>
        JSON.stringify(rule).includes('AWS API Call via CloudTrail'),
      );
    expect(exampleStack().stack.endpoint.toolDiscovery).toBeUndefined();
    const { stack, template } = exampleStack({ props: { discoverTools: true } });
    expect(stack.endpoint.toolDiscovery).toBeDefined();
    expect(refresherRules(template)).toHaveLength(1);
    expect(JSON.stringify(template.toJSON())).toContain('aws:ResourceTag/mcp:tool');
  });

  it('leaves the account role alone when told the account has one', () => {
    const { template: withoutRole } = exampleStack({
      props: { endpoint: { machineClient: true, createApiGatewayAccountRole: false } },
    });
    withoutRole.resourceCountIs('AWS::ApiGateway::Account', 0);
  });

  it('creates each custom resource only once its function’s log group exists, so the function cannot make it first', () => {
    const resources = template.toJSON()['Resources'] as Record<string, TemplateResource & { DependsOn?: string[] }>;
    const customResources = Object.entries(resources).filter(
      ([, { Type }]) => Type.startsWith('Custom::') || Type === 'AWS::CloudFormation::CustomResource',
    );
    // The tool catalog's write and the OAuth proxy's read of its Cognito client secret.
    expect(customResources.length).toBeGreaterThanOrEqual(2);
    for (const [id, custom] of customResources) {
      const [functionId] = (custom.Properties['ServiceToken'] as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'];
      const fn = resources[functionId]!;
      expect(fn.Type).toBe('AWS::Lambda::Function');
      // The log group the function writes to: its own (LoggingConfig), or else Lambda's default, /aws/lambda/<name>.
      const configured = (fn.Properties['LoggingConfig'] as { LogGroup?: { Ref: string } } | undefined)?.LogGroup?.Ref;
      const [logGroupId] = configured
        ? [configured]
        : Object.entries(resources)
            .filter(
              ([, candidate]) =>
                candidate.Type === 'AWS::Logs::LogGroup' &&
                isDeepStrictEqual(candidate.Properties['LogGroupName'], {
                  'Fn::Join': ['', ['/aws/lambda/', { Ref: functionId }]],
                }),
            )
            .map(([logGroup]) => logGroup);
      expect(logGroupId, `${id}'s function ${functionId} has a log group in the template`).toBeDefined();
      // A configured log group is made before the function that names it; Lambda's default one names the function,
      // so only an explicit DependsOn holds the custom resource back until it exists.
      if (!configured) expect(custom.DependsOn ?? [], id).toContain(logGroupId);
    }
  });

  describe('outputs', () => {
    const outputs = template.toJSON()['Outputs'] as Record<string, { Value: unknown }>;
    const mcpUrl = joined(outputs['McpUrl']!.Value);
    const auth = stack.endpoint.auth!;

    it('give the MCP URL of the stage', () => {
      expect(mcpUrl).toBe(
        `https://\${${logicalId(stack, stack.endpoint.restApi.api)}}.execute-api.eu-west-1.\${AWS::URLSuffix}/prod/mcp`,
      );
    });

    it('give the task table’s name, which operators’ commands take (mcp-tasks discovery --table)', () => {
      expect(outputs['TaskTableName']!.Value).toEqual({ Ref: logicalId(stack, stack.endpoint.table) });
    });

    it('give the authorization server clients are sent to: the OAuth proxy, at the stage’s base URL', () => {
      expect(joined(outputs['AuthorizationServerUrl']!.Value)).toBe(mcpUrl.replace(/\/mcp$/, ''));
      expect(outputs).not.toHaveProperty('InteractiveClientId');
    });

    it('give the user pool as the authorization server, and its public client, with oauthProxy: false', () => {
      const { stack: cognito, template: cognitoTemplate } = exampleStack({
        props: { endpoint: { machineClient: true, oauthProxy: false } },
      });
      const cognitoOutputs = cognitoTemplate.toJSON()['Outputs'] as Record<string, { Value: unknown }>;
      expect(joined(cognitoOutputs['AuthorizationServerUrl']!.Value)).toBe(
        `https://\${${logicalId(cognito, cognito.endpoint.auth!.userPool as never)}.ProviderName}`,
      );
      expect(joined(cognitoOutputs['InteractiveClientId']!.Value)).toBe(
        `\${${logicalId(cognito, cognito.endpoint.auth!.userPoolClient!)}}`,
      );
    });

    it('give a ready MCP Inspector command that lists the tools at that URL with the bearer token', () => {
      expect(joined(outputs['InspectorCommand']!.Value)).toBe(
        `npx @modelcontextprotocol/inspector --cli ${mcpUrl} --transport http --protocol-era ` +
          `modern --method tools/list --header "Authorization: Bearer $TOKEN"`,
      );
    });

    it('give the command that sets TOKEN from the machine client’s credentials', () => {
      const command = joined(outputs['TokenCommand']!.Value);
      const clientId = `\${${logicalId(stack, auth.machineClient!)}}`;
      expect(command).toMatch(/^export TOKEN=\$\(curl -s -u "/);
      expect(command).toContain(
        `--user-pool-id \${${logicalId(stack, auth.userPool as never)}} --client-id ${clientId} ` +
          `--query UserPoolClient.ClientSecret`,
      );
      expect(command).toContain('-d grant_type=client_credentials');
      expect(command).toContain(`-d scope=\${${logicalId(stack, auth.resourceServer)}}/invoke`);
      expect(command).toContain(joined(outputs['TokenEndpoint']!.Value));
    });

    it('drop the token from the Inspector command of an open endpoint', () => {
      const open = exampleStack({ props: { endpoint: { openEndpoint: true } } }).template.toJSON()['Outputs'] as Record<
        string,
        { Value: unknown }
      >;
      expect(joined(open['InspectorCommand']!.Value)).toMatch(/--method tools\/list$/);
      expect(open).not.toHaveProperty('TokenCommand');
      expect(open).not.toHaveProperty('AuthorizationServerUrl');
    });
  });
});

describe('the durable function example tool', () => {
  const { stack, template } = exampleStack();
  const fn = stack.durableFunctions['durable_review']!;
  const fnId = logicalId(stack, fn);
  const resources = template.toJSON()['Resources'] as Record<string, TemplateResource>;

  it('deploys durable_review as a durable function the endpoint invokes through its alias live', () => {
    const props = resources[fnId]!.Properties;
    expect(props.DurableConfig).toEqual({ ExecutionTimeout: 3600, RetentionPeriodInDays: 7 });
    expect(props.Environment.Variables.TASK_TABLE_NAME).toEqual({ Ref: logicalId(stack, stack.endpoint.table) });
    template.hasResourceProperties('AWS::Lambda::Alias', { Name: 'live', FunctionName: { Ref: fnId } });
    expect(stack.endpoint.registeredTools.map((tool) => tool.name)).toContain('durable_review');
  });

  it('lets it checkpoint its own executions and update task items, and nothing else of the table', () => {
    const statements = statementsOf(template, fnId);
    expect(statements).toContainEqual(
      expect.objectContaining({
        Action: ['lambda:CheckpointDurableExecution', 'lambda:GetDurableExecutionState'],
        Resource: [{ 'Fn::Join': ['', [{ 'Fn::GetAtt': [fnId, 'Arn'] }, ':*/durable-execution/*']] }],
      }),
    );
    const dynamoDb = statements
      .flatMap((statement) => [statement.Action].flat())
      .filter((action) => String(action).startsWith('dynamodb:'));
    expect(dynamoDb).toEqual(['dynamodb:UpdateItem']);
  });
});
