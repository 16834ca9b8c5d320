// McpTaskEndpoint as deployed by the example app: the template's table, functions, API, auth, status push and IAM.
// The OAuth proxy's own resources are specified in oauth-proxy.test.ts; the REST API and Cognito without it are here.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENV, MCP_HTTP_ENV } from '../../lambda/contract/environment-names.js';
import { METRICS_ENV, METRICS_NAMESPACE } from '../../lambda/contract/metric-names.js';
import { unpackToolCatalog } from '../../lambda/contract/packed-tool-catalog.js';
import { ASK_STEP, EXAMPLE_TOOLS } from '../../lambda/example-tools/example-tool-catalog.js';
import {
  OWNER_INDEX,
  OWNER_INDEX_PARTITION_KEY,
  OWNER_INDEX_PROJECTED_ATTRIBUTES,
  OWNER_INDEX_SORT_KEY,
  PARTITION_KEY,
  TTL_ATTRIBUTE,
} from '../../lambda/contract/task-table-schema.js';
import { executionNameFor, taskKeyFromExecutionName } from '../../lambda/core/task-key.js';
import type { ExampleToolsStack } from '../../bin/example-tools-stack.js';
import { McpTaskEndpoint } from '../../lib/mcp-task-endpoint.js';
import {
  dynamoDbActionsOf,
  joined,
  exampleStack,
  isCustomResourceProvider,
  logicalId,
  ownResources,
  TEST_ENV,
  testStack,
} from './cdk-app.js';
import { UNAUTHORIZED_ERROR_CODE } from '../../lambda/contract/unauthorized-error.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- template properties, read as the assertions need them
type Resource = { Type: string; Properties: Record<string, any> };
type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

let stack: ExampleToolsStack;
let template: Template;
let outdir: string;
let ids: {
  table: string;
  mcpFunction: string;
  askFunction: string;
  statusFunction: string;
  queue: string;
  userPool: string;
  resourceServer: string;
  api: string;
  oauthFunction: string;
  machines: string[];
};

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
  };
});

function resources(type: string): Record<string, Resource> {
  return template.findResources(type) as Record<string, Resource>;
}

function resource(id: string): Resource {
  return template.toJSON()['Resources'][id] as Resource;
}

/** The status push rules: every rule but the expiry sweep's schedule (test/cdk/expiry-sweep-schedule.test.ts). */
function statusRules(): Resource[] {
  return Object.values(resources('AWS::Events::Rule')).filter((rule) => rule.Properties['EventPattern'] !== undefined);
}

function policyStatements(functionId: string): Statement[] {
  const roleId = (resource(functionId).Properties['Role'] as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  const policies = Object.values(resources('AWS::IAM::Policy')).filter((policy) =>
    (policy.Properties['Roles'] as { Ref: string }[]).some((role) => role.Ref === roleId),
  );
  return policies.flatMap((policy) => policy.Properties['PolicyDocument'].Statement as Statement[]);
}

const sorted = (actions: string | string[]): string[] => [actions].flat().sort();
/** A statement's resources as one sorted list, so a missing or an extra resource both fail the comparison. */
const sortedResources = (resource: unknown): unknown[] =>
  [resource].flat().sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
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

describe('task table', () => {
  it('is keyed by the task key, billed on demand, with TTL on the expiry attribute', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: PARTITION_KEY, KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    });
  });

  it('has the sparse owner index with the projection tasks/list reads', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      // Beside the expiry sweep's index (test/cdk/expiry-sweep-schedule.test.ts).
      GlobalSecondaryIndexes: Match.arrayWith([
        {
          IndexName: OWNER_INDEX,
          KeySchema: [
            { AttributeName: OWNER_INDEX_PARTITION_KEY, KeyType: 'HASH' },
            { AttributeName: OWNER_INDEX_SORT_KEY, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...OWNER_INDEX_PROJECTED_ATTRIBUTES] },
        },
      ]),
    });
  });

  it('has point-in-time recovery and KMS encryption at rest', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
  });

  it('is retained when it leaves the stack, by default', () => {
    template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });
});

