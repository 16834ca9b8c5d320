// /authorize and the upstream callback. /authorize checks the client and its redirect URI first: until both are
// known good, errors are shown to the person, never redirected (RFC 6749 4.1.2.1). It then keeps the client's request
// (PKCE challenge, redirect URI, resource) and asks the person whether to allow the client (consent.ts); on "allow" it
// sends them to the upstream provider with the proxy's own PKCE. The callback swaps the upstream code for a code of
// this server, bound to what the client asked for, in the browser that consented.
import {
  AccessDeniedError,
  InvalidClientError,
  InvalidRequestError,
  InvalidTargetError,
  OAuthError,
  ServerError,
  TemporarilyUnavailableError,
  TooManyRequestsError,
  UnsupportedResponseTypeError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { carriesConsentCookie, clearedConsentCookie, consentCookie, consentPage } from './consent.js';
import { isAllowedRedirectUri, matchesRegisteredRedirectUri } from '../contract/redirect-uri-policy.js';
import { errorPage, page, redirect, redirectWithError } from './oauth-responses.js';
import { OAUTH_PROXY_SCOPE, randomToken, tokenHash, type OAuthProxyContext } from './oauth-proxy-context.js';
import type { PendingAuthorization } from './oauth-store.js';
import { formBody } from './form-body.js';
import { OAUTH_PATHS } from '../contract/oauth-paths.js';
import { OAUTH_LIMIT } from './source-limits.js';

/** How long a person has to decide and sign in upstream. */
const PENDING_AUTHORIZATION_MS = 10 * 60 * 1000;
/** An authorization code lives at most this long (RFC 6749 recommends at most 10 minutes; 60 s is plenty). */
export const AUTHORIZATION_CODE_MS = 60 * 1000;
/** RFC 7636: an S256 challenge is the base64url of a SHA-256, 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const MAX_FORM_BYTES = 4 * 1024;
/**
 * The client's `state` is stored with the pending sign-in and echoed back: a bound keeps a stranger from storing
 * kilobytes per request. Clients send a random value of a few dozen characters.
 */
export const MAX_STATE_LENGTH = 512;
/** How long a source refused for too many requests should wait: the limits count per hour. */
const RETRY_AFTER = { 'retry-after': '3600' } as const;

/** The value of a parameter that must appear at most once (RFC 6749 3.1); throws when it repeats. */
function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw new InvalidRequestError(`${name} is given more than once`);
  return values[0] === '' ? undefined : values[0];
}

/** Cookies are Secure (and __Host-) wherever the issuer is https, as deployed; plain on the local stack. */
function secureCookies(context: OAuthProxyContext): boolean {
  return context.issuer.startsWith('https:');
}

