// Test fixture for the OAuth proxy over HTTP, as a client meets it: the MCP server and the proxy on one loopback origin
// (oauth-backend.ts) with generous registration and per-source limits and a known signing key, and the client's side
// of the flow: registration, the authorization URL, sign-in for a code, token requests and an authenticated MCP ping.
// useOAuthProxyServer() registers the hooks that start and stop the server; `server` is a live binding, set before the
// test file's first test.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import { signInWithoutBrowser } from './browser-login.js';
import { startOAuthTestServer, type OAuthTestServer, type OAuthTestServerOptions } from './oauth-backend.js';

export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

export let server: OAuthTestServer;

/** The key the server signs its access tokens with: a test can mint a token that only one claim makes wrong. */
export const signingKey = randomBytes(32);

/** Registers beforeAll/afterAll hooks that start and stop `server`. `now`: the proxy's clock. @default Date.now */
export function useOAuthProxyServer(options: Pick<OAuthTestServerOptions, 'now' | 'clients'> = {}): void {
  beforeAll(async () => {
    server = await startOAuthTestServer({
      registration: { perSourcePerHour: 1000, perDay: 10_000 },
      sourceLimits: { signInsPerSourcePerHour: 1000, metadataFetchesPerSourcePerHour: 1000 },
      ...options,
      signingKey,
    });
  });
  afterAll(async () => {
    await server?.close();
  });
}

/** A dynamic client registration on `on` (the shared server unless a test runs its own). */
export async function register(metadata: Record<string, unknown> = {}, on = server): Promise<Response> {
  return fetch(`${on.issuer}/register`, {
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

export async function registeredClientId(on = server): Promise<string> {
  const response = await register({}, on);
  expect(response.status).toBe(201);
  return ((await response.json()) as { client_id: string }).client_id;
}

export function authorizationUrl(
  clientId: string,
  challenge: string,
  extra: Record<string, string> = {},
  on = server,
): string {
  const url = new URL(`${on.issuer}/authorize`);
  for (const [name, value] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'client-state',
    scope: 'mcp',
    resource: on.url,
    ...extra,
  }))
    url.searchParams.set(name, value);
  return url.toString();
}

/** Signs the test user in and returns the code the proxy sent to the client's redirect URI. */
export async function codeFor(clientId: string, challenge: string): Promise<string> {
  const back = await signInWithoutBrowser(authorizationUrl(clientId, challenge), server.oauth.upstream.user, {
    redirectUriPrefix: REDIRECT_URI,
  });
  expect(back.searchParams.get('state')).toBe('client-state');
  expect(back.searchParams.get('iss')).toBe(server.issuer);
  return back.searchParams.get('code')!;
}

export async function tokenRequest(
  form: Record<string, string>,
): Promise<{ status: number; body: Record<string, string> }> {
  const response = await fetch(`${server.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

export function exchange(clientId: string, code: string, verifier: string, extra: Record<string, string> = {}) {
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

export async function mcpPing(token: string): Promise<Response> {
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

export const refreshKeys = async () => (await server.storedKeys()).filter((key) => key.startsWith('refresh#'));
