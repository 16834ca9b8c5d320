// The checks on a webhook's callback URL, before anything is sent to it: a stranger chooses the URL, and the server
// must not become their way into its own network (SSRF). `checkCallbackUrl` judges the text alone (scheme, user info,
// fragment, length, an IP literal's range); `resolveCallbackHost` asks DNS and refuses a name with any non-public
// address. Neither is the last word: safeFetch checks every address again when it connects (DNS may answer
// differently then). An origin the operator listed as trusted skips the network checks: it may be http and private.
import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { addressRangeWords, forbiddenAddressReason, type LookupFunction } from '../outbound/safe-fetch.js';

/** Where webhooks may be sent, as the operator configured it. */
export interface CallbackPolicy {
  /**
   * Origins (`https://hooks.example.com`, `http://10.0.0.5:8080`) trusted as they are: http allowed, no address
   * checked, no verification handshake needed. A URL's origin must match one exactly: scheme, host and port.
   */
  readonly trustedOrigins: readonly string[];
  /**
   * Local stack only: `http(s)://127.0.0.1`, `localhost` and `[::1]` on any port are allowed (http, loopback), so a
   * receiver started on the developer's machine needs no certificate. It must still answer the verification
   * handshake: only a listed origin is spared it. The Lambda never sets it.
   * @default false
   */
  readonly allowLoopbackHttp?: boolean;
  /** Resolves host names; tests inject answers. @default dns.lookup */
  readonly lookup?: LookupFunction;
  /** Certificates to trust instead of the usual roots (tests serving HTTPS with a self-signed certificate). */
  readonly ca?: string | Buffer;
}

export type CallbackUrlCheck =
  | {
      readonly ok: true;
      /** The URL as the WHATWG parser writes it (scheme and host in lower case, default port dropped). */
      readonly url: string;
      /**
       * The network checks are lifted for it (a listed origin, or loopback on the local stack): http allowed, no
       * address checked.
       */
      readonly trusted: boolean;
      /** Its origin is on the operator's list: its consent is given, so no verification handshake is needed. */
      readonly listed: boolean;
    }
  | { readonly ok: false; readonly message: string };

export type CallbackHostCheck =
  | {
      readonly ok: true;
      /**
       * The name resolved, every address public. `false` when it did not resolve (it may later: delivery checks again
       * when it connects), and for a trusted origin, which is not looked up.
       */
      readonly resolved: boolean;
    }
  | { readonly ok: false; readonly message: string };

export const MAX_CALLBACK_URL_LENGTH = 2048;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Whether the parsed URL's origin is on the operator's trusted list. */
function isListed(url: URL, policy: CallbackPolicy): boolean {
  return policy.trustedOrigins.some((origin) => originOf(origin) === url.origin);
}

/** Whether the network checks are lifted for the parsed URL: a listed origin, or loopback where the policy allows. */
function isTrusted(url: URL, policy: CallbackPolicy): boolean {
  if (policy.allowLoopbackHttp === true && LOOPBACK_HOSTS.has(url.hostname)) return true;
  return isListed(url, policy);
}

// The origin as the URL parser writes it, so `HTTPS://Hooks.example.com:443` matches `https://hooks.example.com`; an
// entry that does not parse matches nothing.
function originOf(entry: string): string | undefined {
  try {
    const origin = new URL(entry).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/** The host of a parsed URL without the brackets of an IPv6 literal. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Judges a callback URL by its text: a string of at most 2048 characters that parses, unless trusted not an IP literal
 * in a non-public range (whatever its scheme), https (http only for a trusted origin), without user info or a
 * fragment. Makes no network call. Each message says what is wrong and what would do.
 */
export function checkCallbackUrl(url: unknown, policy: CallbackPolicy): CallbackUrlCheck {
  if (typeof url !== 'string' || url === '')
    return { ok: false, message: 'The callback URL must be a non-empty string' };
  if (url.length > MAX_CALLBACK_URL_LENGTH) {
    return {
      ok: false,
      message: `The callback URL is ${url.length} characters long; at most ${MAX_CALLBACK_URL_LENGTH} are accepted`,
    };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, message: `'${url}' is not an absolute URL (like https://hooks.example.com/mcp)` };
  }
  const trusted = isTrusted(parsed, policy);
  // The range before the scheme: an address that is not public is refused whatever the scheme, and https would not
  // make it acceptable, so the refusal names what must change.
  const host = bareHost(parsed);
  if (!trusted && isIP(host) !== 0) {
    const range = forbiddenAddressReason(host);
    if (range !== null) {
      return {
        ok: false,
        message: `The callback URL's host ${host} is ${addressRangeWords(range)}: webhooks go to public addresses only`,
      };
    }
  }
  if (parsed.protocol !== 'https:' && !(trusted && parsed.protocol === 'http:')) {
    const scheme = parsed.protocol.replace(/:$/, '');
    return {
      ok: false,
      message:
        `The callback URL ${url} uses ${scheme}: webhooks are sent over https only ` +
        '(http only to an origin the operator lists as trusted)',
    };
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return { ok: false, message: 'The callback URL carries user info (user:password@): put no credentials in it' };
  }
  // `https://host/path#` parses with an empty hash, so the text is searched too.
  if (parsed.hash !== '' || url.includes('#')) {
    return { ok: false, message: `The callback URL ${url} has a fragment (#…): fragments are never sent, drop it` };
  }
  return { ok: true, url: parsed.href, trusted, listed: isListed(parsed, policy) };
}

/**
 * Looks up the callback URL's host and refuses it if any address is not public (a connection may try each of them).
 * A trusted origin and an IP literal are not looked up. A name that does not resolve is no refusal: the endpoint may
 * not be up yet, and every delivery checks the addresses again when it connects.
 */
export async function resolveCallbackHost(url: string, policy: CallbackPolicy): Promise<CallbackHostCheck> {
  const checked = checkCallbackUrl(url, policy);
  if (!checked.ok) return checked;
  if (checked.trusted) return { ok: true, resolved: false };
  const host = bareHost(new URL(checked.url));
  if (isIP(host) !== 0) return { ok: true, resolved: true };
  let addresses: LookupAddress[];
  try {
    addresses = await lookupAll(host, policy.lookup ?? (dnsLookup as LookupFunction));
  } catch {
    return { ok: true, resolved: false };
  }
  if (addresses.length === 0) return { ok: true, resolved: false };
  for (const { address } of addresses) {
    const range = forbiddenAddressReason(address);
    if (range !== null) {
      return {
        ok: false,
        message:
          `The callback URL's host ${host} resolves to ${address}, ${addressRangeWords(range)}: ` +
          'webhooks go to public addresses only',
      };
    }
  }
  return { ok: true, resolved: true };
}

function lookupAll(host: string, lookup: LookupFunction): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    lookup(host, { all: true }, (error, answer, family) => {
      if (error) return reject(error);
      resolve(typeof answer === 'string' ? [{ address: answer, family: family ?? isIP(answer) }] : answer);
    });
  });
}
