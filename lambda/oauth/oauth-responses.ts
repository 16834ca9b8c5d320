// The HTTP answers of the authorization server: JSON documents, RFC 6749 error objects (the MCP SDK's OAuth error
// classes name the codes), redirects back to a client, and the one page a person sees when no redirect is safe.
import { createHash } from 'node:crypto';
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' } as const;

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...NO_STORE, ...headers },
  });
}

/** A public document (metadata): cacheable for a few minutes. */
export function publicDocument(body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status: 200,
    headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' },
  });
}

/** An RFC 6749 section 5.2 error: 400, or 401 for a client that failed to authenticate. */
export function oauthErrorResponse(error: OAuthError, status = 400, headers: Record<string, string> = {}): Response {
  return json(error.toResponseObject(), status, headers);
}

export function redirect(location: URL | string): Response {
  return new Response(null, { status: 302, headers: { location: String(location), ...NO_STORE } });
}

/** Sends an authorization error to the client's (verified) redirect URI, with its state (RFC 6749 4.1.2.1). */
export function redirectWithError(
  redirectUri: string,
  error: OAuthError,
  state: string | undefined,
  issuer: string,
): Response {
  const target = new URL(redirectUri);
  target.searchParams.set('error', error.errorCode);
  target.searchParams.set('error_description', error.message);
  if (state !== undefined) target.searchParams.set('state', state);
  target.searchParams.set('iss', issuer);
  return redirect(target);
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}' +
  'h1{font-size:1.4rem}code{font-size:.9em;word-break:break-all}.muted{color:#555;font-size:.9em}' +
  'form{display:inline-block;margin:1rem .5rem 0 0}' +
  'button{font:inherit;padding:.5rem 1.5rem;border-radius:.4rem;border:1px solid #888;background:#fff;cursor:pointer}' +
  'button.primary{background:#1a56db;border-color:#1a56db;color:#fff}';
/** The one stylesheet, allowed by its hash: no other style, and no script at all. */
const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/** A page for a person: no scripts, no styles from elsewhere, never framed (a consent page must not be clickjacked). */
export function page(body: string, status = 200, headers: Record<string, string> = {}): Response {
  const head = '<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width">';
  const html = `${head}<style>${STYLE}</style>${body}`;
  return new Response(html, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': `default-src 'none'; style-src ${STYLE_HASH}; frame-ancestors 'none'`,
      'x-frame-options': 'DENY',
      ...NO_STORE,
      ...headers,
    },
  });
}

/**
 * What a person sees when the request cannot be sent back to the client: an unknown client or a redirect URI it did
 * not register (RFC 6749 4.1.2.1 forbids redirecting then). The error code is in the page and a header for tools.
 */
export function errorPage(error: OAuthError, status = 400, headers: Record<string, string> = {}): Response {
  return page(
    '<title>Sign-in failed</title>' +
      `<h1>Sign-in failed</h1><p>${escapeHtml(error.message)}</p><p><code>${escapeHtml(error.errorCode)}</code></p>`,
    status,
    { 'x-oauth-error': error.errorCode, ...headers },
  );
}
