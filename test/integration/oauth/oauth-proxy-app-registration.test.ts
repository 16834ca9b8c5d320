// The OAuth proxy over HTTP: how clients become known to it. Client ID Metadata Documents (fetched only where the
// Lambda would fetch them, and held to the redirect URIs and client_id they state), and Dynamic Client Registration's
// expiry of unused clients and its rate limits.
import { describe, expect, it } from 'vitest';
import { signInWithoutBrowser } from '../../support/browser-login.js';
import {
  pkcePair,
  serveClientMetadataDocument,
  startOAuthTestServer,
  type OAuthTestServer,
} from '../../support/oauth-backend.js';
import {
  authorizationUrl,
  codeFor,
  exchange,
  REDIRECT_URI,
  registeredClientId,
  server,
  useOAuthProxyServer,
} from '../../support/oauth-proxy-flow.js';

/** The proxy's clock runs this far ahead of the real one: lets a test outlive a code without waiting. */
let skewMs = 0;

useOAuthProxyServer({ now: () => Date.now() + skewMs });

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

  it('counts IPv6 sources per /64: many addresses of one /64 share one per-source limit', async () => {
    const limited = await startOAuthTestServer({ registration: { perSourcePerHour: 2, perDay: 1000 } });
    try {
      const statuses: number[] = [];
      for (const sourceIp of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:abcd::3', '2001:db8:1:3::1']) {
        const request = new Request(`${limited.issuer}/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
        });
        statuses.push((await limited.oauth.proxy.handle(request, { sourceIp })).status);
      }
      // The fourth address is in another /64: a source of its own.
      expect(statuses).toEqual([201, 201, 429, 201]);
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
