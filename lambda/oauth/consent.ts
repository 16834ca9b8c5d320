// Consent, and the browser it binds to. Every MCP client signs people in through the proxy's one upstream client, and
// the upstream provider signs a person in silently while its session lasts; so without a question asked here, a link
// to a sign-in started by someone else would hand that someone a code for the person who clicks it (the MCP spec's
// "confused deputy": a proxy with a static client ID MUST get consent for each dynamically registered client). The
// page names the client and where it will be sent; a cookie set with the page proves, at the decision and at the
// callback, that the same browser saw it.
import { escapeHtml } from './oauth-responses.js';
import { sameSecret, tokenHash } from './oauth-proxy-context.js';

/** The consent page's two answers. */
export const CONSENT_DECISIONS = ['allow', 'deny'] as const;

/** The cookie that binds one pending sign-in to the browser shown its consent page. */
export function consentCookieName(pendingId: string, secure: boolean): string {
  // Named per sign-in, so two sign-ins in one browser do not overwrite each other; __Host- pins it to this origin.
  return `${secure ? '__Host-' : ''}mcp-consent-${pendingId.slice(0, 16)}`;
}

export function consentCookie(pendingId: string, value: string, secure: boolean, maxAgeSeconds: number): string {
  return (
    `${consentCookieName(pendingId, secure)}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax` +
    (secure ? '; Secure' : '')
  );
}

export function clearedConsentCookie(pendingId: string, secure: boolean): string {
  return consentCookie(pendingId, '', secure, 0);
}

/** Whether the request carries the cookie whose SHA-256 the pending sign-in holds. */
export function carriesConsentCookie(
  request: Request,
  pending: { readonly id: string; readonly browserBindingHash: string },
  secure: boolean,
): boolean {
  const name = consentCookieName(pending.id, secure);
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return sameSecret(tokenHash(value.join('=')), pending.browserBindingHash);
  }
  return false;
}

export interface ConsentPageFacts {
  readonly action: string;
  readonly pendingId: string;
  /** The client's own name for itself, unverified. */
  readonly clientName?: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly resource: string;
}

/** The question, naming what can be checked: the client's ID (a URL for a metadata document) and its redirect. */
export function consentPage(facts: ConsentPageFacts): string {
  const name = escapeHtml(facts.clientName ?? 'An MCP client');
  const destination = new URL(facts.redirectUri);
  const sentTo = escapeHtml(
    destination.protocol === 'http:' ? `${destination.host} (this computer)` : destination.host,
  );
  const form = (decision: (typeof CONSENT_DECISIONS)[number], label: string, primary: boolean) =>
    `<form method="post" action="${escapeHtml(facts.action)}" data-consent>` +
    `<input type="hidden" name="pending" value="${escapeHtml(facts.pendingId)}">` +
    `<input type="hidden" name="decision" value="${decision}">` +
    `<button type="submit"${primary ? ' class="primary"' : ''}>${label}</button></form>`;
  return (
    '<title>Allow access?</title>' +
    `<h1>Allow ${name} to use your tasks?</h1>` +
    `<p>It will call the tools of <code>${escapeHtml(facts.resource)}</code> and read and cancel your tasks there, ` +
    `as you. After you sign in, you are sent to <b>${sentTo}</b>.</p>` +
    `<p class="muted">Client ID: <code>${escapeHtml(facts.clientId)}</code>. The name is the client's own claim; ` +
    'where you are sent is what to check. Allow only if you started this from that client yourself.</p>' +
    form('allow', 'Allow', true) +
    form('deny', 'Deny', false)
  );
}
