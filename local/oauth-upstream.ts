// The local stand-in for Amazon Cognito: a real, certified OpenID provider (panva's oidc-provider) on loopback, set up
// the way the OAuth proxy uses a user pool app client: one confidential client, the code flow with PKCE S256, scopes
// `openid email`, a refresh token with every code, and one test user who signs in on a small HTML form.
import { createHash, generateKeyPairSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
// @ts-expect-error -- oidc-provider ships no type declarations; the few members used here are typed below.
import { Provider as UntypedProvider } from 'oidc-provider';
// @ts-expect-error -- as above. Its own in-memory store, passed explicitly so the provider does not warn about it.
import { createMemoryAdapter as untypedMemoryAdapter } from 'oidc-provider/lib/adapters/memory_adapter.js';

export interface OAuthUpstreamOptions {
  /** The client's redirect URIs (the proxy's callback). */
  readonly redirectUris: readonly string[];
  /** @default 0 (any free port) */
  readonly port?: number;
  /**
   * Serve https with this key and certificate, as Cognito does: for tests of the deployed handler, which never allows
   * plain http upstream. @default plain http
   */
  readonly tls?: { readonly key: string; readonly cert: string };
}

export interface OAuthUpstream {
  /** `http://127.0.0.1:<port>` (https with `tls`); its discovery document is at `/.well-known/openid-configuration`. */
  readonly issuer: string;
  readonly clientId: string;
  /** Random per start, as the proxy reads it from Secrets Manager in AWS. */
  readonly clientSecret: string;
  /** The one person who can sign in; the password is random per start. */
  readonly user: {
    readonly username: string;
    readonly password: string;
    readonly subject: string;
    readonly email: string;
  };
  close(): Promise<void>;
}

/** What a user pool app client is called; the value itself means nothing. */
const CLIENT_ID = 'local-mcp-tasks-proxy';
const USERNAME = 'test-user@example.com';
// Fixed rather than random, so the test user is the same person across restarts, as a user pool's `sub` is.
const SUBJECT = '3f6c2a9e-8d41-4b7a-9c15-2e0d7b5a61f4';
const DAY = 24 * 60 * 60;

// The members of oidc-provider used here (it has no type declarations of its own).
interface InteractionDetails {
  readonly uid: string;
  readonly prompt: {
    readonly name: string;
    readonly details: {
      readonly missingOIDCScope?: string[];
      readonly missingOIDCClaims?: string[];
      readonly missingResourceScopes?: Record<string, string[]>;
    };
  };
  readonly params: Record<string, unknown>;
  readonly session?: { readonly accountId?: string };
  readonly grantId?: string;
}
interface Grant {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  addResourceScope(indicator: string, scope: string): void;
  save(): Promise<string>;
}
interface OidcProvider {
  callback(): RequestListener;
  interactionDetails(request: IncomingMessage, response: ServerResponse): Promise<InteractionDetails>;
  interactionFinished(
    request: IncomingMessage,
    response: ServerResponse,
    result: Record<string, unknown>,
    options: { mergeWithLastSubmission: boolean },
  ): Promise<void>;
  readonly Grant: {
    new (properties: { accountId: string; clientId: string }): Grant;
    find(id: string): Promise<Grant | undefined>;
  };
}
const Provider = UntypedProvider as new (issuer: string, configuration: Record<string, unknown>) => OidcProvider;
const createMemoryAdapter = untypedMemoryAdapter as () => unknown;

/** The part of Koa's context that `renderError` writes. */
interface ErrorPage {
  type: string;
  body: string;
}

export async function startOAuthUpstream(options: OAuthUpstreamOptions): Promise<OAuthUpstream> {
  const user = {
    username: USERNAME,
    password: randomBytes(12).toString('base64url'),
    subject: SUBJECT,
    email: USERNAME,
  };
  const clientSecret = randomBytes(32).toString('base64url');
  const server = options.tls ? createTlsServer({ key: options.tls.key, cert: options.tls.cert }) : createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const issuer = `${options.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const account = {
    accountId: user.subject,
    // oidc-provider keeps only the claims of the granted scopes (`email` for the scope `email`).
    claims: async () => ({ sub: user.subject, email: user.email, email_verified: true }),
  };
  const provider = new Provider(issuer, {
    adapter: createMemoryAdapter(),
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: clientSecret,
        redirect_uris: [...options.redirectUris],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        // oidc-provider accepts the secret in the body too (client_secret_post, openid-client's default), as Cognito.
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    responseTypes: ['code'],
    scopes: ['openid', 'email'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    // By default only an ID token answering `response_type=id_token` carries the scopes' claims; Cognito puts
    // `email` in every ID token, and the proxy reads the ID token from the code exchange.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    // Cognito issues a refresh token with every code; oidc-provider by default only when `offline_access` was asked
    // for, and then ties the tokens to the browser session, which Cognito's refresh tokens outlive.
    issueRefreshToken: async () => true,
    expiresWithSession: async () => false,
    findAccount: async (_context: unknown, subject: string) => (subject === user.subject ? account : undefined),
    // A fresh signing key per start (RS256, as Cognito); without one oidc-provider uses a published development key.
    jwks: { keys: [generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' })] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_context: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    // Cognito's lifetimes, spelled out: the defaults work but each logs a notice the first time it is used.
    ttl: {
      AccessToken: 60 * 60,
      AuthorizationCode: 5 * 60,
      IdToken: 60 * 60,
      RefreshToken: 30 * DAY,
      Interaction: 60 * 60,
      Session: DAY,
      Grant: 30 * DAY,
    },
    renderError: async (context: ErrorPage, out: Record<string, unknown>) => {
      context.type = 'html';
      context.body = page('Sign-in error', `<p role="alert">${escapeHtml(Object.values(out).join(': '))}</p>`);
    },
  });
  const callback = provider.callback();
  const interactions = createInteractionHandler(provider, user);
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (request.url?.startsWith('/interaction/')) {
      interactions(request, response).catch(() => {
        // Mostly an unknown or expired interaction (its cookie is gone): there is nothing to resume.
        const message = '<p role="alert">This sign-in cannot continue. Start again from the application.</p>';
        if (!response.headersSent) sendHtml(response, 400, page('Sign-in error', message));
      });
    } else {
      callback(request, response);
    }
  });
  return {
    issuer,
    clientId: CLIENT_ID,
    clientSecret,
    user,
    // Closing twice is fine: a test may stop the provider early to see what the proxy does without it.
    close: () =>
      new Promise<void>((resolve, reject) => {
        if (!server.listening) return resolve();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/**
 * `GET /interaction/:uid` shows the login form or, once signed in, grants consent on the person's behalf (the client
 * is first-party, as a user pool's app client); `POST /interaction/:uid/login` checks the credentials.
 */
function createInteractionHandler(
  provider: OidcProvider,
  user: { readonly username: string; readonly password: string; readonly subject: string },
) {
  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const [, , uid, action] = new URL(request.url ?? '/', 'http://upstream').pathname.split('/');
    const details = await provider.interactionDetails(request, response);
    if (details.uid !== uid) throw new Error('The interaction cookie names another interaction');
    if (request.method === 'POST' && action === 'login' && details.prompt.name === 'login') {
      const form = new URLSearchParams(await readBody(request));
      const username = form.get('username') ?? '';
      if (username === user.username && sameSecret(form.get('password') ?? '', user.password)) {
        await provider.interactionFinished(
          request,
          response,
          { login: { accountId: user.subject } },
          { mergeWithLastSubmission: false },
        );
      } else {
        // Cognito's wording; the form again, with no redirect, so the person can retry.
        sendHtml(response, 400, loginPage(uid, username, 'Incorrect username or password.'));
      }
    } else if (request.method === 'GET' && action === undefined && details.prompt.name === 'login') {
      sendHtml(response, 200, loginPage(uid, '', undefined));
    } else if (request.method === 'GET' && action === undefined && details.prompt.name === 'consent') {
      await provider.interactionFinished(
        request,
        response,
        { consent: { grantId: await grantRequested(provider, details) } },
        { mergeWithLastSubmission: true },
      );
    } else {
      sendHtml(response, 400, page('Sign-in error', '<p role="alert">Unexpected sign-in step.</p>'));
    }
  };
}

/** Grants what the consent prompt found missing (oidc-provider's documented consent step, without asking). */
async function grantRequested(provider: OidcProvider, details: InteractionDetails): Promise<string> {
  const accountId = details.session?.accountId;
  if (accountId === undefined) throw new Error('Consent before login');
  const grant =
    (details.grantId === undefined ? undefined : await provider.Grant.find(details.grantId)) ??
    new provider.Grant({ accountId, clientId: String(details.params['client_id']) });
  const missing = details.prompt.details;
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
    grant.addResourceScope(indicator, scopes.join(' '));
  return grant.save();
}

function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

async function readBody(request: IncomingMessage, limit = 16 * 1024): Promise<string> {
  let body = '';
  for await (const chunk of request) {
    body += String(chunk);
    if (body.length > limit) throw new Error('Form too large');
  }
  return body;
}

function loginPage(uid: string, username: string, error: string | undefined): string {
  return page(
    'Sign in',
    `<h1>Sign in</h1>
<p>Local stand-in for Amazon Cognito.</p>
${error === undefined ? '' : `<p role="alert">${escapeHtml(error)}</p>`}
<form method="post" action="/interaction/${encodeURIComponent(uid)}/login">
<p><label>Username
<input name="username" type="text" autocomplete="username" value="${escapeHtml(username)}"></label></p>
<p><label>Password <input name="password" type="password" autocomplete="current-password"></label></p>
<p><button type="submit">Sign in</button></p>
</form>`,
  );
}

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body>${body}</body></html>`;
}

function sendHtml(response: ServerResponse, status: number, html: string): void {
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  response.end(html);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
