// Signing the test user in as a person would: through Debian's Chromium (driven by playwright-core), or, for fast
// tests, through the same redirects and login form with plain fetch. Both stop at the client's redirect URI and hand
// back the URL the authorization server sent the browser to (the code and state are in its query).
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
// Without the background-networking flags Chromium keeps calling Google's services, which this machine cannot reach.
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const CLOSE_PAGE = '<!DOCTYPE html><title>Signed in</title><p>Signed in. You may close this page.</p>';

export interface SignInUser {
  readonly username: string;
  readonly password: string;
}

export interface SignInOptions {
  /** Where the client waits for the answer; the first navigation to a URL starting with it ends the sign-in. */
  readonly redirectUriPrefix: string;
}

export interface BrowserSignInOptions extends SignInOptions {
  /** @default 60_000 */
  readonly timeoutMs?: number;
  /**
   * The client listens at the redirect URI itself (a CLI's loopback listener): the browser's request must reach it,
   * and the sign-in ends when that listener has answered. Otherwise the redirect is answered here.
   * @default false
   */
  readonly clientListens?: boolean;
}

/** Whether {@link signInWithBrowser} can run here (`.ci/run` installs the `chromium` package). */
export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM);
}

/**
 * Opens `authorizationUrl` in headless Chromium, fills the login form with the user's credentials, submits it, and
 * resolves with the URL the browser is then sent to at the redirect URI (answered here, so nothing needs to listen
 * there, unless `clientListens`). Rejects with the page's error message when the sign-in is refused.
 */
export async function signInWithBrowser(
  authorizationUrl: string,
  user: SignInUser,
  options: BrowserSignInOptions,
): Promise<URL> {
  const timeout = options.timeoutMs ?? 60_000;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout });
  let timer: NodeJS.Timeout | undefined;
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(timeout);
    let arrivedAt: URL | undefined;
    let arrived: (url: URL) => void = () => {};
    const redirected = new Promise<URL>((resolve) => (arrived = resolve));
    const atRedirectUri = (url: string): boolean => url.startsWith(options.redirectUriPrefix);
    if (options.clientListens === true) {
      // The listener has the code once it has answered; answering here instead would take the code from the client.
      page.on('response', (response) => {
        if (!atRedirectUri(response.url())) return;
        arrivedAt ??= new URL(response.url());
        arrived(arrivedAt);
      });
    } else {
      // The redirect URI is reached by a redirect from the authorization server; routing sees that hop too.
      await page.route(
        (url) => atRedirectUri(url.href),
        async (route) => {
          arrivedAt ??= new URL(route.request().url());
          arrived(arrivedAt);
          await route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: CLOSE_PAGE });
        },
      );
    }
    await page.goto(authorizationUrl);
    // Sent straight back without a login form (an error answer, say): that is the answer.
    if (arrivedAt !== undefined) return arrivedAt;
    // The authorization server's consent page, when it has one: the person allows the client.
    const allow = page.locator('form[data-consent] button', { hasText: 'Allow' });
    if ((await allow.count()) > 0) await allow.click();
    await page.locator('input[name="username"]').fill(user.username);
    await page.locator('input[name="password"]').fill(user.password);
    await page.locator('form [type="submit"]').click({ noWaitAfter: true });
    const refused = page
      .locator('[role="alert"]')
      .waitFor()
      .then(async () => {
        throw new Error(`Sign-in refused: ${await page.locator('[role="alert"]').innerText()}`);
      });
    refused.catch(() => {}); // Settles after the race when the sign-in succeeds or the browser closes.
    const timedOut = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`No redirect to ${options.redirectUriPrefix} in ${timeout} ms`)),
        timeout,
      );
    });
    return await Promise.race([redirected, refused, timedOut]);
  } finally {
    clearTimeout(timer);
    await browser.close();
  }
}

/**
 * The same sign-in with fetch: follows redirects by hand, keeps cookies per host and path, submits the first form it
 * is shown with the user's credentials (and the form's other fields as they are), and resolves with the first
 * redirect to the redirect URI. Rejects with the page's error message when the sign-in is refused.
 */