describe('functions', () => {
  it('run every handler on Node.js 22, arm64, with JSON logs in its own log group', () => {
    const functions = Object.values(ownResources(template, 'AWS::Lambda::Function'));
    // MCP, status sync, expiry sweep, the ask step and the OAuth proxy, then the example tools' own steps (their ask
    // steps are the endpoint's).
    const ownSteps = EXAMPLE_TOOLS.flatMap((tool) => Object.values(tool.lambdaSteps)).filter(
      (step) => step.functionName !== ASK_STEP.functionName,
    );
    expect(functions).toHaveLength(5 + ownSteps.length);
    for (const fn of functions) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        LoggingConfig: { LogFormat: 'JSON' },
      });
      expect(fn.Properties['LoggingConfig']['LogGroup']).toEqual({ Ref: expect.any(String) });
    }
  });

  it('give the MCP function the table, the result wait, and the tool catalog packed with its machines in order', () => {
    const variables = resource(ids.mcpFunction).Properties['Environment'].Variables as Record<string, unknown>;
    expect(variables[ENV.tableName]).toEqual({ Ref: ids.table });
    expect(variables[ENV.resultWaitMs]).toBe('50000');
    expect(variables[ENV.refreshIntervalMs]).toBe('60000');
    expect(joined(variables[MCP_HTTP_ENV.toolStateMachineArns])).toBe(ids.machines.map((id) => `\${${id}}`).join(','));
    const tools = unpackToolCatalog(variables[MCP_HTTP_ENV.packedToolCatalog] as string, ids.machines.join(','));
    expect(tools).toEqual(
      EXAMPLE_TOOLS.map((tool, index) => ({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        ...(tool.taskSupport ? { taskSupport: tool.taskSupport } : {}),
        stateMachineArn: ids.machines[index],
      })),
    );
    expect(variables[MCP_HTTP_ENV.openEndpointOwner]).toBeUndefined();
  });

  it('give the MCP function the requestState key as a deployment-time reference to a generated secret, with no right to read the secret', () => {
    const variables = resource(ids.mcpFunction).Properties['Environment'].Variables as Record<string, unknown>;
    const secretId = logicalId(stack, stack.endpoint.requestStateKey as never);
    expect(resource(secretId)).toMatchObject({
      Type: 'AWS::SecretsManager::Secret',
      Properties: { GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true } },
    });
    expect(joined(variables[ENV.requestStateKey])).toBe(`{{resolve:secretsmanager:\${${secretId}}:SecretString:::}}`);
    // It may read the OAuth proxy's signing key (oauth-proxy.test.ts), never this secret.
    const onSecret = policyStatements(ids.mcpFunction).filter((statement) =>
      JSON.stringify(statement.Resource).includes(`"${secretId}"`),
    );
    expect(onSecret).toEqual([]);
  });

  it('let the MCP function outlive the longest blocking wait', () => {
    expect(resource(ids.mcpFunction).Properties).toMatchObject({ Timeout: 80, MemorySize: 512 });
  });

  it('give the status-sync function the table and nothing of the tools, and dead-letter its failed events', () => {
    const fn = resource(ids.statusFunction).Properties;
    expect(fn['Environment'].Variables).toEqual({
      [ENV.tableName]: { Ref: ids.table },
      NODE_OPTIONS: '--enable-source-maps',
      // Where its task metrics go (see lib/endpoint-operations.ts).
      [METRICS_ENV.namespace]: METRICS_NAMESPACE,
      [METRICS_ENV.serviceName]: expect.any(String),
    });
    expect(fn['DeadLetterConfig']).toEqual({ TargetArn: { 'Fn::GetAtt': [ids.queue, 'Arn'] } });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: ids.statusFunction },
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: 7200,
    });
  });

  // Both eras ship: the 1.x SDK serves the legacy era, the 2.x server package the modern one.
  it('bundle the MCP handler offline into an ESM entry file and chunks that can require Node built-ins, under 1.25 MiB in all', () => {
    const assetHash = (resource(ids.mcpFunction).Properties['Code'].S3Key as string).replace(/\.zip$/, '');
    const asset = join(outdir, `asset.${assetHash}`);
    const chunks = readdirSync(join(asset, 'chunks'))
      .filter((file) => file.endsWith('.mjs'))
      .map((file) => join(asset, 'chunks', file));
    expect(existsSync(join(asset, 'index.mjs'))).toBe(true);
    for (const file of [join(asset, 'index.mjs'), ...chunks])
      expect(readFileSync(file, 'utf8')).toMatch(/^import \{ createRequire as __createRequire \} from 'node:module';/);
    const size = [join(asset, 'index.mjs'), ...chunks].reduce((sum, file) => sum + statSync(file).size, 0);
    expect(size).toBeLessThan(1.25 * 1024 * 1024);
  });
});

