// The OAuth proxy as McpTaskEndpoint deploys it by default: its public routes, the protected resource metadata naming
// its issuer, its confidential Cognito client, the secrets only the right roles can read (and no function's
// environment holds), its table and the least access to it, the MCP function set up to check its tokens, and the
// props that turn it, or parts of it, off.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import * as kms from 'aws-cdk-lib/aws-kms';
import { beforeAll, describe, expect, it } from 'vitest';
import { createOAuthProxyFromConfig, oauthProxyConfigFromEnvironment } from '../../lambda/handlers/oauth-proxy-core.js';
import { OAUTH_ENV } from '../../lambda/contract/environment-names.js';
import { OAUTH_PATHS } from '../../lambda/contract/oauth-paths.js';
import { OAUTH_PARTITION_KEY, OAUTH_TTL_ATTRIBUTE } from '../../lambda/contract/oauth-table-schema.js';
import { DEFAULT_ALLOWED_REDIRECT_URIS } from '../../lambda/contract/redirect-uri-policy.js';
import type { ExampleToolsStack } from '../../bin/example-tools-stack.js';
import { McpTaskEndpoint, type McpTaskEndpointProps } from '../../lib/mcp-task-endpoint.js';
import { OAUTH_PROXY_ROUTES } from '../../lib/oauth-proxy.js';
import {
  dynamoDbActionsOf,
  joined,
  exampleStack,
  logicalId,
  TEST_ENV,
  testStack,
  type TemplateResource,
} from './cdk-app.js';

type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

let stack: ExampleToolsStack;
let template: Template;
let ids: {
  api: string;
  userPool: string;
  mcpFunction: string;
  mcpRole: string;
  oauthFunction: string;
  oauthRole: string;
  table: string;
  client: string;
  clientSecret: string;
  signingKey: string;
};

beforeAll(() => {
  ({ stack, template } = exampleStack());
  const { endpoint } = stack;
  const proxy = endpoint.oauthProxy!;
  ids = {
    api: logicalId(stack, endpoint.restApi.api),
    userPool: logicalId(stack, endpoint.auth!.userPool as never),
    mcpFunction: logicalId(stack, endpoint.mcpFunction),
    mcpRole: logicalId(stack, endpoint.mcpHandler.role),
    oauthFunction: logicalId(stack, proxy.function),
    oauthRole: logicalId(stack, proxy.handler.role),
    table: logicalId(stack, proxy.table),
    client: logicalId(stack, proxy.upstreamClient),
    clientSecret: logicalId(stack, proxy.upstreamClientSecret),
    signingKey: logicalId(stack, proxy.signingKey),
  };
});

function resources(source: Template, type: string): Record<string, TemplateResource> {
  return source.findResources(type) as Record<string, TemplateResource>;
}

function environmentOf(source: Template, functionId: string): Record<string, unknown> {
  return source.toJSON()['Resources'][functionId].Properties['Environment'].Variables as Record<string, unknown>;
}

/**
 * Every IAM statement in the template with the roles it applies to: policies, managed policies and roles' inline
 * policies alike, so a grant cannot hide in any of them.
 */
function everyStatement(source: Template): { roles: string[]; statement: Statement }[] {
  const found: { roles: string[]; statement: Statement }[] = [];
  const roleRefs = (roles: unknown) => ((roles ?? []) as { Ref: string }[]).map((role) => role.Ref);
  for (const type of ['AWS::IAM::Policy', 'AWS::IAM::ManagedPolicy']) {
    for (const policy of Object.values(resources(source, type))) {
      for (const statement of policy.Properties['PolicyDocument'].Statement as Statement[])
        found.push({ roles: roleRefs(policy.Properties['Roles']), statement });
    }
  }
  for (const [roleId, role] of Object.entries(resources(source, 'AWS::IAM::Role'))) {
    for (const policy of (role.Properties['Policies'] ?? []) as { PolicyDocument: { Statement: Statement[] } }[])
      for (const statement of policy.PolicyDocument.Statement) found.push({ roles: [roleId], statement });
  }
  return found;
}