/** GET /authorize from `source` (a counting source, see source-limits.ts): the consent page, or why not. */
export async function authorize(request: Request, source: string, context: OAuthProxyContext): Promise<Response> {
  const params = new URL(request.url).searchParams;
  const now = context.now();
  let clientId: string | undefined;
  let redirectUri: string | undefined;
  let clientName: string | undefined;
  try {
    // Checked first, so an oversized state is neither echoed in a redirect nor costs a client lookup.
    if ((params.get('state') ?? '').length > MAX_STATE_LENGTH)
      throw new InvalidRequestError(`state may have at most ${MAX_STATE_LENGTH} characters`);
    clientId = single(params, 'client_id');
    redirectUri = single(params, 'redirect_uri');
    if (clientId === undefined) throw new InvalidRequestError('client_id is required');
    const client = await context.clients(clientId, now, source);
    clientName = client.clientName;
    if (redirectUri === undefined) throw new InvalidRequestError('redirect_uri is required');
    if (!matchesRegisteredRedirectUri(redirectUri, client.redirectUris))
      throw new InvalidRequestError(`redirect_uri '${redirectUri}' is not registered for client '${clientId}'`);
    if (!isAllowedRedirectUri(redirectUri, context.allowedRedirectUris))
      throw new InvalidRequestError(
        `redirect_uri '${redirectUri}' is not allowed by this server's redirect URI policy`,
      );
  } catch (error) {
    if (error instanceof InvalidClientError || error instanceof InvalidRequestError) return errorPage(error);
    // Too many metadata documents fetched for this source: the client is not known, so the person is told.
    if (error instanceof TooManyRequestsError) return errorPage(error, 429, RETRY_AFTER);
    throw error;
  }
  // From here the redirect URI is known good: errors go back to the client.
  const state = params.get('state') ?? undefined;
  try {
    const checked = checkedRequest(params, context);
    await context.limiter.admit(OAUTH_LIMIT.signInsPerSource, source, now);
    const browserBinding = randomToken();
    const pending: PendingAuthorization = {
      id: randomToken(),
      clientId,
      redirectUri,
      ...checked,
      ...(state !== undefined ? { clientState: state } : {}),
      upstreamCodeVerifier: randomToken(),
      upstreamNonce: randomToken(),
      browserBindingHash: tokenHash(browserBinding),
      expiresAt: now + PENDING_AUTHORIZATION_MS,
    };
    await context.store.putPendingAuthorization(pending);
    const html = consentPage({
      action: `${context.issuer}/authorize`,
      pendingId: pending.id,
      ...(clientName !== undefined ? { clientName } : {}),
      clientId,
      redirectUri,
      resource: pending.resource,
    });
    const cookie = consentCookie(pending.id, browserBinding, secureCookies(context), PENDING_AUTHORIZATION_MS / 1000);
    return page(html, 200, { 'set-cookie': cookie });
  } catch (error) {
    // RFC 6749 4.1.2.1 names no "too many requests": an overloaded authorization server says temporarily_unavailable.
    if (error instanceof TooManyRequestsError)
      return redirectWithError(redirectUri, new TemporarilyUnavailableError(error.message), state, context.issuer);
    if (error instanceof OAuthError) return redirectWithError(redirectUri, error, state, context.issuer);
    context.logger.error('Authorization request failed', { error: String(error) });
    return redirectWithError(redirectUri, new ServerError('The sign-in could not start'), state, context.issuer);
  }
}

/** The person's answer on the consent page (POST /authorize), from the browser that was shown it. */
export async function decide(request: Request, context: OAuthProxyContext): Promise<Response> {
  let form: URLSearchParams;
  try {
    form = await formBody(request, MAX_FORM_BYTES, 'The answer');
  } catch (error) {
    if (error instanceof InvalidRequestError) return errorPage(error);
    throw error;
  }
  const pendingId = form.get('pending') ?? '';
  const pending = pendingId === '' ? null : await context.store.getPendingAuthorization(pendingId, context.now());
  if (pending === null)
    return errorPage(new InvalidRequestError('This sign-in has expired or was already completed: start again'));
  if (!carriesConsentCookie(request, pending, secureCookies(context)))
    return errorPage(
      new InvalidRequestError('This sign-in was started in another browser: start it from your client'),
      403,
    );
  if (form.get('decision') !== 'allow') {
    await context.store.takePendingAuthorization(pending.id, context.now());
    return redirectWithError(
      pending.redirectUri,
      new AccessDeniedError('The person denied access'),
      pending.clientState,
      context.issuer,
    );
  }
  try {
    return redirect(
      await context.upstream.authorizationUrl({
        redirectUri: `${context.issuer}${OAUTH_PATHS.callback}`,
        state: pending.id,
        nonce: pending.upstreamNonce,
        codeVerifier: pending.upstreamCodeVerifier,
      }),
    );
  } catch (error) {
    context.logger.error('Upstream authorization URL failed', { error: String(error) });
    const failure = new ServerError('The sign-in could not start');
    return redirectWithError(pending.redirectUri, failure, pending.clientState, context.issuer);
  }
}

