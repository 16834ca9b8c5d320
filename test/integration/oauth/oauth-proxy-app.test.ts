// The OAuth proxy over HTTP, as a client meets it: registration, sign-in at the local stand-in for Cognito, the code
// exchange, refreshes and the MCP endpoint's token checks; and each bad input refused with its RFC 6749 error while
// nothing is stored for it.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintAccessToken } from '../../../lambda/oauth/access-tokens.js';
import { signInWithoutBrowser } from '../../support/browser-login.js';
import {
  pkcePair,
  serveClientMetadataDocument,
  startOAuthTestServer,
  type OAuthTestServer,
} from '../../support/oauth-backend.js';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';

let server: OAuthTestServer;
/** The proxy's clock runs this far ahead of the real one: lets a test outlive a code without waiting. */
let skewMs = 0;

const signingKey = randomBytes(32);

beforeAll(async () => {
  server = await startOAuthTestServer({
    registration: { perSourcePerHour: 1000, perDay: 10_000 },
    now: () => Date.now() + skewMs,
    signingKey,
  });
});
afterAll(async () => {
  await server?.close();
});

async function register(metadata: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${server.issuer}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
      client_name: 'test client',
      ...metadata,
    }),
  });
}

async function registeredClientId(): Promise<string> {
  const response = await register();
  expect(response.status).toBe(201);
  return ((await response.json()) as { client_id: string }).client_id;
}

function authorizationUrl(clientId: string, challenge: string, extra: Record<string, string> = {}): string {
  const url = new URL(`${server.issuer}/authorize`);
  for (const [name, value] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'client-state',
    scope: 'mcp',
    resource: server.url,
    ...extra,
  }))
    url.searchParams.set(name, value);
  return url.toString();
}

/** Signs the test user in and returns the code the proxy sent to the client's redirect URI. */
async function codeFor(clientId: string, challenge: string): Promise<string> {
  const back = await signInWithoutBrowser(authorizationUrl(clientId, challenge), server.oauth.upstream.user, {
    redirectUriPrefix: REDIRECT_URI,
  });
  expect(back.searchParams.get('state')).toBe('client-state');
  expect(back.searchParams.get('iss')).toBe(server.issuer);
  return back.searchParams.get('code')!;
}