/** The roles any statement lets call `action` (or a wildcard covering it) on a resource that names `resourceId`. */
function rolesAllowed(source: Template, action: string, resourceId: string): string[] {
  const [service] = action.split(':');
  const covers = (granted: string) => granted === action || granted === '*' || granted === `${service}:*`;
  return everyStatement(source)
    .filter(({ statement }) => statement.Effect === 'Allow')
    .filter(({ statement }) => [statement.Action].flat().some(covers))
    .filter(({ statement }) => {
      const text = JSON.stringify(statement.Resource);
      return text.includes(`"${resourceId}"`) || text === '"*"' || text === '["*"]';
    })
    .flatMap(({ roles }) => roles)
    .sort();
}

describe('routes', () => {
  const methodsAt = (source: Template, path: string) =>
    Object.values(resources(source, 'AWS::ApiGateway::Method')).filter(
      (method) =>
        method.Properties['ResourceId']?.Ref ===
        logicalId(stack, stack.endpoint.restApi.api.root.resourceForPath(path) as never),
    );

  it('serve every path of the runtime, relative to the issuer', () => {
    const routed = OAUTH_PROXY_ROUTES.map((route) => `/${route.path}`).sort();
    // The runtime's other path, <metadata>/<resource path>, is RFC 9728's location for a resource at the host's
    // root; behind a stage no client looks for it there, and the 401 names the document's URL.
    expect(routed).toEqual(Object.values(OAUTH_PATHS).sort());
  });

  it.each(OAUTH_PROXY_ROUTES.map((route) => [route.path, route.methods.join(', '), route.methods] as const))(
    'serve %s (%s and OPTIONS) without authorization, from the proxy function',
    (path, _listed, httpMethods) => {
      const methods = methodsAt(template, path);
      expect(methods.map((method) => method.Properties['HttpMethod']).sort()).toEqual(
        [...httpMethods, 'OPTIONS'].sort(),
      );
      for (const method of methods) {
        expect(method.Properties).toMatchObject({
          AuthorizationType: 'NONE',
          Integration: { Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' },
        });
        expect(method.Properties['AuthorizerId']).toBeUndefined();
        // Buffered: the proxy's answers are small.
        expect(method.Properties['Integration']['ResponseTransferMode']).not.toBe('STREAM');
        expect(joined(method.Properties['Integration'].Uri)).toContain(`\${${ids.oauthFunction}.Arn}/invocations`);
      }
    },
  );

  it('let API Gateway invoke the proxy function for exactly those methods, each by its own ARN', () => {
    const permissions = Object.values(resources(template, 'AWS::Lambda::Permission')).filter((permission) =>
      JSON.stringify(permission.Properties['FunctionName']).includes(ids.oauthFunction),
    );
    expect(permissions).toHaveLength(methodCount(OAUTH_PROXY_ROUTES));
    for (const permission of permissions) {
      expect(permission.Properties['Principal']).toBe('apigateway.amazonaws.com');
      // …:<api>/<stage>/<method>/<path>: this method only, never a wildcard.
      expect(joined(permission.Properties['SourceArn'])).toMatch(/^[^*]+\/\$\{\w+\}\/(GET|POST|OPTIONS)\/[a-z.][^*]*$/);
    }
  });

  it('acknowledge for each method why it is public: clients call it before they have a token', () => {
    for (const method of stack.endpoint.oauthProxy!.methods) {
      const acknowledged = method.node.metadata
        .filter((entry) => entry.type.includes('acknowledged'))
        .flatMap((entry) => Object.entries(entry.data as Record<string, string>));
      expect(acknowledged.map(([id]) => id.replace(/^annotation::/i, ''))).toContain('AwsSolutions-APIG4');
      for (const [, reason] of acknowledged) expect(reason).toContain('before they have a token');
    }
  });

  it('leave /register out with Dynamic Client Registration off', () => {
    const { stack: off, template: offTemplate } = exampleStack({
      props: { endpoint: { machineClient: true, dynamicClientRegistration: false } },
    });
    const paths = Object.values(resources(offTemplate, 'AWS::ApiGateway::Resource')).map(
      (resource) => resource.Properties['PathPart'],
    );
    expect(paths).not.toContain('register');
    expect(paths).toContain('token');
    expect(off.endpoint.oauthProxy!.methods).toHaveLength(
      methodCount(OAUTH_PROXY_ROUTES.filter((route) => !('registration' in route))),
    );
  });
});

describe('protected resource metadata', () => {
  it('is served by the proxy function at the URL the MCP function’s 401 names', () => {
    const proxy = stack.endpoint.oauthProxy!;
    expect(proxy.resourceMetadataMethod.resource.path).toBe('/.well-known/oauth-protected-resource');
    expect(proxy.resourceMetadataMethod.httpMethod).toBe('GET');
    expect(joined(Stack.of(stack).resolve(stack.endpoint.restApi.resourceMetadataUrl))).toBe(
      `https://\${${ids.api}}.execute-api.${TEST_ENV.region}.\${AWS::URLSuffix}/prod/.well-known/oauth-protected-resource`,
    );
  });

  it('names the proxy (the stage’s base URL) as the issuer and the MCP URL as the resource, in the function', () => {
    const variables = environmentOf(template, ids.oauthFunction);
    const stageUrl = `https://\${${ids.api}}.execute-api.${TEST_ENV.region}.\${AWS::URLSuffix}/prod`;
    expect(joined(variables[OAUTH_ENV.issuer])).toBe(stageUrl);
    expect(joined(variables[OAUTH_ENV.resource])).toBe(`${stageUrl}/mcp`);
    expect(joined(Stack.of(stack).resolve(stack.endpoint.authorizationServerUrl))).toBe(stageUrl);
  });

  it('is, as the deployed function serves it, the proxy as authorization server for the MCP URL', async () => {
    // The function's environment with CloudFormation's values filled in, fed to the runtime's own composition root.
    const filled = (value: unknown) =>
      joined(value)
        .replaceAll(`\${${ids.api}}`, 'a1b2c3d4e5')
        .replaceAll('${AWS::URLSuffix}', 'amazonaws.com')
        .replace(/\$\{[^}]+\}/g, 'deployed-value');
    const env = Object.fromEntries(
      Object.entries(environmentOf(template, ids.oauthFunction)).map(([name, value]) => [name, filled(value)]),
    );
    const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const proxy = createOAuthProxyFromConfig(
      oauthProxyConfigFromEnvironment(env, () => async () => 'k'.repeat(64)),
      new DynamoDBClient({
        region: TEST_ENV.region,
        endpoint: 'http://127.0.0.1:9',
        credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
      }),
      quiet,
    );
    const issuer = `https://a1b2c3d4e5.execute-api.${TEST_ENV.region}.amazonaws.com/prod`;
    const fetchDocument = async (path: string) =>
      (
        await proxy.handle(new Request(`https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com${path}`), {
          sourceIp: '192.0.2.1',
        })
      ).json() as Promise<Record<string, unknown>>;
    expect(await fetchDocument(OAUTH_PATHS.protectedResourceMetadata)).toMatchObject({
      resource: `${issuer}/mcp`,
      authorization_servers: [issuer],
    });
    expect(await fetchDocument(OAUTH_PATHS.authorizationServerMetadata)).toMatchObject({
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      registration_endpoint: `${issuer}/register`,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
    });
  });
});