export async function signInWithoutBrowser(
  authorizationUrl: string,
  user: SignInUser,
  options: SignInOptions,
): Promise<URL> {
  const cookies = new CookieJar();
  let url = new URL(authorizationUrl);
  let init: RequestInit = {};
  let loginSubmitted = false;
  // A sign-in is a handful of hops (proxy, provider, login, consent, proxy callback, client); this is a safety cap.
  for (let hop = 0; hop < 30; hop++) {
    if (url.href.startsWith(options.redirectUriPrefix)) return url;
    const headers = new Headers(init.headers);
    const cookie = cookies.header(url);
    if (cookie !== '') headers.set('cookie', cookie);
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    cookies.store(url, response.headers.getSetCookie());
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location !== null) {
      await response.body?.cancel();
      url = new URL(location, url);
      init = {};
      continue;
    }
    const html = await response.text();
    const alert = /<[^>]+role="alert"[^>]*>([\s\S]*?)</i.exec(html);
    if (loginSubmitted || alert !== null) {
      const reason = alert === null ? `HTTP ${response.status}` : decodeHtml(alert[1] ?? '');
      throw new Error(`Sign-in refused at ${url.origin}${url.pathname}: ${reason}`);
    }
    const form = /<form\b([^>]*)>([\s\S]*?)<\/form>/i.exec(html);
    if (form === null) throw new Error(`No login form at ${url.href} (HTTP ${response.status})`);
    const fields = new URLSearchParams();
    for (const input of (form[2] ?? '').matchAll(/<input\b[^>]*>/gi)) {
      const name = attribute(input[0], 'name');
      if (name !== undefined) fields.set(name, attribute(input[0], 'value') ?? '');
    }
    // A consent page's first form is its "Allow"; any other form is the login form.
    if (!/\bdata-consent\b/.test(form[1] ?? '')) {
      fields.set('username', user.username);
      fields.set('password', user.password);
      loginSubmitted = true;
    }
    url = new URL(attribute(form[1] ?? '', 'action') ?? url.href, url);
    init = {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: fields.toString(),
    };
  }
  throw new Error(`No redirect to ${options.redirectUriPrefix} after 30 hops`);
}

/** Just enough of RFC 6265 for a sign-in: host-only cookies, paths, expiry by Max-Age or Expires. */
class CookieJar {
  readonly #cookies = new Map<string, { host: string; path: string; name: string; value: string }>();

  store(url: URL, setCookies: readonly string[]): void {
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const equals = pair.indexOf('=');
      if (equals <= 0) continue;
      const name = pair.slice(0, equals);
      const value = pair.slice(equals + 1);
      let path = url.pathname.slice(0, url.pathname.lastIndexOf('/')) || '/';
      let expired = false;
      for (const attribute of attributes) {
        const [key = '', attributeValue = ''] = attribute.split('=', 2);
        if (/^path$/i.test(key) && attributeValue.startsWith('/')) path = attributeValue;
        if (/^max-age$/i.test(key) && Number(attributeValue) <= 0) expired = true;
        if (/^expires$/i.test(key) && Date.parse(attributeValue) <= Date.now()) expired = true;
      }
      const key = `${url.host} ${path} ${name}`;
      if (expired) this.#cookies.delete(key);
      else this.#cookies.set(key, { host: url.host, path, name, value });
    }
  }

  header(url: URL): string {
    return [...this.#cookies.values()]
      .filter(
        (cookie) =>
          cookie.host === url.host &&
          (url.pathname === cookie.path ||
            url.pathname.startsWith(cookie.path.endsWith('/') ? cookie.path : `${cookie.path}/`)),
      )
      .map((cookie) => `${cookie.name}=${cookie.value}`)
      .join('; ');
  }
}

function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag);
  return match === null ? undefined : decodeHtml(match[1] ?? match[2] ?? match[3] ?? '');
}

function decodeHtml(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_entity, code: string) => String.fromCharCode(Number(code)))
    .replace(/&#x([0-9a-f]+);/gi, (_entity, code: string) => String.fromCharCode(parseInt(code, 16)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .trim();
}