describe('REST API', () => {
  it('is regional, so a held response stream may idle for minutes', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { EndpointConfiguration: { Types: ['REGIONAL'] } });
  });

  it.each(['POST', 'GET', 'DELETE'])(
    "serves %s /mcp without an API Gateway authorizer: the MCP function checks the OAuth proxy's tokens",
    (method) => {
      template.hasResourceProperties('AWS::ApiGateway::Method', {
        HttpMethod: method,
        ResourceId: { Ref: Match.stringLikeRegexp('mcp') },
        AuthorizationType: 'NONE',
        AuthorizerId: Match.absent(),
      });
    },
  );

  it('has no authorizer, and sends every Lambda method to the MCP function (/mcp) or the OAuth proxy function', () => {
    template.resourceCountIs('AWS::ApiGateway::Authorizer', 0);
    const methods = Object.values(resources('AWS::ApiGateway::Method')).map((method) => method.Properties);
    for (const method of methods) {
      expect(method['AuthorizationType']).toBe('NONE');
      expect(method['Integration']?.Type, `${method['HttpMethod']} method`).toBe('AWS_PROXY');
      const target = joined(method['Integration'].Uri);
      const mcp = method['ResourceId']?.Ref === logicalId(stack, stack.endpoint.restApi.mcpResource);
      expect(target).toContain(`\${${mcp ? ids.mcpFunction : ids.oauthFunction}.Arn}`);
    }
  });

  it('adds only the CORS preflight of /mcp as a mock method with CORS on', () => {
    const { template: cors } = exampleStack({ props: { endpoint: { corsAllowOrigins: ['https://app.example.com'] } } });
    const methods = Object.values(cors.findResources('AWS::ApiGateway::Method') as Record<string, Resource>).map(
      (method) => method.Properties,
    );
    const mocks = methods.filter((method) => method['Integration']?.Type === 'MOCK');
    expect(mocks).toHaveLength(1);
    expect(mocks[0]).toMatchObject({ HttpMethod: 'OPTIONS', ResourceId: { Ref: expect.stringMatching(/mcp/) } });
    for (const method of methods) expect(method['AuthorizationType']).toBe('NONE');
  });

  it.each(['POST', 'GET', 'DELETE'])(
    'streams %s /mcp from the function (Lambda proxy, STREAM, timeout past 29 s)',
    (method) => {
      template.hasResourceProperties('AWS::ApiGateway::Method', {
        HttpMethod: method,
        Integration: {
          Type: 'AWS_PROXY',
          ResponseTransferMode: 'STREAM',
          TimeoutInMillis: 80_000,
          Uri: {
            'Fn::Join': [
              '',
              Match.arrayWith([{ 'Fn::GetAtt': [ids.mcpFunction, 'Arn'] }, '/response-streaming-invocations']),
            ],
          },
        },
      });
    },
  );

  it('throttles the stage and writes JSON access logs naming the owner', () => {
    const stage = Object.values(resources('AWS::ApiGateway::Stage'))[0]!.Properties;
    expect(stage['MethodSettings']).toEqual([
      expect.objectContaining({
        HttpMethod: '*',
        ResourcePath: '/*',
        ThrottlingRateLimit: 50,
        ThrottlingBurstLimit: 100,
      }),
    ]);
    expect(JSON.parse(stage['AccessLogSetting'].Format as string)).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
      owner: '$context.authorizer.claims.sub',
    });
  });

  it("leaves 401s to the MCP function: no gateway responses for an authorizer's refusals", () => {
    template.resourceCountIs('AWS::ApiGateway::GatewayResponse', 0);
  });
});

