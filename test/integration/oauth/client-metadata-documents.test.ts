// Client metadata documents fetched from a real HTTPS server on 127.0.0.1 (a self-signed certificate, trusted through
// `ca`, and `allowLoopback`, which only tests and the local stack set): what resolves, what is cached, and every way a
// document or its server is refused.

import { createServer } from 'node:https';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ClientMetadataDocumentError,
  createClientMetadataDocuments,
  isClientMetadataDocumentUrl,
} from '../../../lambda/oauth/client-metadata-documents.js';
import type { ClientMetadataDocuments } from '../../../lambda/oauth/client-metadata-documents.js';
import { OutboundFetchError } from '../../../lambda/outbound/safe-fetch.js';
import type { LookupFunction } from '../../../lambda/outbound/safe-fetch.js';

const REDIRECT_URI = 'http://127.0.0.1/callback';

describe('isClientMetadataDocumentUrl', () => {
  it.each(['https://client.example/oauth/metadata.json', 'https://client.example/m?v=1', 'https://127.0.0.1:8443/m'])(
    'accepts %s',
    (url) => {
      expect(isClientMetadataDocumentUrl(url)).toBe(true);
    },
  );

  it.each([
    'http://client.example/metadata.json',
    'https://client.example',
    'https://client.example/',
    'https://client.example/metadata.json#x',
    'https://client.example/metadata.json#',
    'https://user:pass@client.example/metadata.json',
    'https://client.example/a/../metadata.json',
    'https://client.example/./metadata.json',
    'https://client.example/a/%2e%2e/metadata.json',
    'client-123',
    '',
  ])('refuses %s', (url) => {
    expect(isClientMetadataDocumentUrl(url)).toBe(false);
  });

  it.each([
    'https://client.example/a/.\t./metadata.json',
    'https://client.example/a/.\n./metadata.json',
    'https://client.example/a\\..\\metadata.json',
    'https://Client.example/metadata.json',
    'https://client.example:443/metadata.json',
  ])('refuses %j, which the URL parser would spell otherwise', (url) => {
    expect(isClientMetadataDocumentUrl(url)).toBe(false);
  });
});

