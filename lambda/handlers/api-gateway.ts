// Converts API Gateway REST proxy events to Web Requests, and Web Responses to the streaming integration's prelude.
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { OAUTH_PATHS } from '../contract/oauth-paths.js';
import { unauthorizedResponse } from '../protocol/unauthorized.js';

export function requestFromEvent(event: APIGatewayProxyEvent): Request {
  const headers = new Headers();
  for (const [name, values] of Object.entries(event.multiValueHeaders ?? {}))
    for (const value of values ?? []) headers.append(name, value);
  for (const [name, value] of Object.entries(event.headers ?? {}))
    if (value !== undefined && !headers.has(name)) headers.set(name, value);
  const host = headers.get('host') ?? 'localhost';
  const query = new URLSearchParams();
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {}))
    for (const value of values ?? []) query.append(name, value);
  const search = query.size > 0 ? `?${query.toString()}` : '';
  const body =
    event.body === null || event.body === undefined
      ? undefined
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64')
        : event.body;
  const hasBody = body !== undefined && event.httpMethod !== 'GET' && event.httpMethod !== 'HEAD';
  return new Request(`https://${host}${event.path}${search}`, {
    method: event.httpMethod,
    headers,
    ...(hasBody ? { body } : {}),
  });
}

/**
 * The task owner: the authorizer's verified identity (Cognito `sub`, or `client_id` for machine clients, or a
 * custom authorizer's principal). Never read from anything the client sends. `null` when there is none.
 */
export function ownerFromEvent(event: APIGatewayProxyEvent): string | null {
  const authorizer = event.requestContext?.authorizer;
  const claims = (authorizer?.['claims'] ?? {}) as Record<string, unknown>;
  for (const candidate of [claims['sub'], claims['client_id'], authorizer?.['principalId']]) {
    if (typeof candidate === 'string' && candidate !== '') return candidate;
  }
  return null;
}

/** What a streaming Lambda proxy integration sends before the body: API Gateway reads status and headers from it. */
export interface StreamingPrelude {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
}

export function preludeFromResponse(response: Response): StreamingPrelude {
  // Headers already folds repeated headers into one comma-separated value; MCP sets no cookies.
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  return { statusCode: response.status, headers };
}

/**
 * Where this API serves its OAuth protected resource metadata (RFC 9728), derived from the request as API
 * Gateway received it, so a 401 points at the document on the same stage.
 */
export function resourceMetadataUrl(event: APIGatewayProxyEvent): string {
  // API Gateway always sends requestContext; an event without it (a test console, a misrouted invoke) still gets an
  // answer.
  const context = event.requestContext as Partial<APIGatewayProxyEvent['requestContext']> | undefined;
  const stage = typeof context?.stage === 'string' && context.stage !== '' ? `/${context.stage}` : '';
  return `https://${context?.domainName ?? 'localhost'}${stage}${OAUTH_PATHS.protectedResourceMetadata}`;
}

/**
 * The MCP authorization spec's answer to a request without a verified principal. Behind the Cognito authorizer
 * API Gateway answers such requests itself; this covers a misconfigured or bypassed authorizer.
 */
export function unauthorizedResponseFor(event: APIGatewayProxyEvent): Response {
  return unauthorizedResponse(`Bearer resource_metadata="${resourceMetadataUrl(event)}"`);
}

/**
 * Adds the CORS response headers for a browser origin on the allow-list (API Gateway answers the preflight; the
 * actual response comes from the function). Other origins get no CORS headers, so browsers refuse to read the answer.
 */
export function withCors(response: Response, origin: string | undefined, allowedOrigins: readonly string[]): Response {
  if (origin === undefined || !(allowedOrigins.includes('*') || allowedOrigins.includes(origin))) return response;
  const headers = new Headers(response.headers);
  headers.set('access-control-allow-origin', allowedOrigins.includes('*') ? '*' : origin);
  headers.set('access-control-expose-headers', 'mcp-session-id, mcp-protocol-version, www-authenticate');
  headers.append('vary', 'origin');
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