describe('REST API with oauthProxy: false (Cognito tokens, checked by API Gateway)', () => {
  let cognito: { stack: ExampleToolsStack; template: Template };
  let cognitoIds: { api: string; userPool: string; resourceServer: string };

  beforeAll(() => {
    cognito = exampleStack({ props: { endpoint: { machineClient: true, oauthProxy: false } } });
    cognitoIds = {
      api: logicalId(cognito.stack, cognito.stack.endpoint.restApi.api),
      userPool: logicalId(cognito.stack, cognito.stack.endpoint.auth!.userPool as never),
      resourceServer: logicalId(cognito.stack, cognito.stack.endpoint.auth!.resourceServer),
    };
  });

  const cognitoResources = (type: string) => cognito.template.findResources(type) as Record<string, Resource>;
  const invokeScope = () => ({ 'Fn::Join': ['', [{ Ref: cognitoIds.resourceServer }, '/invoke']] });

  it('makes no OAuth proxy', () => {
    expect(cognito.stack.endpoint.oauthProxy).toBeUndefined();
    cognito.template.resourceCountIs('AWS::DynamoDB::Table', 1);
    cognito.template.resourceCountIs('AWS::SecretsManager::Secret', 1);
    expect(Object.keys(cognito.template.findResources('Custom::DescribeCognitoUserPoolClient'))).toEqual([]);
    expect(cognito.stack.endpoint.authorizationServerUrl).toBe(cognito.stack.endpoint.auth!.issuerUrl);
  });

  it.each(['POST', 'GET', 'DELETE'])(
    'serves %s /mcp through the Cognito authorizer, requiring the invoke scope',
    (method) => {
      cognito.template.hasResourceProperties('AWS::ApiGateway::Method', {
        HttpMethod: method,
        ResourceId: { Ref: Match.stringLikeRegexp('mcp') },
        AuthorizationType: 'COGNITO_USER_POOLS',
        AuthorizerId: { Ref: Match.stringLikeRegexp('Authorizer') },
        AuthorizationScopes: [invokeScope()],
      });
    },
  );

  it('puts every Lambda method behind the Cognito authorizer with the scope, and leaves only mock methods open', () => {
    const methods = Object.values(cognitoResources('AWS::ApiGateway::Method')).map((method) => method.Properties);
    const lambdaMethods = methods.filter((method) => method['Integration']?.Type === 'AWS_PROXY');
    expect(lambdaMethods.map((method) => method['HttpMethod']).sort()).toEqual(['DELETE', 'GET', 'POST']);
    for (const method of lambdaMethods) {
      expect(method).toMatchObject({
        AuthorizationType: 'COGNITO_USER_POOLS',
        AuthorizerId: { Ref: expect.stringMatching(/Authorizer/) },
        AuthorizationScopes: [invokeScope()],
      });
    }
    for (const method of methods.filter((candidate) => candidate['AuthorizationType'] !== 'COGNITO_USER_POOLS')) {
      expect(method['AuthorizationType']).toBe('NONE');
      expect(method['Integration']?.Type, `open ${method['HttpMethod']} method`).toBe('MOCK');
      expect(['GET', 'OPTIONS']).toContain(method['HttpMethod']);
    }
  });

  it('puts every method behind the authorizer or a mock integration with CORS on, too', () => {
    const { template: cors } = exampleStack({
      props: { endpoint: { oauthProxy: false, corsAllowOrigins: ['https://app.example.com'] } },
    });
    const methods = Object.values(cors.findResources('AWS::ApiGateway::Method') as Record<string, Resource>).map(
      (method) => method.Properties,
    );
    const open = methods.filter((method) => method['AuthorizationType'] !== 'COGNITO_USER_POOLS');
    expect(open.map((method) => method['HttpMethod']).sort()).toEqual(['GET', 'OPTIONS']);
    for (const method of open)
      expect(method).toMatchObject({ AuthorizationType: 'NONE', Integration: { Type: 'MOCK' } });
    for (const method of methods.filter((candidate) => candidate['Integration']?.Type === 'AWS_PROXY'))
      expect(method['AuthorizationType']).toBe('COGNITO_USER_POOLS');
  });

  it('checks tokens against the user pool from the Authorization header', () => {
    cognito.template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'COGNITO_USER_POOLS',
      IdentitySource: 'method.request.header.Authorization',
      ProviderARNs: [{ 'Fn::GetAtt': [cognitoIds.userPool, 'Arn'] }],
    });
  });

  it('serves the RFC 9728 protected resource metadata without a token, naming the user pool', () => {
    const [method] = Object.values(cognitoResources('AWS::ApiGateway::Method')).filter(
      (candidate) =>
        candidate.Properties['Integration']?.Type === 'MOCK' && candidate.Properties['HttpMethod'] === 'GET',
    );
    expect(method!.Properties).toMatchObject({ HttpMethod: 'GET', AuthorizationType: 'NONE' });
    const document = JSON.parse(
      joined(method!.Properties['Integration'].IntegrationResponses[0].ResponseTemplates['application/json']),
    );
    expect(document).toEqual({
      resource: `https://\${${cognitoIds.api}}.execute-api.${TEST_ENV.region}.\${AWS::URLSuffix}/prod/mcp`,
      authorization_servers: [`https://\${${cognitoIds.userPool}.ProviderName}`],
      bearer_methods_supported: ['header'],
      scopes_supported: [`\${${cognitoIds.resourceServer}}/invoke`],
      resource_name: expect.any(String),
    });
  });

  it('answers 401 with WWW-Authenticate naming the metadata document', () => {
    const [response] = Object.values(cognitoResources('AWS::ApiGateway::GatewayResponse')).filter(
      (candidate) => candidate.Properties['ResponseType'] === 'UNAUTHORIZED',
    );
    expect(response!.Properties['StatusCode']).toBe('401');
    expect(joined(response!.Properties['ResponseParameters']['gatewayresponse.header.WWW-Authenticate'])).toBe(
      `'Bearer resource_metadata="https://\${${cognitoIds.api}}.execute-api.${TEST_ENV.region}.\${AWS::URLSuffix}/prod/.well-known/oauth-protected-resource"'`,
    );
  });

  it("carries in the bodies of API Gateway's 401 and 403 the error code the function's 401 carries", () => {
    const refusals = Object.values(cognitoResources('AWS::ApiGateway::GatewayResponse')).filter((candidate) =>
      ['UNAUTHORIZED', 'ACCESS_DENIED'].includes(candidate.Properties['ResponseType'] as string),
    );
    expect(refusals).toHaveLength(2);
    for (const refusal of refusals)
      expect(refusal.Properties['ResponseTemplates']['application/json']).toContain(
        `"code":${UNAUTHORIZED_ERROR_CODE}`,
      );
  });

  it('offers people a public PKCE client asking for the invoke scope, and programs a client-credentials client', () => {
    cognito.template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      AllowedOAuthFlows: ['code'],
      GenerateSecret: false,
      AllowedOAuthScopes: Match.arrayWith([invokeScope()]),
    });
    cognito.template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      AllowedOAuthFlows: ['client_credentials'],
      GenerateSecret: true,
      AllowedOAuthScopes: [invokeScope()],
    });
  });

  it('gives the MCP function none of the OAuth proxy’s settings', () => {
    const [mcp] = Object.values(cognitoResources('AWS::Lambda::Function')).filter(
      (fn) => fn.Properties['Environment'].Variables[MCP_HTTP_ENV.toolStateMachineArns] !== undefined,
    );
    expect(Object.keys(mcp!.Properties['Environment'].Variables).filter((name) => name.startsWith('OAUTH_'))).toEqual(
      [],
    );
  });
});

