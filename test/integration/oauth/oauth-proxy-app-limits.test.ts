// The OAuth proxy over HTTP: what a stranger can make it do without signing in is bounded per source. Sign-ins
// (each stores a pending item) and client metadata document fetches (each an outbound request) count per hour, and
// every refusal is counted in the metrics.
import { describe, expect, it } from 'vitest';
import type { OAuthLimit } from '../../../lambda/oauth/source-limits.js';
import {
  pkcePair,
  serveClientMetadataDocument,
  startOAuthTestServer,
  type OAuthTestServer,
} from '../../support/oauth-backend.js';
import { authorizationUrl, REDIRECT_URI, registeredClientId } from '../../support/oauth-proxy-flow.js';

/** A server with the given per-source limits, whose refusals are recorded in `limited`. */
async function limitedServer(
  limits: { signIns?: number; fetches?: number },
  extra: Parameters<typeof startOAuthTestServer>[0] = {},
) {
  const limited: OAuthLimit[] = [];
  const server = await startOAuthTestServer({
    sourceLimits: {
      signInsPerSourcePerHour: limits.signIns ?? 1000,
      metadataFetchesPerSourcePerHour: limits.fetches ?? 1000,
    },
    metrics: { limitReached: (limit) => limited.push(limit) },
    ...extra,
  });
  return { server, limited };
}

/** GET /authorize on `server` as if from `sourceIp`. */
async function authorizeFrom(server: OAuthTestServer, sourceIp: string, clientId: string): Promise<Response> {
  const { challenge } = await pkcePair();
  return server.oauth.proxy.handle(new Request(authorizationUrl(clientId, challenge, {}, server)), { sourceIp });
}

const pendingKeys = async (server: OAuthTestServer) =>
  (await server.storedKeys()).filter((key) => key.startsWith('pending#'));

describe('per-source limits on what needs no sign-in', () => {
  it('refuses sign-ins past the limit: temporarily_unavailable back to the client, nothing more stored', async () => {
    const { server, limited } = await limitedServer({ signIns: 2 });
    try {
      const clientId = await registeredClientId(server);
      const answers = [];
      for (let attempt = 0; attempt < 3; attempt++) answers.push(await authorizeFrom(server, '203.0.113.7', clientId));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 302]);
      const location = new URL(answers[2]!.headers.get('location')!);
      expect(location.searchParams.get('error')).toBe('temporarily_unavailable');
      expect(location.searchParams.get('error_description')).toMatch(/At most 2 sign-ins an hour/);
      expect(location.searchParams.get('state')).toBe('client-state');
      expect(await pendingKeys(server)).toHaveLength(2);
      expect(limited).toEqual(['sign-ins-per-source']);
      // Another source, and another IPv6 /64, still signs in.
      expect((await authorizeFrom(server, '203.0.113.8', clientId)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('counts sign-ins from one IPv6 /64 together', async () => {
    const { server, limited } = await limitedServer({ signIns: 1 });
    try {
      const clientId = await registeredClientId(server);
      expect((await authorizeFrom(server, '2001:db8:5:6::1', clientId)).status).toBe(200);
      expect((await authorizeFrom(server, '2001:db8:5:6::2', clientId)).status).toBe(302);
      expect(limited).toEqual(['sign-ins-per-source']);
    } finally {
      await server.close();
    }
  });

  it('refuses metadata document fetches past the limit without fetching: a 429 page', async () => {
    let fetched = 0;
    // Not cacheable, so each sign-in would fetch it again.
    const document = await serveClientMetadataDocument({ redirect_uris: [REDIRECT_URI] }, () => fetched++, {
      'cache-control': 'no-store',
    });
    const { server, limited } = await limitedServer(
      { fetches: 2 },
      { clientIdMetadataDocuments: { fetch: { allowLoopback: true, ca: document.ca } } },
    );
    try {
      const answers = [];
      for (let attempt = 0; attempt < 3; attempt++)
        answers.push(await authorizeFrom(server, '198.51.100.1', document.url));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 429]);
      expect(answers[2]!.headers.get('x-oauth-error')).toBe('too_many_requests');
      expect(answers[2]!.headers.get('retry-after')).toBe('3600');
      expect(await answers[2]!.text()).toMatch(/At most 2 client metadata document fetches an hour/);
      expect(fetched).toBe(2);
      expect(limited).toEqual(['metadata-fetches-per-source']);
    } finally {
      await server.close();
      await document.close();
    }
  });
});