/** The parts of an authorization request checked once the client is known: response type, PKCE, resource, scope. */
function checkedRequest(
  params: URLSearchParams,
  context: OAuthProxyContext,
): { codeChallenge: string; resource: string; scope: string } {
  const responseType = single(params, 'response_type');
  if (responseType !== 'code')
    throw new UnsupportedResponseTypeError(`response_type must be 'code', got '${responseType ?? ''}'`);
  const codeChallenge = single(params, 'code_challenge');
  if (codeChallenge === undefined) throw new InvalidRequestError('code_challenge is required: this server needs PKCE');
  if (single(params, 'code_challenge_method') !== 'S256')
    throw new InvalidRequestError("code_challenge_method must be 'S256'");
  if (!S256_CHALLENGE.test(codeChallenge))
    throw new InvalidRequestError('code_challenge must be the base64url SHA-256 of the verifier (43 characters)');
  const resource = single(params, 'resource') ?? context.resource;
  if (resource !== context.resource)
    throw new InvalidTargetError(`This server issues tokens for ${context.resource} only, not ${resource}`);
  // RFC 6749 3.3: scopes this server does not know (clients add `openid`, `offline_access`) are ignored, not refused;
  // the token response says what was granted.
  single(params, 'scope');
  return { codeChallenge, resource, scope: OAUTH_PROXY_SCOPE };
}

export async function completeSignIn(request: Request, context: OAuthProxyContext): Promise<Response> {
  const params = new URL(request.url).searchParams;
  const now = context.now();
  const state = params.get('state');
  const expired = () =>
    errorPage(
      new InvalidRequestError('This sign-in has expired or was already completed: start again from your client'),
    );
  const found = state ? await context.store.getPendingAuthorization(state, now) : null;
  if (found === null) return expired();
  // A sign-in finishes in the browser that consented to it, or not at all. The cookie is checked before the sign-in
  // is taken: a forged callback from another browser must not be able to cancel it.
  if (!carriesConsentCookie(request, found, secureCookies(context)))
    return errorPage(
      new InvalidRequestError('This sign-in was started in another browser: start it from your client'),
      403,
    );
  // Taken only now, and once: of two callbacks from the consenting browser, one proceeds.
  const pending = await context.store.takePendingAuthorization(found.id, now);
  if (pending === null) return expired();
  const back = (error: OAuthError) =>
    redirectWithError(pending.redirectUri, error, pending.clientState, context.issuer);
  if (params.has('error')) return back(new AccessDeniedError('Sign-in was cancelled or refused'));
  // The URL the provider redirected to, as registered with it: behind API Gateway the request URL has no stage.
  const callbackUrl = new URL(`${context.issuer}${OAUTH_PATHS.callback}`);
  callbackUrl.search = params.toString();
  let signIn;
  try {
    signIn = await context.upstream.signIn(callbackUrl, {
      state: pending.id,
      nonce: pending.upstreamNonce,
      codeVerifier: pending.upstreamCodeVerifier,
    });
  } catch (error) {
    context.logger.warn('Upstream sign-in failed', { error: String(error) });
    return back(new AccessDeniedError('The identity provider did not confirm the sign-in'));
  }
  const code = randomToken();
  await context.store.putAuthorizationCode({
    codeHash: tokenHash(code),
    grantId: randomToken(),
    clientId: pending.clientId,
    redirectUri: pending.redirectUri,
    codeChallenge: pending.codeChallenge,
    resource: pending.resource,
    scope: pending.scope,
    subject: signIn.subject,
    ...(signIn.refreshToken ? { upstreamRefreshToken: signIn.refreshToken } : {}),
    expiresAt: now + AUTHORIZATION_CODE_MS,
  });
  const target = new URL(pending.redirectUri);
  target.searchParams.set('code', code);
  if (pending.clientState !== undefined) target.searchParams.set('state', pending.clientState);
  target.searchParams.set('iss', context.issuer);
  const answer = redirect(target);
  answer.headers.append('set-cookie', clearedConsentCookie(pending.id, secureCookies(context)));
  return answer;
}