describe('Cognito', () => {
  it('creates a user pool without self sign-up and with TOTP required', () => {
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      MfaConfiguration: 'ON',
      EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
    });
  });

  it("offers programs a client-credentials client, and people no client of their own: they sign in through the proxy's", () => {
    const scope = { 'Fn::Join': ['', [{ Ref: ids.resourceServer }, '/invoke']] };
    const clients = Object.values(resources('AWS::Cognito::UserPoolClient')).map((client) => client.Properties);
    expect(clients).toHaveLength(2);
    expect(clients).toContainEqual(
      expect.objectContaining({
        AllowedOAuthFlows: ['client_credentials'],
        GenerateSecret: true,
        AllowedOAuthScopes: [scope],
      }),
    );
    // The other is the OAuth proxy's confidential client (oauth-proxy.test.ts); no public client exists.
    for (const client of clients) expect(client['GenerateSecret']).toBe(true);
    expect(stack.endpoint.auth!.userPoolClient).toBeUndefined();
  });

  it('gives the pool a hosted domain for the OAuth endpoints and the sign-in page', () => {
    template.resourceCountIs('AWS::Cognito::UserPoolDomain', 1);
  });
});

describe('status push', () => {
  it('has one rule per registered machine, matching only its status-change events', () => {
    const rules = statusRules().map((rule) => rule.Properties['EventPattern']);
    expect(rules).toEqual(
      ids.machines.map((machine) => ({
        source: ['aws.states'],
        'detail-type': ['Step Functions Execution Status Change'],
        detail: {
          stateMachineArn: [{ Ref: machine }],
          name: [{ prefix: 'task-' }],
          status: ['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'],
        },
      })),
    );
  });

  it('matches exactly the execution names the backend gives its tasks (the rules and grants above say task-)', () => {
    const name = executionNameFor('0'.repeat(64), '0'.repeat(10));
    expect(name.startsWith('task-')).toBe(true);
    expect(taskKeyFromExecutionName(name)).toBe('0'.repeat(64));
  });

  it('alarms as soon as a status event is in the dead-letter queue', () => {
    expect(logicalId(stack, stack.endpoint.statusDeadLetterAlarm)).toMatch(/StatusDeadLetterAlarm/);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [ids.queue, 'QueueName'] } }],
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
  });

  it('targets the status-sync function with retries and the dead-letter queue', () => {
    for (const rule of statusRules()) {
      expect(rule.Properties['Targets']).toEqual([
        expect.objectContaining({
          Arn: { 'Fn::GetAtt': [ids.statusFunction, 'Arn'] },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [ids.queue, 'Arn'] } },
          RetryPolicy: { MaximumRetryAttempts: 8, MaximumEventAgeInSeconds: 7200 },
        }),
      ]);
    }
  });

  it('keeps the dead-letter queue encrypted and reachable over TLS only', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });
});