async function tokenRequest(form: Record<string, string>): Promise<{ status: number; body: Record<string, string> }> {
  const response = await fetch(`${server.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

function exchange(clientId: string, code: string, verifier: string, extra: Record<string, string> = {}) {
  return tokenRequest({
    grant_type: 'authorization_code',
    client_id: clientId,
    code,
    redirect_uri: REDIRECT_URI,
    code_verifier: verifier,
    resource: server.url,
    ...extra,
  });
}

async function mcpPing(token: string): Promise<Response> {
  return fetch(server.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
}

const refreshKeys = async () => (await server.storedKeys()).filter((key) => key.startsWith('refresh#'));

describe('metadata', () => {
  it('advertises S256, registration and client metadata documents at RFC 8414 and OpenID discovery alike', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const response = await fetch(`${server.issuer}${path}`);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      const metadata = (await response.json()) as Record<string, unknown>;
      expect(metadata).toMatchObject({
        issuer: server.issuer,
        authorization_endpoint: `${server.issuer}/authorize`,
        token_endpoint: `${server.issuer}/token`,
        registration_endpoint: `${server.issuer}/register`,
        code_challenge_methods_supported: ['S256'],
        client_id_metadata_document_supported: true,
      });
    }
  });

  it('names this server and the MCP URL in the protected resource metadata, which a 401 points at', async () => {
    const unauthorized = await fetch(server.url, { method: 'POST', body: '{}' });
    expect(unauthorized.status).toBe(401);
    const challenge = unauthorized.headers.get('www-authenticate')!;
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)![1]!;
    const metadata = (await (await fetch(metadataUrl)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({ resource: server.url, authorization_servers: [server.issuer] });
  });
});

describe('the authorization code flow', () => {
  it('gives tokens bound to the MCP URL; the MCP endpoint serves their owner, the upstream subject', async () => {
    const clientId = await registeredClientId();
    const { verifier, challenge } = await pkcePair();
    const tokens = await exchange(clientId, await codeFor(clientId, challenge), verifier);
    expect(tokens.status).toBe(200);
    expect(tokens.body).toMatchObject({ token_type: 'Bearer', scope: 'mcp' });
    const [, payload] = tokens.body['access_token']!.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ aud: server.url, iss: server.issuer, sub: server.oauth.upstream.user.subject });
    expect((await mcpPing(tokens.body['access_token']!)).status).toBe(200);
  });

  it('rotates the refresh token: the new one works once, the old one never again', async () => {
    const clientId = await registeredClientId();
    const { verifier, challenge } = await pkcePair();
    const first = await exchange(clientId, await codeFor(clientId, challenge), verifier);
    const refreshed = await tokenRequest({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: first.body['refresh_token']!,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body['refresh_token']).not.toBe(first.body['refresh_token']);
    expect((await mcpPing(refreshed.body['access_token']!)).status).toBe(200);
    const replayed = await tokenRequest({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: first.body['refresh_token']!,
    });
    expect(replayed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });
});

describe('replays revoke the whole grant', () => {
  const refreshWith = (clientId: string, token: string) =>
    tokenRequest({ grant_type: 'refresh_token', client_id: clientId, refresh_token: token });

  it('a rotated refresh token presented again: invalid_grant, and the newest refresh token stops working', async () => {
    const clientId = await registeredClientId();
    const { verifier, challenge } = await pkcePair();
    const first = await exchange(clientId, await codeFor(clientId, challenge), verifier);
    const second = await refreshWith(clientId, first.body['refresh_token']!);
    expect(second.status).toBe(200);
    // Someone replays the first token (stolen before the rotation)...
    expect(await refreshWith(clientId, first.body['refresh_token']!)).toMatchObject({
      body: { error: 'invalid_grant' },
    });
    // ...and the legitimate client's newest token is revoked with it.
    expect(await refreshWith(clientId, second.body['refresh_token']!)).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
  });

  it('a code replayed after a refresh revokes the refresh token issued since', async () => {
    const clientId = await registeredClientId();
    const { verifier, challenge } = await pkcePair();
    const code = await codeFor(clientId, challenge);
    const first = await exchange(clientId, code, verifier);
    const second = await refreshWith(clientId, first.body['refresh_token']!);
    expect(second.status).toBe(200);
    expect(await exchange(clientId, code, verifier)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await refreshWith(clientId, second.body['refresh_token']!)).toMatchObject({
      body: { error: 'invalid_grant' },
    });
  });
});

describe('a refresh while the upstream provider is down', () => {
  it('answers 503 temporarily_unavailable and keeps the refresh token good', async () => {
    const fragile = await startOAuthTestServer();
    try {
      const clientId = (
        (await (
          await fetch(`${fragile.issuer}/register`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
          })
        ).json()) as { client_id: string }
      ).client_id;
      const { verifier, challenge } = await pkcePair();
      const url = new URL(`${fragile.issuer}/authorize`);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT_URI,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }).toString();
      const back = await signInWithoutBrowser(url.toString(), fragile.oauth.upstream.user, {
        redirectUriPrefix: REDIRECT_URI,
      });
      const post = (form: Record<string, string>) =>
        fetch(`${fragile.issuer}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ client_id: clientId, ...form }).toString(),
        });
      const tokens = (await (
        await post({
          grant_type: 'authorization_code',
          code: back.searchParams.get('code')!,
          redirect_uri: REDIRECT_URI,
          code_verifier: verifier,
        })
      ).json()) as { refresh_token: string };
      await fragile.oauth.upstream.close();
      for (let attempt = 0; attempt < 2; attempt++) {
        const refused = await post({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
        expect(refused.status).toBe(503);
        expect(await refused.json()).toMatchObject({ error: 'temporarily_unavailable' });
      }
    } finally {
      await fragile.close();
    }
  });
});

