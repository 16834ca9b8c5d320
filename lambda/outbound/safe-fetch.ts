// An outbound HTTPS request that cannot be aimed at the server's own network (SSRF): the authorization server fetches
// URLs that strangers choose (client metadata documents now, webhook deliveries later). Every address is checked
// after DNS resolution, at connect time, so a name that resolves to a public address for a check and to 10.0.0.1 for
// the connection (DNS rebinding) still cannot reach inside. No redirects, one time cap, one size cap. The one way
// around the guard is an origin the operator named as trusted (`trusted`): then http is allowed and no address checked.

import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Why an outbound request was refused or failed. */
export type OutboundFetchErrorReason =
  'invalid-url' | 'not-https' | 'forbidden-address' | 'redirect' | 'timeout' | 'too-large' | 'network';

/** The one error `safeFetch` throws; `message` says what happened to which URL, never a stack trace. */
export class OutboundFetchError extends Error {
  override readonly name = 'OutboundFetchError';

  constructor(
    readonly reason: OutboundFetchErrorReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** `dns.lookup`'s shape, as `net.connect` calls it (with `all: true` when it tries several addresses). */
export type LookupFunction = (
  hostname: string,
  options: LookupOptions,
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

export interface SafeFetchOptions {
  /** The cap on the whole exchange: connect, TLS, headers and body. */
  readonly timeoutMs: number;
  /** The cap on the response body, in bytes; past it the socket is destroyed. */
  readonly maxBytes: number;
  /**
   * Admit loopback addresses (127.0.0.0/8, ::1), still nothing else private. For the local stack and tests ONLY: the
   * Lambda never sets it.
   * @default false
   */
  readonly allowLoopback?: boolean;
  /** Certificates to trust instead of the usual roots, so tests can serve HTTPS with a self-signed certificate. */
  readonly ca?: string | Buffer;
  /** Resolves host names; tests inject answers. Every answer is checked all the same. @default dns.lookup */
  readonly lookup?: LookupFunction;
  /**
   * The operator listed this URL's origin as trusted (a webhook receiver inside the deployment's own network, say):
   * `http:` is allowed beside `https:`, and no address is checked, neither an IP literal nor what the name resolves
   * to. Only for an origin the operator configured, never for one a caller chose. Credentials in the URL are still
   * refused, redirects still not followed, and the time and size caps still hold.
   * @default false
   */
  readonly trusted?: boolean;
}

export interface SafeFetchInit {
  /** @default 'GET' */
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

export interface SafeFetchResponse {
  readonly status: number;
  /** Lower-case names; a header sent several times is joined with `, `. */
  readonly headers: Record<string, string>;
  /** The body decoded as UTF-8. */
  readonly body: string;
}

// The ranges of ipaddr.js, in words a person reading an error understands.
const RANGE_WORDS: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  linkLocal: 'a link-local address (where cloud metadata services live)',
  uniqueLocal: 'a unique-local address',
  carrierGradeNat: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  reserved: 'a reserved or documentation address',
  ipv4Compatible: 'an IPv4-compatible IPv6 address',
  '6to4': 'a 6to4 address (it embeds an IPv4 address)',
  teredo: 'a Teredo address (it embeds an IPv4 address)',
  rfc6052: 'a NAT64 address (it embeds an IPv4 address)',
  rfc6145: 'an IPv4-translated address',
  invalid: 'not an IP address',
};

/**
 * Why a connection to `address` must not be made, as the ipaddr.js range name (`'private'`, `'loopback'`,
 * `'linkLocal'`, ...), or `null` when it may: only `'unicast'` addresses are allowed, so ranges ipaddr.js adds later
 * are refused by default. IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry.
 */
export function forbiddenAddressReason(address: string, allowLoopback = false): string | null {
  // isIP first: ipaddr.js also parses forms like `127.1` and `0x7f.0.0.1` that are not what a resolver hands back.
  if (isIP(address) === 0) return 'invalid';
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv6' && isIpv4Compatible(parsed as ipaddr.IPv6)) return 'ipv4Compatible';
  const range = parsed.range();
  if (range === 'unicast') return null;
  if (range === 'loopback' && allowLoopback) return null;
  return range;
}

// ::a.b.c.d (deprecated, RFC 4291 section 2.5.5.1): ipaddr.js calls it unicast, yet it names an IPv4 address.
function isIpv4Compatible(address: ipaddr.IPv6): boolean {
  const parts = address.parts;
  return parts.slice(0, 6).every((part) => part === 0) && (parts[6] !== 0 || (parts[7] ?? 0) > 1);
}

/** The range {@link forbiddenAddressReason} named, in words a person reading an error understands. */
export function addressRangeWords(range: string): string {
  return RANGE_WORDS[range] ?? `a ${range} address`;
}

function refusal(url: string, verb: string, address: string, range: string): OutboundFetchError {
  return new OutboundFetchError('forbidden-address', `${url} ${verb} ${address}, ${addressRangeWords(range)}: refused`);
}

// Wraps the resolver: asks for every address, refuses if ANY is forbidden (a connection may try each in turn), then
// answers in the shape net.connect asked for.
function guardedLookup(url: string, resolve: LookupFunction, allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, answer, family) => {
      if (error) return callback(error, '');
      const addresses: LookupAddress[] =
        typeof answer === 'string' ? [{ address: answer, family: family ?? isIP(answer) }] : answer;
      if (addresses.length === 0) {
        const notFound: NodeJS.ErrnoException = new Error(`${hostname} has no addresses`);
        notFound.code = 'ENOTFOUND';
        return callback(notFound, '');
      }
      for (const { address } of addresses) {
        const range = forbiddenAddressReason(address, allowLoopback);
        if (range !== null) return callback(refusal(url, 'resolves to', address, range), '');
      }
      if (options.all) return callback(null, addresses);
      const [first] = addresses as [LookupAddress];
      callback(null, first.address, first.family);
    });
  };
}

