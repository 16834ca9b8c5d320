// The proxy's access tokens die on their own within 15 minutes: nothing checks the grant they came from on each
// request, so a grant revoked by a replayed code or refresh token stops giving access once its last token expires.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkAccessToken, mintAccessToken } from '../../../lambda/oauth/access-tokens.js';

const ISSUER = 'https://api.example/prod';
const keys = { issuer: ISSUER, resource: `${ISSUER}/mcp`, signingKey: async () => key };
const key = randomBytes(32);
const grant = { subject: 'someone', clientId: 'some-client', scope: 'mcp' };
const MINUTE_MS = 60_000;

describe('access token lifetime', () => {
  it('a token is accepted 14 minutes after it was minted', async () => {
    const minted = Date.UTC(2026, 0, 1);
    const token = await mintAccessToken(keys, grant, minted);
    expect(await checkAccessToken(keys, token, minted + 14 * MINUTE_MS)).toMatchObject({ valid: true });
  });

  it('a token outlives its grant by at most 15 minutes: refused as expired after that', async () => {
    const minted = Date.UTC(2026, 0, 1);
    const token = await mintAccessToken(keys, grant, minted);
    expect(await checkAccessToken(keys, token, minted + 15 * MINUTE_MS + 1000)).toEqual({
      valid: false,
      description: 'The access token has expired',
    });
  });
});