describe('Cognito client', () => {
  it('is one confidential client of the endpoint’s user pool: code grant, openid and email, the proxy’s callback', () => {
    const client = template.toJSON()['Resources'][ids.client] as TemplateResource;
    expect(client.Type).toBe('AWS::Cognito::UserPoolClient');
    expect(client.Properties).toMatchObject({
      UserPoolId: { Ref: ids.userPool },
      GenerateSecret: true,
      AllowedOAuthFlows: ['code'],
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthScopes: ['openid', 'email'],
      SupportedIdentityProviders: ['COGNITO'],
      PreventUserExistenceErrors: 'ENABLED',
      EnableTokenRevocation: true,
      RefreshTokenValidity: 30 * 24 * 60,
      TokenValidityUnits: expect.objectContaining({ RefreshToken: 'minutes' }),
    });
    expect(client.Properties['CallbackURLs'].map(joined)).toEqual([
      `https://\${${ids.api}}.execute-api.${TEST_ENV.region}.\${AWS::URLSuffix}/prod/oauth/callback`,
    ]);
  });

  it('is named to the proxy function with the user pool’s issuer', () => {
    const variables = environmentOf(template, ids.oauthFunction);
    expect(variables[OAUTH_ENV.upstreamClientId]).toEqual({ Ref: ids.client });
    expect(joined(variables[OAUTH_ENV.upstreamIssuer])).toBe(`https://\${${ids.userPool}.ProviderName}`);
  });
});

