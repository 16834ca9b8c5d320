// The OAuth proxy over HTTP: each bad input refused with its RFC 6749 error (or a page, where redirecting would be
// unsafe), while nothing is stored for it.
import { describe, expect, it } from 'vitest';
import { pkcePair } from '../../support/oauth-backend.js';
import {
  authorizationUrl,
  codeFor,
  exchange,
  REDIRECT_URI,
  refreshKeys,
  register,
  registeredClientId,
  server,
  tokenRequest,
  useOAuthProxyServer,
} from '../../support/oauth-proxy-flow.js';

/** The proxy's clock runs this far ahead of the real one: lets a test outlive a code without waiting. */
let skewMs = 0;

useOAuthProxyServer({ now: () => Date.now() + skewMs });

describe('bad input gets a clear RFC 6749 error and nothing is stored', () => {
  it('a wrong PKCE verifier: invalid_grant, no token', async () => {
    const clientId = await registeredClientId();
    const { challenge } = await pkcePair();
    const { verifier: wrong } = await pkcePair();
    const before = await refreshKeys();
    const answer = await exchange(clientId, await codeFor(clientId, challenge), wrong);
    expect(answer.status).toBe(400);
    expect(answer.body['error']).toBe('invalid_grant');
    expect(answer.body['error_description']).toMatch(/code_verifier does not match/);
    expect(await refreshKeys()).toEqual(before);
  });

  it('a reused code: invalid_grant, and the refresh token the code gave is revoked', async () => {
    const clientId = await registeredClientId();
    const { verifier, challenge } = await pkcePair();
    const code = await codeFor(clientId, challenge);
    const first = await exchange(clientId, code, verifier);
    expect(first.status).toBe(200);
    const again = await exchange(clientId, code, verifier);
    expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const refresh = await tokenRequest({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: first.body['refresh_token']!,
    });
    expect(refresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('an expired code (past 60 s): invalid_grant, no token', async () => {
    const clientId = await registeredClientId();
    const { verifier, challenge } = await pkcePair();
    const code = await codeFor(clientId, challenge);
    const before = await refreshKeys();
    skewMs = 61_000;
    try {
      const answer = await exchange(clientId, code, verifier);
      expect(answer).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    } finally {
      skewMs = 0;
    }
    expect(await refreshKeys()).toEqual(before);
  });

  it('a code redeemed with another redirect_uri or by another client: invalid_grant', async () => {
    const clientId = await registeredClientId();
    const otherClient = await registeredClientId();
    const { verifier, challenge } = await pkcePair();
    const wrongUri = await exchange(clientId, await codeFor(clientId, challenge), verifier, {
      redirect_uri: 'http://127.0.0.1:9/elsewhere',
    });
    expect(wrongUri).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const wrongClient = await exchange(otherClient, await codeFor(clientId, challenge), verifier);
    expect(wrongClient).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('a redirect_uri that was not registered: a page, no redirect, nothing pending', async () => {
    const clientId = await registeredClientId();
    const { challenge } = await pkcePair();
    const before = await server.storedKeys();
    const response = await fetch(authorizationUrl(clientId, challenge, { redirect_uri: 'http://127.0.0.1:9/other' }), {
      redirect: 'manual',
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toMatch(/is not registered for client/);
    expect(await server.storedKeys()).toEqual(before);
  });

  it('an unknown client: a page naming it, no redirect', async () => {
    const { challenge } = await pkcePair();
    const response = await fetch(authorizationUrl('no-such-client', challenge), { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(response.headers.get('x-oauth-error')).toBe('invalid_client');
  });

  it('a state longer than 512 characters: a page, not echoed back, nothing pending', async () => {
    const clientId = await registeredClientId();
    const { challenge } = await pkcePair();
    const before = await server.storedKeys();
    const response = await fetch(authorizationUrl(clientId, challenge, { state: 's'.repeat(513) }), {
      redirect: 'manual',
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('x-oauth-error')).toBe('invalid_request');
    expect(await response.text()).toMatch(/state may have at most 512 characters/);
    expect(await server.storedKeys()).toEqual(before);
  });

  it('no PKCE, or plain PKCE: the error goes back to the client with its state', async () => {
    const clientId = await registeredClientId();
    const url = new URL(authorizationUrl(clientId, 'x'.repeat(43), { code_challenge_method: 'plain' }));
    const response = await fetch(url, { redirect: 'manual' });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location')!);
    expect(location.origin + location.pathname).toBe(REDIRECT_URI);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('state')).toBe('client-state');
  });

  it('a resource other than the MCP URL: invalid_target', async () => {
    const clientId = await registeredClientId();
    const { challenge } = await pkcePair();
    const response = await fetch(authorizationUrl(clientId, challenge, { resource: 'https://elsewhere.example/mcp' }), {
      redirect: 'manual',
    });
    expect(new URL(response.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
  });

  it('a registration whose redirect URI the policy does not allow: invalid_redirect_uri, nothing stored', async () => {
    const before = await server.storedKeys();
    const response = await register({ redirect_uris: ['https://attacker.example/callback'] });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_redirect_uri' });
    expect(await server.storedKeys()).toEqual(before);
  });

  it('malformed registrations: invalid_client_metadata', async () => {
    for (const body of ['not json', JSON.stringify({ redirect_uris: 'one' }), JSON.stringify({})]) {
      const response = await fetch(`${server.issuer}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toBe('invalid_client_metadata');
    }
  });

  it('metadata nested thousands of levels deep: invalid_client_metadata, and no quota spent', async () => {
    const before = await server.storedKeys();
    // Built as text: JSON.stringify itself would overflow the stack on this value.
    const deep = '['.repeat(7000) + ']'.repeat(7000);
    const response = await fetch(`${server.issuer}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"redirect_uris":["${REDIRECT_URI}"],"token_endpoint_auth_method":"none","jwks":${deep}}`,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: expect.stringMatching(/at most 8 levels/),
    });
    expect(await server.storedKeys()).toEqual(before);
  });

  it('a JWK set of the usual shape (keys with an x5c chain) still registers', async () => {
    const key = { kty: 'RSA', kid: 'k1', n: 'AQAB', e: 'AQAB', x5c: ['MIIB'] };
    const response = await register({ jwks: { keys: [key] } });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ jwks: { keys: [key] } });
  });

  it('an unsupported grant type, a missing parameter, an unknown client at /token', async () => {
    expect(await tokenRequest({ grant_type: 'password', client_id: 'x' })).toMatchObject({
      status: 401,
      body: { error: 'invalid_client' },
    });
    const clientId = await registeredClientId();
    expect(await tokenRequest({ grant_type: 'password', client_id: clientId })).toMatchObject({
      status: 400,
      body: { error: 'unsupported_grant_type' },
    });
    expect(await tokenRequest({ grant_type: 'authorization_code', client_id: clientId })).toMatchObject({
      status: 400,
      body: { error: 'invalid_request' },
    });
  });
});
