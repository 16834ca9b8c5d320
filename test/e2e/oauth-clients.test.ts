// End to end: real clients reach the endpoint by OAuth, as they would a deployed one. The official SDK client's OAuth
// provider finds the authorization server from the 401, identifies itself once by a Client ID Metadata Document and
// once by Dynamic Client Registration, a person signs in at the local stand-in for Cognito in headless Chromium, and
// the client then calls a tool as a task and reads its result. MCP Inspector's CLI runs its own OAuth flow.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../local/free-port.js';
import { signInWithBrowser } from '../support/browser-login.js';
import {
  serveClientMetadataDocument,
  startOAuthTestServer,
  type ClientMetadataDocumentServer,
  type OAuthTestServer,
} from '../support/oauth-backend.js';

const INSPECTOR = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js', import.meta.url),
);
/** Where the client would listen for the redirect; the browser's navigation there is caught instead. */
const REDIRECT_URI = 'http://127.0.0.1:33418/callback';

/** An OAuth client provider as an application writes one, keeping everything in memory. */
class MemoryOAuthProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;

  constructor(readonly clientMetadataUrl?: string) {}

  get redirectUrl(): string {
    return REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'oauth e2e test',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

let server: OAuthTestServer;
let document: ClientMetadataDocumentServer;

beforeAll(async () => {
  document = await serveClientMetadataDocument({ client_name: 'oauth e2e test', redirect_uris: [REDIRECT_URI] });
  server = await startOAuthTestServer({
    // The document is on loopback with a self-signed certificate: the local stack may fetch it, the Lambda never.
    clientIdMetadataDocuments: { fetch: { allowLoopback: true, ca: document.ca } },
  });
});
afterAll(async () => {
  await server?.close();
  await document?.close();
});

/** The SDK's own flow: a 401, discovery, registration or CIMD, the browser, the code exchange. */
async function signedInClient(provider: MemoryOAuthProvider): Promise<Client> {
  const first = new Client({ name: 'oauth-e2e', version: '1.0.0' });
  await expect(
    first.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider })),
  ).rejects.toThrow(UnauthorizedError);
  expect(provider.authorizationUrl?.toString()).toMatch(new RegExp(`^${server.issuer}/authorize\\?`));
  const back = await signInWithBrowser(provider.authorizationUrl!.toString(), server.oauth.upstream.user, {
    redirectUriPrefix: REDIRECT_URI,
  });
  const transport = new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider });
  await transport.finishAuth(back.searchParams.get('code')!);
  const client = new Client({ name: 'oauth-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider }));
  return client;
}

async function callAsTask(client: Client): Promise<unknown> {
  const messages: { type: string; result?: unknown }[] = [];
  for await (const message of client.experimental.tasks.callToolStream(
    { name: 'text_stats', arguments: { text: 'The cat sat. The dog ran.' } },
    CallToolResultSchema,
    { task: { ttl: 60_000 } },
  ))
    messages.push(message);
  expect(messages[0]?.type).toBe('taskCreated');
  return messages.at(-1);
}

describe('the official SDK client signs in by OAuth and calls a tool as a task', () => {
  it('by a Client ID Metadata Document', async () => {
    const provider = new MemoryOAuthProvider(document.url);
    const client = await signedInClient(provider);
    try {
      expect(provider.information?.client_id).toBe(document.url);
      expect(await callAsTask(client)).toMatchObject({
        type: 'result',
        result: { structuredContent: expect.objectContaining({ words: 6 }) },
      });
    } finally {
      await client.close();
    }
  });

  it('by Dynamic Client Registration', async () => {
    const provider = new MemoryOAuthProvider();
    const client = await signedInClient(provider);
    try {
      expect(provider.information?.client_id).not.toMatch(/^https:/);
      expect(await callAsTask(client)).toMatchObject({ type: 'result' });
    } finally {
      await client.close();
    }
  });
});

describe('MCP Inspector CLI', () => {
  it('registers, has its user sign in, gets a token and lists the tools: its own OAuth flow, end to end', async () => {
    const home = await mkdtemp(join(tmpdir(), 'inspector-home-'));
    const callbackUrl = `http://127.0.0.1:${await freePort()}/oauth/callback`;
    // Without a terminal the CLI starts its OAuth flow only when allowed to "open" the page; it then prints the URL.
    const inspector = spawn(
      process.execPath,
      [INSPECTOR, '--cli', server.url, '--transport', 'http', '--callback-url', callbackUrl, '--method', 'tools/list'],
      {
        env: {
          ...process.env,
          HOME: home,
          MCP_CATALOG_PATH: join(home, 'mcp.json'),
          MCP_INSPECTOR_SECRET_STORE: 'memory',
          MCP_AUTO_OPEN_ENABLED: 'true',
          BROWSER: 'true',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    inspector.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    inspector.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => inspector.on('exit', resolve));
    try {
      // Read until the whole URL has arrived: its last parameter, the resource, is the MCP URL.
      const printedUrl = (): string | undefined => {
        const found = /(http:\/\/\S+\/authorize\?\S+)/.exec(stdout + stderr)?.[1];
        return found && new URL(found).searchParams.get('resource') === server.url ? found : undefined;
      };
      const authorizationUrl = await vi.waitUntil(printedUrl, { timeout: 60_000, interval: 100 });
      await signInWithBrowser(authorizationUrl, server.oauth.upstream.user, {
        redirectUriPrefix: callbackUrl,
        clientListens: true,
      });
      // The browser's last hop went to the CLI's own loopback listener, which takes the code from there. Bounded, so a
      // CLI that hangs fails with what it printed rather than the bare test timeout.
      const exitCode = await Promise.race([
        exited,
        new Promise<'hung'>((done) => setTimeout(() => done('hung'), 45_000)),
      ]);
      expect(exitCode, `Inspector CLI output:\n${stdout}\n${stderr}`.slice(-4000)).toBe(0);
      const listed = JSON.parse(stdout) as { tools: { name: string }[] };
      expect(listed.tools.map((tool) => tool.name)).toContain('text_stats');
    } finally {
      inspector.kill();
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe('the owner of a task is the person who signed in', () => {
  it('tokens from two sign-ins of one person see the same tasks', async () => {
    const first = await signedInClient(new MemoryOAuthProvider());
    const second = await signedInClient(new MemoryOAuthProvider(document.url));
    try {
      const created = await first.experimental.tasks.callToolStream(
        { name: 'text_stats', arguments: { text: 'one two' } },
        CallToolResultSchema,
        { task: { ttl: 60_000 } },
      );
      let taskId = '';
      for await (const message of created) if (message.type === 'taskCreated') taskId = message.task.taskId;
      expect((await second.experimental.tasks.getTask(taskId)).taskId).toBe(taskId);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