describe('consent, bound to the browser that was asked', () => {
  /** GET /authorize as a browser would: the consent page, its pending sign-in and the cookie that binds it. */
  async function consentPage(clientId: string, challenge: string) {
    const response = await fetch(authorizationUrl(clientId, challenge), { redirect: 'manual' });
    expect(response.status).toBe(200);
    const html = await response.text();
    return {
      html,
      pending: /name="pending" value="([^"]+)"/.exec(html)![1]!,
      cookie: response.headers.get('set-cookie')!.split(';')[0]!,
    };
  }

  function answer(pending: string, decision: string, cookie?: string) {
    return fetch(`${server.issuer}/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
      body: new URLSearchParams({ pending, decision }).toString(),
    });
  }

  it('names the client and where it will be sent, and cannot be framed', async () => {
    const clientId = await registeredClientId();
    const { challenge } = await pkcePair();
    const response = await fetch(authorizationUrl(clientId, challenge), { redirect: 'manual' });
    expect(response.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    const html = await response.text();
    expect(html).toContain('test client');
    expect(html).toContain('127.0.0.1:9');
  });

  it('the person denies: access_denied back to the client with its state, and the sign-in is gone', async () => {
    const clientId = await registeredClientId();
    const { challenge } = await pkcePair();
    const { pending, cookie } = await consentPage(clientId, challenge);
    const denied = await answer(pending, 'deny', cookie);
    const location = new URL(denied.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('client-state');
    expect((await answer(pending, 'allow', cookie)).status).toBe(400);
  });

  it('an answer from a browser without the sign-in cookie is refused, and nothing goes upstream', async () => {
    const clientId = await registeredClientId();
    const { challenge } = await pkcePair();
    const { pending } = await consentPage(clientId, challenge);
    const forged = await answer(pending, 'allow', 'mcp-consent-x=guess');
    expect(forged.status).toBe(403);
    expect(forged.headers.get('location')).toBeNull();
  });

  it('a sign-in link started by someone else does not complete in another browser', async () => {
    const clientId = await registeredClientId();
    const { challenge } = await pkcePair();
    // The attacker starts the sign-in and allows it in their own browser, then sends the upstream link to a victim.
    const { pending, cookie } = await consentPage(clientId, challenge);
    const upstreamUrl = (await answer(pending, 'allow', cookie)).headers.get('location')!;
    // The victim signs in upstream (a fresh browser, without the attacker's cookie) and comes back to the callback.
    const callback = await signInWithoutBrowser(upstreamUrl, server.oauth.upstream.user, {
      redirectUriPrefix: `${server.issuer}/oauth/callback`,
    });
    const codes = async () => (await server.storedKeys()).filter((key) => key.startsWith('code#'));
    const before = await codes();
    const refused = await fetch(callback, { redirect: 'manual' });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('location')).toBeNull();
    expect(await codes()).toEqual(before);
  });
});

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

describe('Client ID Metadata Documents', () => {
  it('a document on loopback, on a port other than 443, is never fetched; nothing is stored', async () => {
    let fetched = 0;
    const document = await serveClientMetadataDocument({ redirect_uris: [REDIRECT_URI] }, () => fetched++);
    try {
      const { challenge } = await pkcePair();
      const before = await server.storedKeys();
      // The main test server fetches documents as the Lambda does: only on 443, only from public addresses.
      const response = await fetch(authorizationUrl(document.url, challenge), { redirect: 'manual' });
      expect(response.status).toBe(400);
      expect(response.headers.get('x-oauth-error')).toBe('invalid_client');
      expect(await response.text()).toMatch(/must be on port 443/);
      expect(fetched).toBe(0);
      expect(await server.storedKeys()).toEqual(before);
    } finally {
      await document.close();
    }
  });

  it('a redirect_uri the document does not list is refused; one it lists signs in', async () => {
    const document = await serveClientMetadataDocument({ redirect_uris: [REDIRECT_URI] });
    const trusting = await startOAuthTestServer({
      clientIdMetadataDocuments: { fetch: { allowLoopback: true, ca: document.ca } },
    });
    try {
      const { verifier, challenge } = await pkcePair();
      const params = (redirectUri: string) =>
        new URLSearchParams({
          response_type: 'code',
          client_id: document.url,
          redirect_uri: redirectUri,
          code_challenge: challenge,
          code_challenge_method: 'S256',
          resource: trusting.url,
        });
      const refused = await fetch(`${trusting.issuer}/authorize?${params('http://127.0.0.1:9/not-listed')}`, {
        redirect: 'manual',
      });
      expect(refused.status).toBe(400);
      expect(await refused.text()).toMatch(/is not registered for client/);
      const back = await signInWithoutBrowser(
        `${trusting.issuer}/authorize?${params(REDIRECT_URI)}`,
        trusting.oauth.upstream.user,
        { redirectUriPrefix: REDIRECT_URI },
      );
      const response = await fetch(`${trusting.issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          client_id: document.url,
          code: back.searchParams.get('code')!,
          redirect_uri: REDIRECT_URI,
          code_verifier: verifier,
        }),
      });
      expect(response.status).toBe(200);
    } finally {
      await trusting.close();
      await document.close();
    }
  });

  it('a document that names another client_id is refused', async () => {
    const document = await serveClientMetadataDocument({
      redirect_uris: [REDIRECT_URI],
      client_id: 'https://someone-else.example/client.json',
    });
    const trusting = await startOAuthTestServer({
      clientIdMetadataDocuments: { fetch: { allowLoopback: true, ca: document.ca } },
    });
    try {
      const { challenge } = await pkcePair();
      const response = await fetch(
        `${trusting.issuer}/authorize?${new URLSearchParams({
          response_type: 'code',
          client_id: document.url,
          redirect_uri: REDIRECT_URI,
          code_challenge: challenge,
          code_challenge_method: 'S256',
        })}`,
        { redirect: 'manual' },
      );
      expect(response.status).toBe(400);
      expect(response.headers.get('x-oauth-error')).toBe('invalid_client');
    } finally {
      await trusting.close();
      await document.close();
    }
  });
});

