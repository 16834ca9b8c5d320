// The authorization server in front of the upstream provider, as a Web-standard app (Request in, Response out): the
// Lambda handler and the local dev server are thin adapters around it. Paths are matched without API Gateway's stage
// (as the Lambda adapter builds request URLs); every URL it hands out starts with the configured issuer.
import {
  MethodNotAllowedError,
  ServerError,
  TemporarilyUnavailableError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { ServiceBusyError } from '../core/errors.js';
import { authorize, completeSignIn, decide } from './authorization-endpoint.js';
import { errorPage, json, oauthErrorResponse, publicDocument } from './oauth-responses.js';
import { OAUTH_PROXY_SCOPE, type OAuthProxyContext } from './oauth-proxy-context.js';
import { OAUTH_PATHS } from '../contract/oauth-paths.js';
import { register } from './registration-endpoint.js';
import { token } from './token-endpoint.js';
import { CLIENT_AUTH_METHODS } from './oauth-store.js';
import { countingSource } from './source-limits.js';

/** The request facts an adapter knows and a Request does not carry. */
export interface OAuthRequestContext {
  /** The caller's address, for the per-source limits. */
  readonly sourceIp: string;
}

export interface OAuthProxy {
  /** Whether this app serves `pathname` (the dev server routes everything else to MCP). */
  serves(pathname: string): boolean;
  handle(request: Request, requestContext: OAuthRequestContext): Promise<Response>;
}

/** Browsers may read the documents and call /token and /register from any origin: none of them uses cookies. */
const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version',
  'access-control-max-age': '3600',
};

function withCors(response: Response): Response {
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(CORS_HEADERS)) headers.set(name, value);
  return new Response(response.body, { status: response.status, headers });
}

/** Serves a request from `source`, the caller's address as the per-source limits count it. */
type Serve = (request: Request, source: string) => Promise<Response>;

type Route = {
  /** What each method does; a method without an entry is answered 405. */
  readonly methods: Partial<Record<'GET' | 'POST', Serve>>;
  /** Navigations (authorize, callback) answer errors with a page and need no CORS. */
  readonly browserApi: boolean;
};

export function createOAuthProxy(context: OAuthProxyContext): OAuthProxy {
  const metadata = authorizationServerMetadata(context);
  const routes = new Map<string, Route>([
    [OAUTH_PATHS.authorizationServerMetadata, document(() => metadata)],
    [OAUTH_PATHS.openIdConfiguration, document(() => metadata)],
    [OAUTH_PATHS.protectedResourceMetadata, document(() => protectedResourceMetadata(context))],
    // RFC 9728 3.1: the metadata of resource https://host/mcp is also looked for at /.well-known/oauth-protected-resource/mcp.
    [
      `${OAUTH_PATHS.protectedResourceMetadata}${new URL(context.resource).pathname}`,
      document(() => protectedResourceMetadata(context)),
    ],
    // No key is published: access tokens are checked only by this endpoint's own functions (see access-tokens.ts).
    [OAUTH_PATHS.jwks, document(() => ({ keys: [] }))],
    [
      OAUTH_PATHS.authorize,
      {
        methods: {
          GET: (request, source) => authorize(request, source, context),
          POST: (request) => decide(request, context),
        },
        browserApi: false,
      },
    ],
    [OAUTH_PATHS.callback, { methods: { GET: (request) => completeSignIn(request, context) }, browserApi: false }],
    [OAUTH_PATHS.token, { methods: { POST: (request, source) => token(request, source, context) }, browserApi: true }],
  ]);
  const registration = context.registration;
  if (registration)
    routes.set(OAUTH_PATHS.register, {
      methods: { POST: (request, source) => register(request, source, registration, context) },
      browserApi: true,
    });
  return {
    serves: (pathname) => routes.has(pathname),
    async handle(request, requestContext) {
      const route = routes.get(new URL(request.url).pathname);
      if (route === undefined) return json({ error: 'not_found', error_description: 'No such OAuth endpoint' }, 404);
      if (request.method === 'OPTIONS' && route.browserApi) return withCors(new Response(null, { status: 204 }));
      const answer = await serveRoute(route, request, countingSource(requestContext.sourceIp), context);
      return route.browserApi ? withCors(answer) : answer;
    },
  };
}

async function serveRoute(
  route: Route,
  request: Request,
  source: string,
  context: OAuthProxyContext,
): Promise<Response> {
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  const serve = Object.hasOwn(route.methods, method) ? route.methods[method as 'GET' | 'POST'] : undefined;
  if (serve === undefined) {
    const allowed = Object.keys(route.methods).join(', ');
    return oauthErrorResponse(new MethodNotAllowedError(`Use ${allowed}`), 405, { allow: allowed });
  }
  try {
    return await serve(request, source);
  } catch (error) {
    if (error instanceof ServiceBusyError) {
      // The table refused for load: a definite answer with when to try again, for a person and a client alike.
      const busy = new TemporarilyUnavailableError(
        `The authorization server is busy: try again in ${error.retryAfterSeconds} s`,
      );
      const retryAfter = { 'retry-after': String(error.retryAfterSeconds) };
      return route.browserApi ? oauthErrorResponse(busy, 503, retryAfter) : errorPage(busy, 503);
    }
    // Never a stack trace to the client: the log has it.
    context.logger.error('OAuth request failed', { path: new URL(request.url).pathname, error: String(error) });
    const failure = new ServerError('The authorization server failed: try again');
    return route.browserApi ? oauthErrorResponse(failure, 500) : errorPage(failure, 500);
  }
}

function document(produce: () => unknown): Route {
  return { methods: { GET: async () => publicDocument(produce()) }, browserApi: true };
}

/**
 * RFC 8414 metadata, served as OpenID discovery too: behind an API Gateway stage the issuer has a path, and the only
 * well-known URL a client can then reach is `<issuer>/.well-known/openid-configuration`. OpenID discovery requires the
 * ID-token fields; this server issues no ID tokens, so their lists are empty.
 */
function authorizationServerMetadata(context: OAuthProxyContext) {
  const at = (path: string) => `${context.issuer}${path}`;
  return {
    issuer: context.issuer,
    authorization_endpoint: at(OAUTH_PATHS.authorize),
    token_endpoint: at(OAUTH_PATHS.token),
    ...(context.registration ? { registration_endpoint: at(OAUTH_PATHS.register) } : {}),
    jwks_uri: at(OAUTH_PATHS.jwks),
    scopes_supported: [OAUTH_PROXY_SCOPE],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
    code_challenge_methods_supported: ['S256'],
    client_id_metadata_document_supported: context.clientIdMetadataDocuments,
    authorization_response_iss_parameter_supported: true,
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [],
  };
}

function protectedResourceMetadata(context: OAuthProxyContext) {
  return {
    resource: context.resource,
    authorization_servers: [context.issuer],
    scopes_supported: [OAUTH_PROXY_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: 'MCP tasks on AWS Step Functions',
  };
}
