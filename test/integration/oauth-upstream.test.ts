// The local stand-in for Cognito, driven as the OAuth proxy drives a user pool app client: openid-client discovery,
// the authorization URL with PKCE S256, state and a nonce, the sign-in (in Chromium, or by fetch), the code exchange
// with its ID-token checks, and a refresh.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOAuthUpstream, type OAuthUpstream } from '../../local/oauth-upstream.js';
import { chromiumAvailable, signInWithBrowser, signInWithoutBrowser } from '../support/browser-login.js';

// Nothing listens there: the sign-in helpers stop at the first redirect to it.
const REDIRECT_URI = 'http://127.0.0.1:9/oauth/callback';

let upstream: OAuthUpstream;

beforeAll(async () => {
  upstream = await startOAuthUpstream({ redirectUris: [REDIRECT_URI] });
});

afterAll(async () => {
  await upstream?.close();
});

/** The proxy's client: client_secret_basic, as it authenticates to Cognito; openid-client's default is the body. */
function discover(
  authentication: 'basic' | 'default' = 'default',
  secret = upstream.clientSecret,
): Promise<oidc.Configuration> {
  return oidc.discovery(
    new URL(upstream.issuer),
    upstream.clientId,
    secret,
    authentication === 'basic' ? oidc.ClientSecretBasic(secret) : undefined,
    { execute: [oidc.allowInsecureRequests] },
  );
}

interface Attempt {
  readonly url: string;
  readonly checks: { pkceCodeVerifier: string; expectedState: string; expectedNonce: string; idTokenExpected: true };
}

async function authorizationRequest(configuration: oidc.Configuration): Promise<Attempt> {
  const pkceCodeVerifier = oidc.randomPKCECodeVerifier();
  const expectedState = oidc.randomState();
  const expectedNonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(configuration, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid email',
    state: expectedState,
    nonce: expectedNonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(pkceCodeVerifier),
    code_challenge_method: 'S256',
  });
  return { url: url.href, checks: { pkceCodeVerifier, expectedState, expectedNonce, idTokenExpected: true } };
}

/** The code exchange and a refresh, with what the proxy relies on: who signed in, and a refresh token that works. */
async function expectSignedInAsTestUser(configuration: oidc.Configuration, back: URL, attempt: Attempt) {
  expect(back.searchParams.get('code')).toBeTruthy();
  const tokens = await oidc.authorizationCodeGrant(configuration, back, attempt.checks);
  expect(tokens.claims()).toMatchObject({
    iss: upstream.issuer,
    aud: upstream.clientId,
    sub: upstream.user.subject,
    email: upstream.user.email,
  });
  expect(tokens.refresh_token).toBeTruthy();
  const refreshed = await oidc.refreshTokenGrant(configuration, tokens.refresh_token!);
  expect(refreshed.access_token).toBeTruthy();
  expect(refreshed.claims()?.sub).toBe(upstream.user.subject);
}

/** The status and OAuth error code of a refused token request: in the body, or (for HTTP Basic) in WWW-Authenticate. */
function oAuthError(refusal: unknown): { status: number; error: string | undefined } | undefined {
  if (refusal instanceof oidc.ResponseBodyError) return { status: refusal.status, error: refusal.error };
  if (refusal instanceof oidc.WWWAuthenticateChallengeError)
    return { status: refusal.status, error: refusal.cause[0]?.parameters.error };
  return undefined;
}

describe('startOAuthUpstream', () => {
  it('signs the test user in through Chromium; the code gives their ID token and a refresh token that refreshes', async () => {
    expect(chromiumAvailable(), "Chromium at /usr/bin/chromium (Debian's chromium package, see .ci/run)").toBe(true);
    const configuration = await discover();
    const attempt = await authorizationRequest(configuration);
    const back = await signInWithBrowser(attempt.url, upstream.user, { redirectUriPrefix: REDIRECT_URI });
    await expectSignedInAsTestUser(configuration, back, attempt);
  });

  it('signs the test user in by fetch, and the proxy authenticating with client_secret_basic gets the same', async () => {
    const configuration = await discover('basic');
    const attempt = await authorizationRequest(configuration);
    const back = await signInWithoutBrowser(attempt.url, upstream.user, { redirectUriPrefix: REDIRECT_URI });
    expect(back.searchParams.get('iss')).toBe(upstream.issuer);
    await expectSignedInAsTestUser(configuration, back, attempt);
  });

  it('shows the login form again with an error after a wrong password, without redirecting', async () => {
    const attempt = await authorizationRequest(await discover());
    const authorize = await fetch(attempt.url, { redirect: 'manual' });
    const loginUrl = new URL(authorize.headers.get('location')!, upstream.issuer);
    const cookie = authorize.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ');
    const form = await (await fetch(loginUrl, { headers: { cookie } })).text();
    const action = /<form[^>]*action="([^"]+)"/.exec(form)?.[1];
    expect(action).toBe(`${loginUrl.pathname}/login`);

    const refused = await fetch(new URL(action!, loginUrl), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: upstream.user.username, password: 'not-the-password' }).toString(),
    });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('location')).toBeNull();
    const page = await refused.text();
    expect(page).toMatch(/<p role="alert">Incorrect username or password\.<\/p>/);
    expect(page).toMatch(/<form[^>]*action="[^"]+\/login"/);
    expect(page).toMatch(/<input name="password" type="password"/);
  });

  it('lets neither sign-in helper reach the redirect URI with a wrong password; both report the error', async () => {
    const wrong = { username: upstream.user.username, password: 'not-the-password' };
    const configuration = await discover();
    await expect(
      signInWithoutBrowser((await authorizationRequest(configuration)).url, wrong, { redirectUriPrefix: REDIRECT_URI }),
    ).rejects.toThrow(/Incorrect username or password/);
    await expect(
      signInWithBrowser((await authorizationRequest(configuration)).url, wrong, { redirectUriPrefix: REDIRECT_URI }),
    ).rejects.toThrow(/Incorrect username or password/);
  });

  it('refuses a code exchange with a wrong client secret as invalid_client', async () => {
    const attempt = await authorizationRequest(await discover());
    const back = await signInWithoutBrowser(attempt.url, upstream.user, { redirectUriPrefix: REDIRECT_URI });
    for (const authentication of ['basic', 'default'] as const) {
      const impostor = await discover(authentication, 'not-the-secret');
      const refusal = await oidc.authorizationCodeGrant(impostor, back, attempt.checks).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(oAuthError(refusal)).toEqual({ status: 401, error: 'invalid_client' });
    }
  });
});
