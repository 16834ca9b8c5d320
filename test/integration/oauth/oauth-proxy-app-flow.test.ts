// The OAuth proxy over HTTP, as a client meets it: metadata, registration, sign-in at the local stand-in for Cognito
// behind the proxy's consent page, the code exchange, refreshes and replays, and the MCP endpoint's token checks.
// Bad input: oauth-proxy-app-bad-input.test.ts; client registration: oauth-proxy-app-registration.test.ts.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mintAccessToken } from '../../../lambda/oauth/access-tokens.js';
import { signInWithoutBrowser } from '../../support/browser-login.js';
import { pkcePair, startOAuthTestServer } from '../../support/oauth-backend.js';
import {
  authorizationUrl,
  codeFor,
  exchange,
  mcpPing,
  REDIRECT_URI,
  registeredClientId,
  server,
  signingKey,
  tokenRequest,
  useOAuthProxyServer,
} from '../../support/oauth-proxy-flow.js';

useOAuthProxyServer();

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
    expect(tokens.body).toMatchObject({ token_type: 'Bearer', scope: 'mcp', expires_in: 900 });
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

  it('a forged callback without the sign-in cookie is refused and does not cancel the sign-in', async () => {
    const clientId = await registeredClientId();
    const { challenge } = await pkcePair();
    const { pending, cookie } = await consentPage(clientId, challenge);
    const forged = await fetch(`${server.issuer}/oauth/callback?state=${pending}&error=access_denied`, {
      redirect: 'manual',
    });
    expect(forged.status).toBe(403);
    expect(forged.headers.get('location')).toBeNull();
    // The person's own answer still goes through.
    const allowed = await answer(pending, 'allow', cookie);
    expect(allowed.status).toBe(302);
    expect(allowed.headers.get('location')).toMatch(new RegExp(`^${server.oauth.upstream.issuer}`));
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
