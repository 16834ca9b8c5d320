// The checks on a callback URL: by its text (scheme, user info, fragment, length, an IP literal's range, trusted
// origins) and by what its name resolves to (answers injected, no network).
import { describe, expect, it } from 'vitest';
import {
  checkCallbackUrl,
  MAX_CALLBACK_URL_LENGTH,
  resolveCallbackHost,
  type CallbackPolicy,
} from '../../../lambda/events/callback-url.js';
import type { LookupFunction } from '../../../lambda/outbound/safe-fetch.js';

const NONE: CallbackPolicy = { trustedOrigins: [] };

/** A resolver answering `addresses` for every name (or failing with `code`), recording the names asked. */
function fakeDns(answer: string[] | { code: string }): { lookup: LookupFunction; asked: string[] } {
  const asked: string[] = [];
  const lookup: LookupFunction = (hostname, _options, callback) => {
    asked.push(hostname);
    setImmediate(() => {
      if (!Array.isArray(answer)) {
        const error: NodeJS.ErrnoException = new Error(`getaddrinfo ${answer.code} ${hostname}`);
        error.code = answer.code;
        return callback(error, '');
      }
      callback(
        null,
        answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      );
    });
  };
  return { lookup, asked };
}

function refusedMessage(url: unknown, policy: CallbackPolicy = NONE): string {
  const checked = checkCallbackUrl(url, policy);
  if (checked.ok) return expect.unreachable(`${String(url)} should have been refused`);
  return checked.message;
}

describe('checkCallbackUrl', () => {
  it('accepts a public https URL, written as the URL parser writes it, untrusted', () => {
    expect(checkCallbackUrl('HTTPS://Hooks.Example.com:443/mcp/events?x=1', NONE)).toEqual({
      ok: true,
      url: 'https://hooks.example.com/mcp/events?x=1',
      trusted: false,
      listed: false,
    });
  });

  it('refuses http and every other scheme unless the origin is trusted', () => {
    expect(refusedMessage('http://hooks.example.com/mcp')).toMatch(/uses http: webhooks are sent over https only/);
    expect(refusedMessage('ftp://hooks.example.com/mcp')).toMatch(/uses ftp/);
    expect(refusedMessage('javascript:alert(1)')).toMatch(/uses javascript/);
  });

  it.each([
    [undefined, /non-empty string/],
    [42, /non-empty string/],
    ['', /non-empty string/],
    ['hooks.example.com/mcp', /not an absolute URL/],
    ['https://user:pw@hooks.example.com/mcp', /user info/],
    ['https://token@hooks.example.com/mcp', /user info/],
    ['https://hooks.example.com/mcp#part', /fragment/],
    ['https://hooks.example.com/mcp#', /fragment/],
  ])('refuses %j', (url, message) => {
    expect(refusedMessage(url)).toMatch(message);
  });

  it(`refuses a URL longer than ${MAX_CALLBACK_URL_LENGTH} characters, and accepts one exactly that long`, () => {
    const base = 'https://hooks.example.com/';
    const exact = base + 'a'.repeat(MAX_CALLBACK_URL_LENGTH - base.length);
    expect(checkCallbackUrl(exact, NONE).ok).toBe(true);
    expect(refusedMessage(`${exact}a`)).toMatch(/2049 characters long; at most 2048/);
  });

  it.each([
    ['https://127.0.0.1/hook', 'a loopback address'],
    ['https://127.8.9.10:8443/hook', 'a loopback address'],
    ['https://10.1.2.3/hook', 'a private address'],
    ['https://172.16.5.4/hook', 'a private address'],
    ['https://192.168.0.10/hook', 'a private address'],
    ['https://169.254.169.254/latest/meta-data/', 'a link-local address'],
    ['https://100.64.0.1/hook', 'a carrier-grade NAT address'],
    ['https://0.0.0.0/hook', 'an unspecified address'],
    ['https://[::1]/hook', 'a loopback address'],
    ['https://[fd00:ec2::254]/hook', 'a unique-local address'],
    ['https://[fe80::1]/hook', 'a link-local address'],
    ['https://[::ffff:10.0.0.1]/hook', 'a private address'],
    ['https://[64:ff9b::a00:1]/hook', 'a NAT64 address'],
    ['https://0x7f.1/hook', 'a loopback address'],
  ])('refuses the IP literal in %s as %s', (url, words) => {
    const message = refusedMessage(url);
    expect(message).toContain(words);
    expect(message).toContain('public addresses only');
  });

  it.each([
    ['http://10.1.2.3/hook', 'a private address'],
    ['http://169.254.169.254/latest/meta-data/', 'a link-local address'],
    ['http://[::1]:8080/hook', 'a loopback address'],
    ['ftp://192.168.0.10/x', 'a private address'],
  ])('refuses the IP literal in %s as %s, not for its scheme', (url, words) => {
    const message = refusedMessage(url);
    expect(message).toContain(words);
    expect(message).not.toMatch(/uses (http|ftp)/);
  });

  it('accepts a public IP literal', () => {
    expect(checkCallbackUrl('https://93.184.215.14/hook', NONE)).toMatchObject({ ok: true, trusted: false });
    expect(checkCallbackUrl('https://[2606:4700::1111]/hook', NONE)).toMatchObject({ ok: true, trusted: false });
  });

  describe('trusted origins', () => {
    const policy: CallbackPolicy = {
      trustedOrigins: ['http://10.0.0.5:8080', 'https://hooks.internal', 'not a url'],
    };

    it('trusts a URL whose scheme, host and port match an origin exactly: http and private allowed', () => {
      expect(checkCallbackUrl('http://10.0.0.5:8080/mcp', policy)).toEqual({
        ok: true,
        url: 'http://10.0.0.5:8080/mcp',
        trusted: true,
        listed: true,
      });
      expect(checkCallbackUrl('https://hooks.internal:443/x', policy)).toMatchObject({ ok: true, trusted: true });
      expect(checkCallbackUrl('HTTPS://HOOKS.INTERNAL/x', policy)).toMatchObject({ ok: true, trusted: true });
    });

    it('does not trust another port, scheme or host of a trusted origin', () => {
      expect(refusedMessage('http://10.0.0.5:8081/mcp', policy)).toContain('a private address');
      expect(refusedMessage('https://10.0.0.5:8081/mcp', policy)).toContain('a private address');
      expect(refusedMessage('https://10.0.0.5:8080/mcp', policy)).toContain('a private address');
      expect(refusedMessage('http://hooks.internal/x', policy)).toMatch(/uses http/);
      expect(checkCallbackUrl('https://sub.hooks.internal/x', policy)).toMatchObject({ ok: true, trusted: false });
      expect(checkCallbackUrl('https://hooks.internal.evil.example/x', policy)).toMatchObject({ trusted: false });
    });

    it('still refuses user info and fragments on a trusted origin', () => {
      expect(refusedMessage('http://u:p@10.0.0.5:8080/mcp', policy)).toMatch(/user info/);
      expect(refusedMessage('http://10.0.0.5:8080/mcp#x', policy)).toMatch(/fragment/);
    });

    it('never trusts an entry that is not a URL', () => {
      expect(checkCallbackUrl('https://not a url/', policy).ok).toBe(false);
    });
  });

  describe('allowLoopbackHttp (local stack)', () => {
    const local: CallbackPolicy = { trustedOrigins: [], allowLoopbackHttp: true };

    it.each(['http://127.0.0.1:4318/hook', 'https://127.0.0.1/hook', 'http://localhost:9000/x', 'http://[::1]:80/x'])(
      'trusts %s',
      (url) => {
        // Allowed, but not listed: the endpoint must still answer the verification handshake.
        expect(checkCallbackUrl(url, local)).toMatchObject({ ok: true, trusted: true, listed: false });
      },
    );

    it('trusts no other loopback or private address, and nothing without the flag', () => {
      expect(refusedMessage('http://127.0.0.2:4318/hook', local)).toContain('a loopback address');
      expect(refusedMessage('https://127.0.0.2/hook', local)).toContain('a loopback address');
      expect(refusedMessage('https://10.0.0.1/hook', local)).toContain('a private address');
      expect(refusedMessage('http://127.0.0.1:4318/hook')).toContain('a loopback address');
      expect(refusedMessage('https://127.0.0.1/hook')).toContain('a loopback address');
    });
  });
});