function parseUrl(url: string, trusted: boolean): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new OutboundFetchError('invalid-url', `'${url}' is not a URL`, { cause: error });
  }
  const allowed = parsed.protocol === 'https:' || (trusted && parsed.protocol === 'http:');
  if (!allowed) {
    const what = trusted ? 'an http or https URL' : 'an https URL: only https is fetched';
    throw new OutboundFetchError('not-https', `${url} is not ${what}`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new OutboundFetchError('invalid-url', `${url} carries credentials: URLs with user info are not fetched`);
  }
  return parsed;
}

function flattenHeaders(response: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function networkError(url: string, error: unknown): OutboundFetchError {
  if (error instanceof OutboundFetchError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const detail = code ?? (error instanceof Error ? error.message : String(error));
  return new OutboundFetchError('network', `${url} could not be fetched (${detail})`, { cause: error });
}

/**
 * Sends one HTTPS request and reads the whole response, refusing to connect to any address that is not public
 * unicast (see {@link forbiddenAddressReason}), unless the options say the URL's origin is `trusted`. A 3xx is an
 * error, not followed: the next hop would be a URL nobody checked. Throws {@link OutboundFetchError} and nothing else.
 */
export async function safeFetch(
  url: string,
  init: SafeFetchInit,
  options: SafeFetchOptions,
): Promise<SafeFetchResponse> {
  const trusted = options.trusted ?? false;
  const target = parseUrl(url, trusted);
  const allowLoopback = options.allowLoopback ?? false;
  // Node skips `lookup` when the host is an IP literal, so literals are judged here.
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!trusted && isIP(host) !== 0) {
    const range = forbiddenAddressReason(host, allowLoopback);
    if (range !== null) throw refusal(url, 'names', host, range);
  }

  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
  const resolver = options.lookup ?? (dnsLookup as LookupFunction);
  const secure = target.protocol === 'https:';
  const request = secure ? httpsRequest : httpRequest;
  let req: ClientRequest;
  try {
    req = request({
      protocol: target.protocol,
      hostname: host,
      port: target.port === '' ? (secure ? 443 : 80) : Number(target.port),
      path: `${target.pathname}${target.search}`,
      method: init.method ?? 'GET',
      headers,
      // A trusted origin's addresses are not checked: the resolver's answer is used as it is.
      lookup: trusted ? resolver : guardedLookup(url, resolver, allowLoopback),
      // A fresh connection every time: a pooled socket was opened under some other request's checks and options.
      agent: false,
      ...(options.ca === undefined || !secure ? {} : { ca: options.ca }),
    });
  } catch (error) {
    // request() throws at once for a bad method or header value; the caller still gets the one error class.
    throw networkError(url, error);
  }

  return new Promise<SafeFetchResponse>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: SafeFetchResponse | OutboundFetchError): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (outcome instanceof OutboundFetchError) {
        req.destroy();
        reject(outcome);
      } else {
        resolve(outcome);
      }
    };
    const timer = setTimeout(() => {
      finish(new OutboundFetchError('timeout', `${url} did not answer in full within ${options.timeoutMs} ms`));
    }, options.timeoutMs);

    req.on('error', (error) => finish(networkError(url, error)));
    req.on('response', (response) => {
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        const location = response.headers.location;
        const where = location === undefined ? '' : ` to ${location}`;
        return finish(
          new OutboundFetchError('redirect', `${url} redirects${where} (${status}): redirects are not followed`),
        );
      }
      const tooLarge = new OutboundFetchError('too-large', `${url} answered more than ${options.maxBytes} bytes`);
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxBytes) return finish(tooLarge);

      const chunks: Buffer[] = [];
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > options.maxBytes) return finish(tooLarge);
        chunks.push(chunk);
      });
      response.on('error', (error) => finish(networkError(url, error)));
      response.on('end', () => {
        finish({ status, headers: flattenHeaders(response), body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.end(init.body);
  });
}
