// safeFetch's guard, without the network: which addresses it refuses, and that a refused name or literal never gets as
// far as a connection (a local TCP server counts the connections it sees). Then a trusted origin, served over http on
// 127.0.0.1: what the guard lets through for it, and what still holds.

import { createServer as createHttpServer } from 'node:http';
import type { Server as HttpServer } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addressRangeWords,
  forbiddenAddressReason,
  OutboundFetchError,
  safeFetch,
} from '../../../lambda/outbound/safe-fetch.js';
import type { LookupFunction } from '../../../lambda/outbound/safe-fetch.js';

const CAPS = { timeoutMs: 10_000, maxBytes: 10_000 };

describe('forbiddenAddressReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['192.0.2.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::a00:1', 'ipv4Compatible'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['2002:a00:1::', '6to4'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['2001:db8::1', 'reserved'],
    ['not-an-address', 'invalid'],
  ])('refuses %s as %s', (address, range) => {
    expect(forbiddenAddressReason(address)).toBe(range);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700::1111', '::ffff:93.184.215.14'])('allows public %s', (address) => {
    expect(forbiddenAddressReason(address)).toBeNull();
  });

  it('names each range in words, and an unknown one plainly', () => {
    expect(addressRangeWords('linkLocal')).toBe('a link-local address (where cloud metadata services live)');
    expect(addressRangeWords('somethingNew')).toBe('a somethingNew address');
  });

  it('allowLoopback admits loopback addresses and nothing else private', () => {
    expect(forbiddenAddressReason('127.0.0.1', true)).toBeNull();
    expect(forbiddenAddressReason('127.8.9.10', true)).toBeNull();
    expect(forbiddenAddressReason('::1', true)).toBeNull();
    expect(forbiddenAddressReason('::ffff:127.0.0.1', true)).toBeNull();
    expect(forbiddenAddressReason('10.0.0.1', true)).toBe('private');
    expect(forbiddenAddressReason('169.254.169.254', true)).toBe('linkLocal');
    expect(forbiddenAddressReason('fd00:ec2::254', true)).toBe('uniqueLocal');
    expect(forbiddenAddressReason('0.0.0.0', true)).toBe('unspecified');
  });
});

