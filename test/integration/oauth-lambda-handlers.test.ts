// The deployed Lambda handlers with the OAuth proxy on, fed API Gateway REST proxy events for the `prod` stage: the
// proxy function (its secrets read through the AWS SDK from a Secrets Manager stand-in, never from the environment)
// hands out URLs that keep the stage, and the MCP function checks the proxy's tokens itself.
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { ENV, OAUTH_ENV } from '../../lambda/contract/environment-names.js';
import type { StreamingHandler } from '../../lambda/handlers/response-streaming.js';
import { mintAccessToken } from '../../lambda/oauth/access-tokens.js';
import { localAwsEnvironment } from '../../local/local-aws.js';
import { writeDeclaredCatalog } from '../../local/declared-tool-catalog.js';
import { createOAuthTable } from '../../local/dynamodb-local-tables.js';
import { startOAuthUpstream, type OAuthUpstream } from '../../local/oauth-upstream.js';
import { DOMAIN, invokeStreaming, proxyEvent, STAGE } from '../support/api-gateway-events.js';
import { createTestTable, exampleTools, localAwsClients } from '../support/local-backend.js';
import { loopbackCertificate } from '../support/oauth-backend.js';
import { startSecretsManagerStandIn, type SecretsManagerStandIn } from '../support/secrets-manager-stand-in.js';

const ISSUER = `https://${DOMAIN}/${STAGE}`;
const RESOURCE = `${ISSUER}/mcp`;
const SIGNING_KEY_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:signing-key-AbCdEf';
const CLIENT_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:upstream-client-AbCdEf';
const SIGNING_KEY = 'k'.repeat(48);

type OAuthHandler = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

let secrets: SecretsManagerStandIn;
let upstream: OAuthUpstream;
let oauthHandler: OAuthHandler;
let mcpHandler: StreamingHandler<APIGatewayProxyEvent>;

beforeAll(async () => {
  // Cognito speaks https, and the deployed proxy allows nothing else upstream: the stand-in does too, with a
  // certificate this test process trusts.
  const tlsCertificate = await loopbackCertificate();
  setDefaultCACertificates([...getCACertificates('default'), tlsCertificate.cert]);
  upstream = await startOAuthUpstream({ redirectUris: [`${ISSUER}/oauth/callback`], tls: tlsCertificate });
  secrets = await startSecretsManagerStandIn({
    [SIGNING_KEY_ARN]: SIGNING_KEY,
    [CLIENT_SECRET_ARN]: upstream.clientSecret,
  });
  const oauthTable = `oauth-${Date.now()}`;
  const { dynamoDb } = localAwsClients();
  await createOAuthTable(dynamoDb, oauthTable);
  const taskTable = await createTestTable();
  // The environment as the construct sets it: ARNs of the secrets, never their values.
  Object.assign(process.env, {
    ...localAwsEnvironment({
      dynamoDbEndpoint: inject('dynamoDbEndpoint'),
      stepFunctionsEndpoint: inject('stepFunctionsEndpoint'),
    }),
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
    [OAUTH_ENV.issuer]: ISSUER,
    [OAUTH_ENV.resource]: RESOURCE,
    [OAUTH_ENV.tableName]: oauthTable,
    [OAUTH_ENV.signingKeySecretArn]: SIGNING_KEY_ARN,
    [OAUTH_ENV.upstreamIssuer]: upstream.issuer,
    [OAUTH_ENV.upstreamClientId]: upstream.clientId,
    [OAUTH_ENV.upstreamClientSecretArn]: CLIENT_SECRET_ARN,
    [OAUTH_ENV.registrationsPerSourcePerHour]: '2',
    [ENV.tableName]: taskTable,
    [ENV.toolCatalogItem]: await writeDeclaredCatalog(dynamoDb, taskTable, exampleTools()),
  });
  vi.resetModules();
  oauthHandler = ((await import('../../lambda/handlers/oauth-http.js')) as { handler: OAuthHandler }).handler;
  mcpHandler = (
    (await import('../../lambda/handlers/mcp-http.js')) as { handler: StreamingHandler<APIGatewayProxyEvent> }
  ).handler;
});
afterAll(async () => {
  for (const name of Object.values(OAUTH_ENV)) delete process.env[name];
  delete process.env['AWS_ENDPOINT_URL_SECRETS_MANAGER'];
  await upstream?.close();
  await secrets?.close();
});

function header(result: APIGatewayProxyResult, name: string): string | undefined {
  return result.multiValueHeaders?.[name]?.[0]?.toString();
}