describe('the MCP endpoint refuses tokens it did not mint for itself', () => {
  const subject = { subject: 'someone', clientId: 'some-client', scope: 'mcp' };

  it('no bearer token: 401 naming the protected resource metadata, without an error code', async () => {
    const response = await fetch(server.url, { method: 'POST', body: '{}' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).not.toMatch(/error=/);
  });

  it('a token that is not a JWT of this server: 401 invalid_token', async () => {
    const response = await mcpPing('not-a-jwt');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });

  it('a token minted for another resource (RFC 8707), even with the right key: 401 saying so', async () => {
    const keys = {
      issuer: server.issuer,
      resource: 'https://elsewhere.example/mcp',
      signingKey: async () => signingKey,
    };
    const response = await mcpPing(await mintAccessToken(keys, subject, Date.now()));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/issued for another resource/);
  });

  it('an expired token: 401 saying it expired', async () => {
    const keys = { issuer: server.issuer, resource: server.url, signingKey: async () => signingKey };
    const twoHoursAgo = Date.now() - 2 * 60 * 60 * 1000;
    const response = await mcpPing(await mintAccessToken(keys, subject, twoHoursAgo));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/error="invalid_token".*has expired/);
  });

  it('a token signed with another key: 401', async () => {
    const keys = { issuer: server.issuer, resource: server.url, signingKey: async () => randomBytes(32) };
    expect((await mcpPing(await mintAccessToken(keys, subject, Date.now()))).status).toBe(401);
  });
});

describe('Dynamic Client Registration expiry', () => {
  it('forgets a registration that received no token within a day', async () => {
    const clientId = await registeredClientId();
    const { challenge } = await pkcePair();
    skewMs = 25 * 60 * 60 * 1000;
    try {
      const response = await fetch(authorizationUrl(clientId, challenge), { redirect: 'manual' });
      expect(response.status).toBe(400);
      expect(response.headers.get('x-oauth-error')).toBe('invalid_client');
    } finally {
      skewMs = 0;
    }
  });

  it('keeps a registration that was used', async () => {
    const clientId = await registeredClientId();
    const { verifier, challenge } = await pkcePair();
    expect((await exchange(clientId, await codeFor(clientId, challenge), verifier)).status).toBe(200);
    skewMs = 25 * 60 * 60 * 1000;
    try {
      const response = await fetch(authorizationUrl(clientId, challenge), { redirect: 'manual' });
      // The consent page: the client is still known.
      expect(response.status).toBe(200);
    } finally {
      skewMs = 0;
    }
  });
});

describe('Dynamic Client Registration limits', () => {
  /** Registers `times` clients from this address on `target`, one after another; the answers in order. */
  async function registrations(target: OAuthTestServer, times: number): Promise<Response[]> {
    const answers: Response[] = [];
    for (let attempt = 0; attempt < times; attempt++)
      answers.push(
        await fetch(`${target.issuer}/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
        }),
      );
    return answers;
  }

  it('refuses a registration flood from one address with 429 and stores none of the refused clients', async () => {
    const limited = await startOAuthTestServer({ registration: { perSourcePerHour: 3, perDay: 1000 } });
    try {
      const answers = await registrations(limited, 6);
      expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201, 429, 429, 429]);
      expect(answers[3]!.headers.get('retry-after')).toBe('3600');
      expect(await answers[3]!.json()).toMatchObject({ error: 'too_many_requests' });
      expect((await limited.storedKeys()).filter((key) => key.startsWith('client#'))).toHaveLength(3);
    } finally {
      await limited.close();
    }
  });

  it('caps registrations from everyone together per day', async () => {
    const limited = await startOAuthTestServer({ registration: { perSourcePerHour: 100, perDay: 2 } });
    try {
      const answers = await registrations(limited, 3);
      expect(answers.map((answer) => answer.status)).toEqual([201, 201, 429]);
      expect(answers[2]!.headers.get('retry-after')).toBe('86400');
    } finally {
      await limited.close();
    }
  });
});
