// McpTaskEndpoint as deployed by the example app: the template's REST API and Cognito, with the OAuth proxy (the
// default) and without it (oauthProxy: false, Cognito tokens checked by API Gateway). The OAuth proxy's own resources
// are specified in the oauth-proxy-*.test.ts files.
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../lambda/contract/environment-names.js';
import type { ExampleToolsStack } from '../../bin/example-tools-stack.js';
import { joined, exampleStack, logicalId, TEST_ENV } from './cdk-app.js';
import { UNAUTHORIZED_ERROR_CODE } from '../../lambda/contract/unauthorized-error.js';
import { ids, resources, stack, template, useEndpointTemplate, type Resource } from './endpoint-template.js';

useEndpointTemplate();

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
        ThrottlingRateLimit: 100,
        ThrottlingBurstLimit: 200,
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
    // The task and events tables; the requestState key and the webhook sealing key.
    cognito.template.resourceCountIs('AWS::DynamoDB::Table', 2);
    cognito.template.resourceCountIs('AWS::SecretsManager::Secret', 2);
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
      (fn) => fn.Properties['Environment']?.Variables[ENV.toolCatalogItem] !== undefined,
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
    // The other is the OAuth proxy's confidential client (oauth-proxy-credentials.test.ts); no public client exists.
    for (const client of clients) expect(client['GenerateSecret']).toBe(true);
    expect(stack.endpoint.auth!.userPoolClient).toBeUndefined();
  });

  it('gives the pool a hosted domain for the OAuth endpoints and the sign-in page', () => {
    template.resourceCountIs('AWS::Cognito::UserPoolDomain', 1);
  });
});
