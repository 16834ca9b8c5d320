// The OAuth proxy as McpTaskEndpoint deploys it by default: its public routes, and the protected resource metadata
// naming its issuer. Its credentials: oauth-proxy-credentials.test.ts; its functions' settings and the props that turn
// it, or parts of it, off: oauth-proxy-configuration.test.ts.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { createOAuthProxyFromConfig, oauthProxyConfigFromEnvironment } from '../../lambda/handlers/oauth-proxy-core.js';
import { OAUTH_ENV } from '../../lambda/contract/environment-names.js';
import { OAUTH_PATHS } from '../../lambda/contract/oauth-paths.js';
import { OAUTH_PROXY_ROUTES } from '../../lib/auth/oauth-proxy.js';
import { joined, exampleStack, logicalId, TEST_ENV } from './cdk-app.js';
import { environmentOf, ids, resources, stack, template, useOAuthProxyTemplate } from './oauth-proxy-template.js';

useOAuthProxyTemplate();

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
      {
        dynamoDb: new DynamoDBClient({
          region: TEST_ENV.region,
          endpoint: 'http://127.0.0.1:9',
          credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
        }),
        logger: quiet,
      },
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

/** The methods the routes have, each with its OPTIONS. */
function methodCount(routes: readonly { readonly methods: readonly string[] }[]): number {
  return routes.reduce((count, route) => count + route.methods.length + 1, 0);
}