describe('secrets', () => {
  it('keep the client secret in Secrets Manager, copied from Cognito at deployment with the response kept out of logs', () => {
    const secret = template.toJSON()['Resources'][ids.clientSecret] as TemplateResource;
    expect(secret.Type).toBe('AWS::SecretsManager::Secret');
    const [readerId] = secret.Properties['SecretString']['Fn::GetAtt'] as [string, string];
    expect(secret.Properties['SecretString']['Fn::GetAtt'][1]).toBe('UserPoolClient.ClientSecret');
    const reader = template.toJSON()['Resources'][readerId] as TemplateResource;
    expect(reader.Type).toBe('Custom::DescribeCognitoUserPoolClient');
    const call = joined(reader.Properties['Create']);
    expect(call).toContain(`"ClientId":"\${${ids.client}}"`);
    expect(JSON.parse(call.replace(/\$\{[^}]+\}/g, 'x'))).toMatchObject({ logApiResponseData: false });
  });

  it('let only the proxy function’s role read the client secret (every IAM policy in the template scanned)', () => {
    for (const action of ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'])
      expect(rolesAllowed(template, action, ids.clientSecret), action).toEqual([ids.oauthRole]);
    template.resourceCountIs('AWS::SecretsManager::ResourcePolicy', 0);
  });

  it('generate a 64-character signing key without punctuation', () => {
    expect((template.toJSON()['Resources'][ids.signingKey] as TemplateResource).Properties).toMatchObject({
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true, IncludeSpace: false },
    });
  });

  it('let the proxy and the MCP function read the signing key, and nothing else', () => {
    expect(rolesAllowed(template, 'secretsmanager:GetSecretValue', ids.signingKey)).toEqual(
      [ids.mcpRole, ids.oauthRole].sort(),
    );
  });

  it('let the MCP function read the signing key but not the client secret', () => {
    expect(rolesAllowed(template, 'secretsmanager:GetSecretValue', ids.signingKey)).toContain(ids.mcpRole);
    expect(rolesAllowed(template, 'secretsmanager:GetSecretValue', ids.clientSecret)).not.toContain(ids.mcpRole);
  });

  it('appear in no function’s environment but as ARNs', () => {
    const secretIds = [ids.clientSecret, ids.signingKey];
    const readerIds = Object.keys(resources(template, 'Custom::DescribeCognitoUserPoolClient'));
    for (const [functionId, fn] of Object.entries(resources(template, 'AWS::Lambda::Function'))) {
      for (const [name, value] of Object.entries(
        (fn.Properties['Environment']?.Variables ?? {}) as Record<string, unknown>,
      )) {
        const text = JSON.stringify(value);
        for (const secretId of secretIds) {
          // `Ref` of a secret is its ARN; a dynamic reference or any other use would put the value there.
          if (text.includes(`"${secretId}"`)) expect(value, `${functionId} ${name}`).toEqual({ Ref: secretId });
        }
        for (const readerId of readerIds) expect(text, `${functionId} ${name}`).not.toContain(readerId);
        expect(text, `${functionId} ${name}`).not.toContain('UserPoolClient.ClientSecret');
      }
    }
    expect(environmentOf(template, ids.oauthFunction)).toMatchObject({
      [OAUTH_ENV.upstreamClientSecretArn]: { Ref: ids.clientSecret },
      [OAUTH_ENV.signingKeySecretArn]: { Ref: ids.signingKey },
    });
  });

  it('are retained with the stack’s other data by default', () => {
    for (const id of [ids.clientSecret, ids.signingKey, ids.table])
      expect(template.toJSON()['Resources'][id]).toMatchObject({ DeletionPolicy: 'Retain' });
  });
});