describe('IAM', () => {
  it('lets the MCP function use the table items and the owner index, start the tools’ machines and describe, read the history of or stop only their executions, and read the token signing key', () => {
    const statements = policyStatements(ids.mcpFunction).map((statement) => ({
      ...statement,
      Action: sorted(statement.Action),
      Resource: sortedResources(statement.Resource),
    }));
    expect(statements).toHaveLength(7);
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
          Resource: sortedResources(ids.machines.map((id) => ({ Ref: id }))),
        },
        {
          Effect: 'Allow',
          Action: ['states:DescribeExecution', 'states:GetExecutionHistory', 'states:StopExecution'],
          Resource: sortedResources(ids.machines.map(executionsOf)),
        },
        // The OAuth proxy's access tokens are checked with it (oauth-proxy.test.ts).
        {
          Effect: 'Allow',
          Action: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'],
          Resource: [{ Ref: logicalId(stack, stack.endpoint.oauthProxy!.signingKey) }],
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
    const statements = policyStatements(ids.statusFunction).map((statement) => ({
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
          Resource: sortedResources(ids.machines.map(executionsOf)),
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

  it('lets CDK’s custom resource provider (the Cognito client secret, read at deployment) describe that one client’s pool, nothing more', () => {
    const providerPolicies = Object.entries(resources('AWS::IAM::Policy')).filter(([, policy]) =>
      (policy.Properties['Roles'] as { Ref: string }[]).some((role) => isCustomResourceProvider(role.Ref)),
    );
    expect(providerPolicies.flatMap(([, policy]) => policy.Properties['PolicyDocument'].Statement)).toEqual([
      {
        Effect: 'Allow',
        Action: 'cognito-idp:DescribeUserPoolClient',
        Resource: { 'Fn::GetAtt': [ids.userPool, 'Arn'] },
      },
    ]);
  });
});

describe('options', () => {
  it('reserves the MCP function’s concurrency when asked, and only then', () => {
    expect(resource(ids.mcpFunction).Properties['ReservedConcurrentExecutions']).toBeUndefined();
    const { stack: reserved, template: withReserve } = exampleStack({
      props: { endpoint: { mcpFunctionReservedConcurrency: 200 } },
    });
    const fn = withReserve.toJSON()['Resources'][logicalId(reserved, reserved.endpoint.mcpFunction)] as Resource;
    expect(fn.Properties['ReservedConcurrentExecutions']).toBe(200);
    expect(resource(ids.statusFunction).Properties['ReservedConcurrentExecutions']).toBeUndefined();
  });

  it('leaves X-Ray and Powertools Tracer off by default', () => {
    for (const fn of Object.values(ownResources(template, 'AWS::Lambda::Function'))) {
      expect(fn.Properties['TracingConfig']).toBeUndefined();
      expect(fn.Properties['Environment'].Variables[ENV.tracing]).toBeUndefined();
    }
  });

  it('turns on active X-Ray tracing and Powertools Tracer in every function when tracing is on', () => {
    const { template: traced } = exampleStack({ props: { endpoint: { tracing: true } } });
    const functions = Object.values(ownResources(traced, 'AWS::Lambda::Function'));
    expect(functions.length).toBeGreaterThan(0);
    for (const fn of functions) {
      expect(fn.Properties['TracingConfig']).toEqual({ Mode: 'Active' });
      expect(fn.Properties['Environment'].Variables[ENV.tracing]).toBe('true');
    }
  });

  it('leaves the account’s API Gateway CloudWatch role alone by default (the example app opts in)', () => {
    const { template: withoutRole } = exampleStack({
      props: { endpoint: { machineClient: true, createApiGatewayAccountRole: false } },
    });
    withoutRole.resourceCountIs('AWS::ApiGateway::Account', 0);
    const bare = testStack();
    new McpTaskEndpoint(bare, 'Endpoint');
    Template.fromStack(bare).resourceCountIs('AWS::ApiGateway::Account', 0);
  });

  it('sets the account’s API Gateway CloudWatch role on request, and retains the role', () => {
    const { template: withRole } = exampleStack({ props: { endpoint: { createApiGatewayAccountRole: true } } });
    withRole.resourceCountIs('AWS::ApiGateway::Account', 1);
    const [roleId] = Object.keys(
      withRole.findResources('AWS::IAM::Role', {
        Properties: {
          AssumeRolePolicyDocument: {
            Statement: [Match.objectLike({ Principal: { Service: 'apigateway.amazonaws.com' } })],
          },
        },
      }),
    );
    expect(roleId).toBeDefined();
    withRole.hasResource('AWS::ApiGateway::Account', {
      Properties: { CloudWatchRoleArn: { 'Fn::GetAtt': [roleId, 'Arn'] } },
    });
    // The stage, whose access logs need the role, is created only once the account names it.
    const [accountId] = Object.keys(withRole.findResources('AWS::ApiGateway::Account'));
    withRole.hasResource('AWS::ApiGateway::Stage', { DependsOn: Match.arrayWith([accountId]) });
    withRole.hasResource('AWS::IAM::Role', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        AssumeRolePolicyDocument: Match.objectLike({
          Statement: [Match.objectLike({ Principal: { Service: 'apigateway.amazonaws.com' } })],
        }),
      }),
    });
  });

  it('names the example machines’ log groups anew for each creation of the stack, under /aws/vendedlogs/', () => {
    const names = Object.values(ownResources(template, 'AWS::Logs::LogGroup'))
      .map((group) => group.Properties['LogGroupName'])
      .filter((name) => name !== undefined);
    expect(names).toHaveLength(EXAMPLE_TOOLS.length);
    for (const name of names) {
      expect(name).toEqual({
        'Fn::Join': [
          '',
          [
            expect.stringMatching(/^\/aws\/vendedlogs\/states\/McpTasks-[A-Za-z]+-$/),
            { 'Fn::Select': [2, { 'Fn::Split': ['/', { Ref: 'AWS::StackId' }] }] },
          ],
        ],
      });
    }
  });
});
