// Who a request to the MCP endpoint belongs to when the endpoint is its own authorization server: the subject of the
// proxy's token for this resource, or a machine client's Cognito token (checked by aws-jwt-verify against the pool's
// keys), and otherwise a 401 whose challenge says what to do.
import { randomBytes } from 'node:crypto';
import type { Jwk } from 'aws-jwt-verify/jwk';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { mintAccessToken } from '../../../lambda/oauth/access-tokens.js';
import {
  cognitoMachineTokens,
  createBearerOwnerResolver,
  type BearerOwnerResolver,
} from '../../../lambda/oauth/bearer-owner.js';

const ISSUER = 'https://api.example/prod';
const RESOURCE = `${ISSUER}/mcp`;
const POOL = 'eu-west-1_Example';
const MACHINE = { userPoolId: POOL, clientId: 'machine-client', scope: 'mcp-tasks/invoke' };
const key = randomBytes(32);
const keys = { issuer: ISSUER, resource: RESOURCE, signingKey: async () => key };

let resolve: BearerOwnerResolver;
let cognitoToken: (claims: Record<string, unknown>) => Promise<string>;

beforeAll(async () => {
  // A user pool's signing key, as Cognito publishes it at /.well-known/jwks.json.
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'pool-key', alg: 'RS256', use: 'sig' } as Jwk;
  resolve = createBearerOwnerResolver({
    ...keys,
    machine: cognitoMachineTokens(MACHINE, { keys: [jwk] }),
  });
  cognitoToken = (claims) =>
    new SignJWT({
      token_use: 'access',
      client_id: MACHINE.clientId,
      scope: MACHINE.scope,
      sub: MACHINE.clientId,
      ...claims,
    })
      .setProtectedHeader({ alg: 'RS256', kid: 'pool-key' })
      .setIssuer(`https://cognito-idp.eu-west-1.amazonaws.com/${POOL}`)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
});

const request = (authorization?: string) =>
  new Request(RESOURCE, { method: 'POST', headers: authorization === undefined ? {} : { authorization } });

describe('createBearerOwnerResolver', () => {
  it("serves the subject of the proxy's own token for this resource", async () => {
    const token = await mintAccessToken(keys, { subject: 'person-sub', clientId: 'c', scope: 'mcp' }, Date.now());
    expect(await resolve(request(`Bearer ${token}`))).toEqual({ owner: 'person-sub' });
  });

  it("serves a machine client's Cognito access token, its client ID the owner", async () => {
    expect(await resolve(request(`Bearer ${await cognitoToken({})}`))).toEqual({ owner: MACHINE.clientId });
  });

  it('refuses a Cognito token of another client, without the scope, or an ID token', async () => {
    for (const claims of [
      { client_id: 'someone-else', sub: 'someone-else' },
      { scope: 'openid email' },
      { token_use: 'id' },
    ]) {
      const answer = await resolve(request(`Bearer ${await cognitoToken(claims)}`));
      expect(answer.owner).toBeNull();
      expect('challenge' in answer && answer.challenge).toMatch(/error="invalid_token"/);
    }
  });

  it('answers no credentials with the bare challenge, naming the metadata and the scope', async () => {
    for (const authorization of [undefined, '', '   '])
      expect(await resolve(request(authorization))).toEqual({
        owner: null,
        challenge: `Bearer resource_metadata="${ISSUER}/.well-known/oauth-protected-resource", scope="mcp"`,
      });
  });

  it('answers a malformed Authorization header invalid_request', async () => {
    const answer = await resolve(request('Basic dXNlcjpwYXNz'));
    expect('challenge' in answer && answer.challenge).toMatch(/error="invalid_request"/);
  });
});
