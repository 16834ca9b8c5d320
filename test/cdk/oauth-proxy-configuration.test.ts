// The OAuth proxy as McpTaskEndpoint deploys it by default: the proxy function's settings, the MCP function set up to
// check its tokens, and the props that turn it, or parts of it, off.
import { Template } from 'aws-cdk-lib/assertions';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import { describe, expect, it } from 'vitest';
import { OAUTH_ENV } from '../../lambda/contract/environment-names.js';
import { DEFAULT_ALLOWED_REDIRECT_URIS } from '../../lambda/contract/redirect-uri-policy.js';
import { McpTaskEndpoint, type McpTaskEndpointProps } from '../../lib/mcp-task-endpoint.js';
import { joined, exampleStack, logicalId, TEST_ENV, testStack, type TemplateResource } from './cdk-app.js';
import { environmentOf, ids, stack, template, useOAuthProxyTemplate } from './oauth-proxy-template.js';

useOAuthProxyTemplate();

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