describe('resolveCallbackHost', () => {
  it('accepts a name whose every address is public', async () => {
    const dns = fakeDns(['93.184.215.14', '2606:4700::1111']);
    expect(await resolveCallbackHost('https://hooks.example.com/x', { ...NONE, lookup: dns.lookup })).toEqual({
      ok: true,
      resolved: true,
    });
    expect(dns.asked).toEqual(['hooks.example.com']);
  });

  it.each([
    ['10.0.0.7', 'a private address'],
    ['127.0.0.1', 'a loopback address'],
    ['169.254.169.254', 'a link-local address'],
    ['fd00:ec2::254', 'a unique-local address'],
    ['::ffff:192.168.1.1', 'a private address'],
  ])('refuses a name when any answer is %s (%s), naming the address', async (address, words) => {
    const dns = fakeDns(['93.184.215.14', address]);
    const result = await resolveCallbackHost('https://hooks.example.com/x', { ...NONE, lookup: dns.lookup });
    expect(result.ok).toBe(false);
    const message = (result as { message: string }).message;
    expect(message).toContain(`hooks.example.com resolves to ${address}`);
    expect(message).toContain(words);
  });

  it.each(['ENOTFOUND', 'EAI_AGAIN'])(
    'reports a name that does not resolve (%s) as not resolved, not refused',
    async (code) => {
      const dns = fakeDns({ code });
      expect(await resolveCallbackHost('https://nowhere.example/x', { ...NONE, lookup: dns.lookup })).toEqual({
        ok: true,
        resolved: false,
      });
    },
  );

  it('reports an empty answer as not resolved', async () => {
    const dns = fakeDns([]);
    expect(await resolveCallbackHost('https://empty.example/x', { ...NONE, lookup: dns.lookup })).toEqual({
      ok: true,
      resolved: false,
    });
  });

  it('looks up neither a trusted origin nor an IP literal', async () => {
    const dns = fakeDns(['10.0.0.1']);
    const policy: CallbackPolicy = { trustedOrigins: ['https://hooks.internal'], lookup: dns.lookup };
    expect(await resolveCallbackHost('https://hooks.internal/x', policy)).toEqual({ ok: true, resolved: false });
    expect(await resolveCallbackHost('https://93.184.215.14/x', policy)).toEqual({ ok: true, resolved: true });
    expect(dns.asked).toEqual([]);
  });

  it('refuses what checkCallbackUrl refuses, without a lookup', async () => {
    const dns = fakeDns(['93.184.215.14']);
    const result = await resolveCallbackHost('http://hooks.example.com/x', { ...NONE, lookup: dns.lookup });
    expect(result).toMatchObject({ ok: false });
    expect(dns.asked).toEqual([]);
  });
});