describe('client metadata documents over HTTPS', () => {
  let server: Server;
  let base: string;
  let ca: string;
  let connections = 0;
  const requests = new Map<string, number>();

  /** The document a well-behaved client serves at `url`. */
  const documentAt = (url: string, extra: Record<string, unknown> = {}) => ({
    client_id: url,
    client_name: 'Test Client',
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...extra,
  });

  function sendJson(res: ServerResponse, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  beforeAll(async () => {
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keySize: 2048,
      extensions: [
        { name: 'basicConstraints', cA: true },
        {
          name: 'subjectAltName',
          altNames: [
            { type: 7, ip: '127.0.0.1' },
            { type: 2, value: 'client.test' },
          ],
        },
      ],
    });
    ca = pems.cert;
    server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
      // The URL as the client asked for it, so a document fetched through a host name names that host.
      const url = `https://${req.headers.host}${req.url}`;
      const path = new URL(url).pathname;
      requests.set(path, (requests.get(path) ?? 0) + 1);
      switch (path) {
        case '/good.json':
        case '/good-shared.json':
        case '/good-no-loopback.json':
        case '/good-by-name.json':
          return sendJson(res, documentAt(url));
        case '/no-store.json':
          return sendJson(res, documentAt(url), { 'cache-control': 'no-store' });
        case '/big.json':
          return sendJson(res, documentAt(url, { padding: 'x'.repeat(20_000) }));
        case '/big-chunked.json':
          // No Content-Length: the cap has to count the bytes as they arrive.
          res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
          for (let i = 0; i < 20; i += 1) res.write(' '.repeat(1000));
          return res.end(JSON.stringify(documentAt(url)));
        case '/slow.json':
          // Headers and a first byte, then nothing: only the whole-exchange cap ends this.
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.write('{');
        case '/redirect.json':
          res.writeHead(302, { location: `${base}/good.json` });
          return res.end();
        case '/not-json.json':
          res.writeHead(200, { 'content-type': 'text/html' });
          return res.end('<html>hello</html>');
        case '/mismatch.json':
          return sendJson(res, documentAt(url, { client_id: 'someone-else' }));
        case '/no-redirect-uris.json':
          return sendJson(res, { ...documentAt(url), redirect_uris: undefined });
        case '/secret.json':
          return sendJson(res, documentAt(url, { client_secret: 's3cret' }));
        case '/confidential.json':
          return sendJson(res, documentAt(url, { token_endpoint_auth_method: 'client_secret_basic' }));
        case '/implicit.json':
          return sendJson(res, documentAt(url, { grant_types: ['implicit'] }));
        default:
          res.writeHead(404);
          return res.end();
      }
    });
    server.on('connection', () => {
      connections += 1;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** Generous caps: these tests are about what is refused, not how fast. */
  const documents = (overrides: { timeoutMs?: number; lookup?: LookupFunction } = {}): ClientMetadataDocuments =>
    createClientMetadataDocuments({
      fetch: { allowLoopback: true, ca, ...(overrides.lookup === undefined ? {} : { lookup: overrides.lookup }) },
      timeoutMs: overrides.timeoutMs ?? 10_000,
    });

  async function failure(promise: Promise<unknown>): Promise<ClientMetadataDocumentError> {
    const error = await promise.then(
      () => expect.unreachable('the document should have been refused'),
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ClientMetadataDocumentError);
    return error as ClientMetadataDocumentError;
  }

  it('resolves a good document', async () => {
    const url = `${base}/good.json`;
    const document = await documents().resolve(url);
    expect(document).toMatchObject({ clientId: url, redirectUris: [REDIRECT_URI], clientName: 'Test Client' });
    expect(document.metadata).toMatchObject({ client_id: url, token_endpoint_auth_method: 'none' });
  });

  it('resolves a good document through a host name whose lookup answers loopback', async () => {
    const asked: string[] = [];
    const lookup: LookupFunction = (hostname, _options, callback) => {
      asked.push(hostname);
      callback(null, [{ address: '127.0.0.1', family: 4 }]);
    };
    const url = `${base.replace('127.0.0.1', 'client.test')}/good-by-name.json`;
    const document = await documents({ lookup }).resolve(url);
    expect(document.clientId).toBe(url);
    expect(asked).toEqual(['client.test']);
  });

  it('caches a document: two resolves, one request', async () => {
    const resolver = documents();
    const url = `${base}/good-shared.json`;
    await resolver.resolve(url);
    await resolver.resolve(url);
    expect(requests.get('/good-shared.json')).toBe(1);
  });

  it('shares one fetch between concurrent resolves, and does not keep a no-store document', async () => {
    const resolver = documents();
    const url = `${base}/no-store.json`;
    await Promise.all([resolver.resolve(url), resolver.resolve(url)]);
    expect(requests.get('/no-store.json')).toBe(1);
    await resolver.resolve(url);
    expect(requests.get('/no-store.json')).toBe(2);
  });

  it('refuses a document larger than the cap declared by Content-Length', async () => {
    const error = await failure(documents().resolve(`${base}/big.json`));
    expect(error.cause).toBeInstanceOf(OutboundFetchError);
    expect((error.cause as OutboundFetchError).reason).toBe('too-large');
    expect(error.message).toContain('more than 5120 bytes');
  });

  it('refuses a chunked document once its bytes pass the cap', async () => {
    const error = await failure(documents().resolve(`${base}/big-chunked.json`));
    expect((error.cause as OutboundFetchError).reason).toBe('too-large');
  });

  it('gives up on a server that sends headers and never finishes', async () => {
    const error = await failure(documents({ timeoutMs: 1000 }).resolve(`${base}/slow.json`));
    expect((error.cause as OutboundFetchError).reason).toBe('timeout');
    // The person is not told how the network behaved (that would make the server a port scanner); the cause says.
    expect(error.message).toMatch(/could not be fetched$/);
  });

  it('refuses a redirect without following it', async () => {
    const before = requests.get('/good.json') ?? 0;
    const error = await failure(documents().resolve(`${base}/redirect.json`));
    expect((error.cause as OutboundFetchError).reason).toBe('redirect');
    expect(error.message).toContain(`redirects to ${base}/good.json (302)`);
    expect(requests.get('/good.json') ?? 0).toBe(before);
  });

  it('refuses a document that is not JSON', async () => {
    const error = await failure(documents().resolve(`${base}/not-json.json`));
    expect(error.message).toBe(`The client metadata document at ${base}/not-json.json is not JSON`);
  });

  it('refuses a document whose client_id is not its own URL', async () => {
    const error = await failure(documents().resolve(`${base}/mismatch.json`));
    expect(error.message).toBe(
      `The client metadata document at ${base}/mismatch.json lists client_id "someone-else", not its own URL`,
    );
  });

  it('refuses a document without redirect_uris', async () => {
    const error = await failure(documents().resolve(`${base}/no-redirect-uris.json`));
    expect(error.message).toContain('lists no redirect_uris');
  });

  it('refuses a document that holds a client secret', async () => {
    const error = await failure(documents().resolve(`${base}/secret.json`));
    expect(error.message).toContain('a public document cannot hold a secret');
  });

  it('refuses a confidential client, saying only public clients are supported', async () => {
    const error = await failure(documents().resolve(`${base}/confidential.json`));
    expect(error.message).toContain("only public clients ('none') are supported");
  });

  it('refuses grant_types without authorization_code', async () => {
    const error = await failure(documents().resolve(`${base}/implicit.json`));
    expect(error.message).toContain("without 'authorization_code'");
  });

  it('does not cache failures', async () => {
    const resolver = documents();
    await failure(resolver.resolve(`${base}/mismatch.json`));
    const before = requests.get('/mismatch.json') ?? 0;
    await failure(resolver.resolve(`${base}/mismatch.json`));
    expect(requests.get('/mismatch.json')).toBe(before + 1);
  });

  it('refuses a client_id that is not a document URL without fetching', async () => {
    const error = await failure(documents().resolve(`${base}/`));
    expect(error.message).toContain('is not a client metadata document URL');
  });

  it('without allowLoopback refuses a URL on a port other than 443, and the server sees no request', async () => {
    const before = connections;
    const resolver = createClientMetadataDocuments({ fetch: { ca }, timeoutMs: 10_000 });
    const error = await failure(resolver.resolve(`${base}/good-no-loopback.json`));
    expect(error.message).toContain('must be on port 443');
    expect(requests.get('/good-no-loopback.json')).toBeUndefined();
    expect(connections).toBe(before);
  });
});