describe('the OAuth proxy function', () => {
  it('serves OpenID discovery at the stage, every URL keeping the stage', async () => {
    const result = await oauthHandler(
      proxyEvent({ method: 'GET', path: '/.well-known/openid-configuration', claims: null }),
    );
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({
      issuer: ISSUER,
      authorization_endpoint: `${ISSUER}/authorize`,
      token_endpoint: `${ISSUER}/token`,
      registration_endpoint: `${ISSUER}/register`,
      code_challenge_methods_supported: ['S256'],
    });
  });

  it('registers a client, and counts registrations per source address from the event', async () => {
    const register = (sourceIp: string) =>
      oauthHandler(
        proxyEvent({
          path: '/register',
          claims: null,
          sourceIp,
          body: { redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'none' },
        }),
      );
    const statuses = [];
    for (let attempt = 0; attempt < 3; attempt++) statuses.push((await register('198.51.100.1')).statusCode);
    expect(statuses).toEqual([201, 201, 429]);
    expect((await register('198.51.100.2')).statusCode).toBe(201);
  });

  it('asks the person first, then sends them to the upstream provider with the stage-qualified callback', async () => {
    const registered = await oauthHandler(
      proxyEvent({
        path: '/register',
        claims: null,
        sourceIp: '198.51.100.3',
        body: { redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'none' },
      }),
    );
    const { client_id: clientId } = JSON.parse(registered.body) as { client_id: string };
    const result = await oauthHandler(
      proxyEvent({
        method: 'GET',
        path: '/authorize',
        claims: null,
        query: {
          response_type: 'code',
          client_id: clientId,
          redirect_uri: 'http://127.0.0.1:9/cb',
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          code_challenge_method: 'S256',
        },
      }),
    );
    // The consent page, and the cookie that binds the sign-in to this browser: Secure and __Host- behind https.
    expect(result.statusCode).toBe(200);
    expect(header(result, 'content-type')).toMatch(/^text\/html/);
    const cookie = header(result, 'set-cookie')!;
    expect(cookie).toMatch(/^__Host-mcp-consent-[\w-]+=[\w-]+; Path=\/; Max-Age=600; HttpOnly; SameSite=Lax; Secure$/);
    const pending = /name="pending" value="([^"]+)"/.exec(result.body)![1]!;
    const decided = await oauthHandler(
      proxyEvent({
        path: '/authorize',
        claims: null,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie.split(';')[0]! },
        body: new URLSearchParams({ pending, decision: 'allow' }).toString(),
      }),
    );
    expect(decided.statusCode).toBe(302);
    const location = new URL(header(decided, 'location')!);
    expect(location.origin).toBe(upstream.issuer);
    expect(location.searchParams.get('redirect_uri')).toBe(`${ISSUER}/oauth/callback`);
    expect(location.searchParams.get('client_id')).toBe(upstream.clientId);
    expect(secrets.reads.get(CLIENT_SECRET_ARN)).toBe(1);
  });
});

describe('the MCP function with the OAuth proxy on', () => {
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };

  it('answers a request without a token 401, pointing at the metadata at the stage', async () => {
    const response = await invokeStreaming(
      mcpHandler,
      proxyEvent({ body: ping, claims: null, headers: { Authorization: '' } }),
    );
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${ISSUER}/.well-known/oauth-protected-resource", scope="mcp"`,
    );
  });

  it('serves the subject of a token the proxy minted for this resource', async () => {
    const keys = { issuer: ISSUER, resource: RESOURCE, signingKey: async () => new TextEncoder().encode(SIGNING_KEY) };
    const token = await mintAccessToken(keys, { subject: 'alice-sub', clientId: 'c', scope: 'mcp' }, Date.now());
    const response = await invokeStreaming(
      mcpHandler,
      proxyEvent({ body: ping, claims: null, headers: { Authorization: `Bearer ${token}` } }),
    );
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ id: 1, result: {} });
  });

  it('refuses a token for another resource with invalid_token', async () => {
    const keys = {
      issuer: ISSUER,
      resource: 'https://other.example/mcp',
      signingKey: async () => new TextEncoder().encode(SIGNING_KEY),
    };
    const token = await mintAccessToken(keys, { subject: 'alice-sub', clientId: 'c', scope: 'mcp' }, Date.now());
    const response = await invokeStreaming(
      mcpHandler,
      proxyEvent({ body: ping, claims: null, headers: { Authorization: `Bearer ${token}` } }),
    );
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/error="invalid_token"/);
  });
});