describe('table', () => {
  it('is keyed by the store’s partition key, on demand, with TTL, point-in-time recovery and encryption at rest', () => {
    expect((template.toJSON()['Resources'][ids.table] as TemplateResource).Properties).toEqual({
      KeySchema: [{ AttributeName: OAUTH_PARTITION_KEY, KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: OAUTH_PARTITION_KEY, AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: OAUTH_TTL_ATTRIBUTE, Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
  });

  it('is open to the proxy function alone, for the item actions of its store, and the proxy to no other table', () => {
    const onTable = everyStatement(template).filter(({ statement }) =>
      JSON.stringify(statement.Resource).includes(`"${ids.table}"`),
    );
    expect(onTable).toEqual([
      {
        roles: [ids.oauthRole],
        statement: {
          Effect: 'Allow',
          Action: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
          Resource: { 'Fn::GetAtt': [ids.table, 'Arn'] },
        },
      },
    ]);
    const proxyDynamoDb = everyStatement(template).filter(
      ({ roles, statement }) =>
        roles.includes(ids.oauthRole) && [statement.Action].flat().some((action) => action.startsWith('dynamodb:')),
    );
    expect(proxyDynamoDb).toEqual(onTable);
  });

  it('grants every DynamoDB call the OAuth store makes', () => {
    const granted = [onTableActions()].flat();
    for (const action of dynamoDbActionsOf('lambda/oauth/dynamodb-oauth-store.ts')) expect(granted).toContain(action);
  });

  it('takes the endpoint’s customer managed key, which the proxy function may use', () => {
    const keyed = testStack();
    const key = new kms.Key(keyed, 'Key', { enableKeyRotation: true });
    const endpoint = new McpTaskEndpoint(keyed, 'Endpoint', { tableEncryptionKey: key });
    const keyedTemplate = Template.fromStack(keyed);
    const tableId = logicalId(keyed, endpoint.oauthProxy!.table);
    expect(keyedTemplate.toJSON()['Resources'][tableId].Properties['SSESpecification']).toMatchObject({
      SSEType: 'KMS',
      KMSMasterKeyId: { 'Fn::GetAtt': [logicalId(keyed, key), 'Arn'] },
    });
    expect(rolesAllowed(keyedTemplate, 'kms:Decrypt', logicalId(keyed, key))).toContain(
      logicalId(keyed, endpoint.oauthProxy!.handler.role),
    );
  });

  function onTableActions(): string[] {
    return everyStatement(template)
      .filter(({ statement }) => JSON.stringify(statement.Resource).includes(`"${ids.table}"`))
      .flatMap(({ statement }) => [statement.Action].flat());
  }
});

describe('proxy function', () => {
  it('gets the table, the secrets by ARN, the redirect URI policy, both registration kinds on, and the limits', () => {
    const variables = environmentOf(template, ids.oauthFunction);
    expect(variables).toMatchObject({
      [OAUTH_ENV.tableName]: { Ref: ids.table },
      [OAUTH_ENV.allowedRedirectUris]: JSON.stringify(DEFAULT_ALLOWED_REDIRECT_URIS),
      [OAUTH_ENV.clientIdMetadataDocuments]: 'true',
      [OAUTH_ENV.dynamicClientRegistration]: 'true',
      [OAUTH_ENV.registrationsPerSourcePerHour]: '10',
      [OAUTH_ENV.registrationsPerDay]: '1000',
    });
    // Every variable the runtime reads for the proxy, and none for the machine client (the MCP function's concern).
    expect(
      Object.keys(variables)
        .filter((name) => name.startsWith('OAUTH_'))
        .sort(),
    ).toEqual(
      Object.values(OAUTH_ENV)
        .filter((name) => !name.startsWith('OAUTH_MACHINE_'))
        .sort(),
    );
  });

  it('takes the endpoint’s redirect URIs, switches and limits', () => {
    const { stack: custom, template: customTemplate } = exampleStack({
      props: {
        endpoint: {
          allowedRedirectUris: ['loopback', 'https://app.example.com/oauth/callback'],
          clientIdMetadataDocuments: false,
          registrationsPerSourcePerHour: 3,
          registrationsPerDay: 50,
        },
      },
    });
    expect(environmentOf(customTemplate, logicalId(custom, custom.endpoint.oauthProxy!.function))).toMatchObject({
      [OAUTH_ENV.allowedRedirectUris]: '["loopback","https://app.example.com/oauth/callback"]',
      [OAUTH_ENV.clientIdMetadataDocuments]: 'false',
      [OAUTH_ENV.dynamicClientRegistration]: 'true',
      [OAUTH_ENV.registrationsPerSourcePerHour]: '3',
      [OAUTH_ENV.registrationsPerDay]: '50',
    });
  });

  it('runs on Node.js 22, arm64, with JSON logs in its own log group, like every handler', () => {
    const fn = template.toJSON()['Resources'][ids.oauthFunction] as TemplateResource;
    expect(fn.Properties).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      LoggingConfig: { LogFormat: 'JSON' },
    });
  });
});

describe('MCP function', () => {
  it('gets the issuer, the resource and the signing key’s ARN, to check the proxy’s tokens', () => {
    const variables = environmentOf(template, ids.mcpFunction);
    const stageUrl = `https://\${${ids.api}}.execute-api.${TEST_ENV.region}.\${AWS::URLSuffix}/prod`;
    expect(joined(variables[OAUTH_ENV.issuer])).toBe(stageUrl);
    expect(joined(variables[OAUTH_ENV.resource])).toBe(`${stageUrl}/mcp`);
    expect(variables[OAUTH_ENV.signingKeySecretArn]).toEqual({ Ref: ids.signingKey });
  });

  it('gets the machine client’s pool, client ID and scope, so client-credentials tokens keep working', () => {
    const auth = stack.endpoint.auth!;
    expect(environmentOf(template, ids.mcpFunction)).toMatchObject({
      [OAUTH_ENV.machineUserPoolId]: { Ref: ids.userPool },
      [OAUTH_ENV.machineClientId]: { Ref: logicalId(stack, auth.machineClient!) },
      [OAUTH_ENV.machineScope]: { 'Fn::Join': ['', [{ Ref: logicalId(stack, auth.resourceServer) }, '/invoke']] },
    });
  });

  it('gets no machine client settings without a machine client', () => {
    const bare = testStack();
    const endpoint = new McpTaskEndpoint(bare, 'Endpoint');
    const variables = environmentOf(Template.fromStack(bare), logicalId(bare, endpoint.mcpFunction));
    expect(variables[OAUTH_ENV.issuer]).toBeDefined();
    expect(Object.keys(variables).filter((name) => name.startsWith('OAUTH_MACHINE_'))).toEqual([]);
  });
});

describe('McpTaskEndpoint OAuth proxy props', () => {
  function problemsOf(props: McpTaskEndpointProps, scope = testStack()): string {
    try {
      new McpTaskEndpoint(scope, 'Endpoint', props);
    } catch (error) {
      return String(error);
    }
    return '';
  }

  it('turns the proxy on by default, and off with oauthProxy: false', () => {
    const on = new McpTaskEndpoint(testStack(), 'Endpoint');
    expect(on.oauthProxy).toBeDefined();
    expect(on.authorizationServerUrl).toBe(on.oauthProxy!.issuer);
    const off = new McpTaskEndpoint(testStack(), 'Endpoint', { oauthProxy: false });
    expect(off.oauthProxy).toBeUndefined();
    expect(off.auth!.authorizer).toBeDefined();
    const open = new McpTaskEndpoint(testStack(), 'Endpoint', { openEndpoint: true });
    expect(open.oauthProxy).toBeUndefined();
    expect(open.authorizationServerUrl).toBeUndefined();
  });

  it('refuses, all at once, proxy options given with the proxy off', () => {
    const error = problemsOf({
      oauthProxy: false,
      clientIdMetadataDocuments: false,
      dynamicClientRegistration: false,
      allowedRedirectUris: ['loopback'],
      registrationsPerSourcePerHour: 5,
      registrationsPerDay: 5,
    });
    for (const key of [
      'clientIdMetadataDocuments',
      'dynamicClientRegistration',
      'allowedRedirectUris',
      'registrationsPerSourcePerHour',
      'registrationsPerDay',
    ])
      expect(error).toContain(`oauthProxy is false, so ${key} would have no effect`);
  });

  it('refuses the proxy and its options on an open endpoint', () => {
    const error = problemsOf({ openEndpoint: true, oauthProxy: true, allowedRedirectUris: ['loopback'] });
    expect(error).toContain('openEndpoint is true, so oauthProxy would have no effect');
    expect(error).toContain('openEndpoint is true, so allowedRedirectUris would have no effect');
  });

  it('refuses an existing user pool without a domain prefix while the proxy is on, and allows it otherwise', () => {
    const scope = testStack();
    const pool = cognito.UserPool.fromUserPoolId(scope, 'Pool', 'eu-west-1_AbCdEf123');
    expect(problemsOf({ existingUserPoolObj: pool }, scope)).toContain(
      "The OAuth proxy signs people in on the user pool's hosted domain",
    );
    expect(problemsOf({ existingUserPoolObj: pool, cognitoDomainPrefix: 'team-mcp' }, testStack())).toBe('');
    const other = testStack();
    const otherPool = cognito.UserPool.fromUserPoolId(other, 'Pool', 'eu-west-1_AbCdEf123');
    expect(problemsOf({ existingUserPoolObj: otherPool, oauthProxy: false }, other)).toBe('');
  });

  it('refuses oauthCallbackUrls while the proxy is on: its redirect URIs are allowedRedirectUris', () => {
    expect(problemsOf({ oauthCallbackUrls: ['http://localhost:6274/oauth/callback'] })).toContain(
      'oauthCallbackUrls configures the Cognito client MCP clients use directly',
    );
    expect(problemsOf({ oauthProxy: false, oauthCallbackUrls: ['http://localhost:6274/oauth/callback'] })).toBe('');
  });

  it('refuses redirect URI patterns the runtime would refuse, and an empty list, naming each', () => {
    const error = problemsOf({
      allowedRedirectUris: ['http://app.example.com/callback', 'https://app.example.com/#done', 'not a uri'],
    });
    expect(error).toContain("'http://app.example.com/callback' is plain http on a host other than loopback");
    expect(error).toContain("'https://app.example.com/#done' has a fragment");
    expect(error).toContain("'not a uri' is not an absolute URI");
    expect(problemsOf({ allowedRedirectUris: [] })).toContain('allowedRedirectUris must list at least one');
  });

  it('refuses registration limits that are not positive integers, or that mean nothing without registration', () => {
    const error = problemsOf({ registrationsPerSourcePerHour: 0, registrationsPerDay: 2.5 });
    expect(error).toContain('registrationsPerSourcePerHour must be a positive integer, got 0');
    expect(error).toContain('registrationsPerDay must be a positive integer, got 2.5');
    expect(problemsOf({ dynamicClientRegistration: false, registrationsPerDay: 10 })).toContain(
      'dynamicClientRegistration is false, so registrationsPerDay would have no effect',
    );
  });
});

/** The methods the routes have, each with its OPTIONS. */
function methodCount(routes: readonly { readonly methods: readonly string[] }[]): number {
  return routes.reduce((count, route) => count + route.methods.length + 1, 0);
}