describe('safeFetch', () => {
  let server: Server;
  let port: number;
  let connections = 0;

  beforeAll(async () => {
    server = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** A resolver that answers `addresses` for every name, recording the names it was asked. */
  function fakeDns(addresses: string[]): { lookup: LookupFunction; asked: string[] } {
    const asked: string[] = [];
    const lookup: LookupFunction = (hostname, _options, callback) => {
      asked.push(hostname);
      const answer = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
      setImmediate(() => callback(null, answer));
    };
    return { lookup, asked };
  }

  async function refusal(promise: Promise<unknown>): Promise<OutboundFetchError> {
    const error = await promise.then(
      () => expect.unreachable('the request should have been refused'),
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(OutboundFetchError);
    return error as OutboundFetchError;
  }

  it('refuses a name that resolves to a private address, at connect time, without connecting', async () => {
    const dns = fakeDns(['10.0.0.1']);
    const url = `https://internal.example:${port}/doc`;
    const error = await refusal(safeFetch(url, {}, { ...CAPS, lookup: dns.lookup }));
    expect(error.reason).toBe('forbidden-address');
    expect(error.message).toBe(`${url} resolves to 10.0.0.1, a private address: refused`);
    expect(dns.asked).toEqual(['internal.example']);
    expect(connections).toBe(0);
  });

  it('refuses a name when any one of its addresses is forbidden, even with a public one first', async () => {
    const dns = fakeDns(['93.184.215.14', '127.0.0.1']);
    const error = await refusal(safeFetch(`https://mixed.example:${port}/`, {}, { ...CAPS, lookup: dns.lookup }));
    expect(error.reason).toBe('forbidden-address');
    expect(error.message).toContain('127.0.0.1, a loopback address');
    expect(connections).toBe(0);
  });

  it('with allowLoopback still refuses a name that resolves to a private address', async () => {
    const dns = fakeDns(['192.168.1.1']);
    const options = { ...CAPS, lookup: dns.lookup, allowLoopback: true };
    const error = await refusal(safeFetch(`https://lan.example:${port}/`, {}, options));
    expect(error.reason).toBe('forbidden-address');
    expect(connections).toBe(0);
  });

  it.each([
    ['https://10.0.0.1/doc', '10.0.0.1'],
    ['https://169.254.169.254/latest/meta-data/', '169.254.169.254'],
    ['https://[::1]/doc', '::1'],
    ['https://[fd00:ec2::254]/latest/meta-data/', 'fd00:ec2::254'],
    ['https://[::ffff:7f00:1]/doc', '::ffff:7f00:1'],
  ])('refuses the IP literal in %s before connecting', async (url, address) => {
    const dns = fakeDns(['93.184.215.14']);
    const error = await refusal(safeFetch(url, {}, { ...CAPS, lookup: dns.lookup }));
    expect(error.reason).toBe('forbidden-address');
    expect(error.message).toContain(`names ${address}`);
    expect(dns.asked).toEqual([]);
  });

  it('refuses the loopback literal the local server listens on, without connecting', async () => {
    const error = await refusal(safeFetch(`https://127.0.0.1:${port}/`, {}, CAPS));
    expect(error.reason).toBe('forbidden-address');
    expect(error.message).toContain('a loopback address');
    expect(connections).toBe(0);
  });

  it('refuses http URLs', async () => {
    const error = await refusal(safeFetch(`http://example.com/doc`, {}, CAPS));
    expect(error.reason).toBe('not-https');
  });

  it('refuses URLs with credentials', async () => {
    const error = await refusal(safeFetch(`https://user:secret@example.com/doc`, {}, CAPS));
    expect(error.reason).toBe('invalid-url');
  });

  it('reports a header Node refuses to send as an OutboundFetchError, not a raw error', async () => {
    const dns = fakeDns(['93.184.215.14']);
    const init = { headers: { 'x-bad': 'line\nbreak' } };
    const error = await refusal(safeFetch('https://example.com/', init, { ...CAPS, lookup: dns.lookup }));
    expect(error.reason).toBe('network');
    expect(dns.asked).toEqual([]);
  });

  it('refuses what is not a URL', async () => {
    const error = await refusal(safeFetch('example.com/doc', {}, CAPS));
    expect(error.reason).toBe('invalid-url');
  });
});

describe('safeFetch to a trusted origin', () => {
  let server: HttpServer;
  let port: number;
  const seen: { method: string; url: string; body: string }[] = [];

  beforeAll(async () => {
    server = createHttpServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', body });
        if (req.url === '/moved') {
          res.writeHead(302, { location: 'http://127.0.0.1/elsewhere' }).end();
        } else if (req.url === '/big') {
          res.writeHead(200).end('x'.repeat(200));
        } else {
          res.writeHead(201, { 'x-echo': 'yes' }).end(`got ${body}`);
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const TRUSTED = { timeoutMs: 10_000, maxBytes: 100, trusted: true };

  it('fetches over http from a loopback literal: no scheme rule, no address check', async () => {
    const init = { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' };
    const response = await safeFetch(`http://127.0.0.1:${port}/hook?x=1`, init, TRUSTED);
    expect(response.status).toBe(201);
    expect(response.headers['x-echo']).toBe('yes');
    expect(response.body).toBe('got hello');
    expect(seen.at(-1)).toEqual({ method: 'POST', url: '/hook?x=1', body: 'hello' });
  });

  it('connects to whatever a trusted name resolves to, private or not', async () => {
    const asked: string[] = [];
    const lookup: LookupFunction = (hostname, options, callback) => {
      asked.push(hostname);
      const answer = [{ address: '127.0.0.1', family: 4 }];
      setImmediate(() => (options.all ? callback(null, answer) : callback(null, '127.0.0.1', 4)));
    };
    const response = await safeFetch(`http://hooks.internal:${port}/`, {}, { ...TRUSTED, lookup });
    expect(response.status).toBe(201);
    expect(asked).toEqual(['hooks.internal']);
  });

  it('still refuses the same http URL when not trusted', async () => {
    const error = await safeFetch(`http://127.0.0.1:${port}/`, {}, { ...TRUSTED, trusted: false }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(OutboundFetchError);
    expect((error as OutboundFetchError).reason).toBe('not-https');
  });

  it('still refuses schemes other than http and https, and credentials', async () => {
    const schemes = await safeFetch('ftp://127.0.0.1/file', {}, TRUSTED).catch((caught: unknown) => caught);
    expect((schemes as OutboundFetchError).reason).toBe('not-https');
    const credentials = await safeFetch(`http://user:pw@127.0.0.1:${port}/`, {}, TRUSTED).catch(
      (caught: unknown) => caught,
    );
    expect((credentials as OutboundFetchError).reason).toBe('invalid-url');
  });

  it('still does not follow redirects and still caps the body', async () => {
    const redirect = await safeFetch(`http://127.0.0.1:${port}/moved`, {}, TRUSTED).catch((caught: unknown) => caught);
    expect((redirect as OutboundFetchError).reason).toBe('redirect');
    const big = await safeFetch(`http://127.0.0.1:${port}/big`, {}, TRUSTED).catch((caught: unknown) => caught);
    expect((big as OutboundFetchError).reason).toBe('too-large');
  });
});
