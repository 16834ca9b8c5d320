// Test fixtures for the endpoint as its own authorization server: the MCP server and the OAuth proxy on one loopback
// origin, with the local OpenID provider standing in for Cognito, over the shared DynamoDB Local.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { calculatePKCECodeChallenge, randomPKCECodeVerifier } from 'openid-client';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { createBackend, type Backend } from '../../lambda/handlers/backend.js';
import type { ClientMetadataDocumentsOptions } from '../../lambda/oauth/client-metadata-documents.js';
import type { RegistrationLimits } from '../../lambda/oauth/oauth-store.js';
import type { OAuthProxyMetrics, SourceLimits } from '../../lambda/oauth/source-limits.js';
import { DEFAULT_SETTINGS } from '../../lambda/service/settings.js';
import { LOOPBACK_HOSTS, startDevServer } from '../../local/dev-server.js';
import { freePort } from '../../local/free-port.js';
import { createOAuthTable } from '../../local/dynamodb-local-tables.js';
import { startLocalOAuth, type LocalOAuth } from '../../local/oauth-stack.js';
import {
  createTestTable,
  exampleTools,
  localAwsClients,
  silentLogger,
  startTestStatusEvents,
} from './local-backend.js';

export interface OAuthTestServer {
  /** The MCP URL. */
  readonly url: string;
  readonly issuer: string;
  readonly oauth: LocalOAuth;
  readonly backend: Backend;
  readonly oauthTableName: string;
  /** The partition keys in the proxy's table, by kind (`client`, `pending`, `code`, `refresh`, `registrations`). */
  storedKeys(): Promise<string[]>;
  close(): Promise<void>;
}

export interface OAuthTestServerOptions {
  readonly clientIdMetadataDocuments?: boolean | ClientMetadataDocumentsOptions;
  readonly registration?: RegistrationLimits | false;
  readonly sourceLimits?: SourceLimits;
  readonly metrics?: OAuthProxyMetrics;
  readonly allowedRedirectUris?: readonly string[];
  /** The proxy's clock. @default Date.now */
  readonly now?: () => number;
  /** The access-token signing key. @default random */
  readonly signingKey?: Uint8Array;
  /** The AWS clients, for a test that injects faults into them. @default fresh ones */
  readonly clients?: ReturnType<typeof localAwsClients>;
}

export async function startOAuthTestServer({
  clients = localAwsClients(),
  ...options
}: OAuthTestServerOptions = {}): Promise<OAuthTestServer> {
  const tableName = await createTestTable();
  const oauthTableName = `oauth-${randomUUID()}`;
  await createOAuthTable(clients.dynamoDb, oauthTableName);
  const backend = createBackend(
    {
      tableName,
      tools: exampleTools(),
      settings: { ...DEFAULT_SETTINGS, pollIntervalMs: 200 },
      allowedHosts: LOOPBACK_HOSTS,
    },
    clients,
    silentLogger,
  );
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const oauth = await startLocalOAuth({
    baseUrl,
    resource: `${baseUrl}/mcp`,
    dynamoDb: clients.dynamoDb,
    tableName: oauthTableName,
    ...options,
  });
  const server = await startDevServer(backend.app, {
    port,
    oauth: { proxy: oauth.proxy, bearerOwner: oauth.bearerOwner },
  });
  const statusEvents = await startTestStatusEvents(tableName);
  return {
    url: server.url,
    issuer: oauth.issuer,
    oauth,
    backend,
    oauthTableName,
    async storedKeys() {
      const { Items = [] } = await clients.dynamoDb.send(
        new ScanCommand({ TableName: oauthTableName, ConsistentRead: true }),
      );
      return Items.map((item) => item['pk']?.S ?? '');
    },
    async close() {
      await server.close();
      await statusEvents.stop();
      await oauth.close();
    },
  };
}

/** A PKCE pair as a client makes it (RFC 7636, S256). */
export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = randomPKCECodeVerifier();
  return { verifier, challenge: await calculatePKCECodeChallenge(verifier) };
}

/** A self-signed certificate for 127.0.0.1, for test servers that must speak https. */
export async function loopbackCertificate(): Promise<{ key: string; cert: string }> {
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keySize: 2048,
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

export interface ClientMetadataDocumentServer {
  /** The document's URL, which is also the client's ID. */
  readonly url: string;
  /** The self-signed certificate the server presents, for the proxy to trust. */
  readonly ca: string;
  close(): Promise<void>;
}

/** Serves one client metadata document over HTTPS on loopback, as a client's web site would on the internet. */
export async function serveClientMetadataDocument(
  metadata: Record<string, unknown>,
  onRequest: () => void = () => {},
  headers: Record<string, string> = {},
): Promise<ClientMetadataDocumentServer> {
  const pems = await loopbackCertificate();
  let url = '';
  const server = createServer({ key: pems.key, cert: pems.cert }, (_request, response) => {
    onRequest();
    response.writeHead(200, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify({ client_id: url, ...metadata }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/oauth/client-metadata.json`;
  return {
    url,
    ca: pems.cert,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
