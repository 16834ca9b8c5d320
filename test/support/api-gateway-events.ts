// API Gateway REST proxy events as API Gateway sends them (stage `prod`, a Cognito authorizer's claims or none), and
// a streaming handler's output read back the way API Gateway reads a streamed integration response.
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { PRELUDE_DELIMITER_LENGTH, type StreamingHandler } from '../../lambda/handlers/response-streaming.js';

export const DOMAIN = 'a1b2c3d4e5.execute-api.us-east-1.amazonaws.com';
export const STAGE = 'prod';

export interface StreamedResponse {
  readonly contentType: string | undefined;
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Runs the handler against a response stream and splits what it wrote as API Gateway does: prelude, 8 NULs, body. */
export async function invokeStreaming(
  handler: StreamingHandler<APIGatewayProxyEvent>,
  event: APIGatewayProxyEvent,
): Promise<StreamedResponse> {
  const chunks: Buffer[] = [];
  let contentType: string | undefined;
  const stream = Object.assign(
    new Writable({
      write(chunk: Buffer | string, _encoding, callback) {
        chunks.push(Buffer.from(chunk));
        callback();
      },
    }),
    { setContentType: (type: string) => (contentType = type) },
  );
  await handler(event, stream);
  const bytes = Buffer.concat(chunks);
  const delimiter = bytes.indexOf(Buffer.alloc(PRELUDE_DELIMITER_LENGTH));
  if (delimiter < 0) throw new Error(`no prelude delimiter in: ${bytes.toString()}`);
  const prelude = JSON.parse(bytes.subarray(0, delimiter).toString('utf8')) as {
    statusCode: number;
    headers: Record<string, string>;
  };
  return { contentType, ...prelude, body: bytes.subarray(delimiter + PRELUDE_DELIMITER_LENGTH).toString('utf8') };
}

export type Claims = Record<string, string>;

/** Claims as the Cognito user pool authorizer passes them for an access token (all values are strings). */
export function accessTokenClaims(sub: string): Claims {
  return {
    sub,
    client_id: '5example0client0id',
    token_use: 'access',
    scope: 'openid email mcp-tasks/invoke',
    iss: 'https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Example',
    username: sub,
    exp: 'Mon Jun 02 12:00:00 UTC 2025',
  };
}

/** A REST API Lambda proxy event for /mcp on the `prod` stage, as API Gateway sends it. */
export function proxyEvent(options: {
  /** The resource path, without the stage. @default '/mcp' */
  path?: string;
  query?: Record<string, string>;
  sourceIp?: string;
  method?: string;
  body?: unknown;
  claims?: Claims | null;
  headers?: Record<string, string>;
  base64?: boolean;
}): APIGatewayProxyEvent {
  const method = options.method ?? 'POST';
  const path = options.path ?? '/mcp';
  const query = options.query ?? null;
  const headers: Record<string, string> = {
    Host: DOMAIN,
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
    'X-Forwarded-Proto': 'https',
    Authorization: 'Bearer eyJraWQiOi...signature',
    ...options.headers,
  };
  const json =
    typeof options.body === 'string' ? options.body : options.body === undefined ? null : JSON.stringify(options.body);
  const claims = options.claims === undefined ? accessTokenClaims('alice-sub') : options.claims;
  return {
    resource: path,
    path,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: query,
    multiValueQueryStringParameters:
      query && Object.fromEntries(Object.entries(query).map(([name, value]) => [name, [value]])),
    pathParameters: null,
    stageVariables: null,
    body: json === null ? null : options.base64 ? Buffer.from(json).toString('base64') : json,
    isBase64Encoded: options.base64 ?? false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'a1b2c3d4e5',
      authorizer: claims === null ? undefined : { claims },
      domainName: DOMAIN,
      domainPrefix: 'a1b2c3d4e5',
      extendedRequestId: 'Example=',
      httpMethod: method,
      identity: {
        sourceIp: options.sourceIp ?? '203.0.113.7',
        userAgent: 'test',
      } as APIGatewayProxyEvent['requestContext']['identity'],
      path: `/${STAGE}${path}`,
      protocol: 'HTTP/1.1',
      requestId: randomUUID(),
      requestTime: '02/Jun/2025:12:00:00 +0000',
      requestTimeEpoch: Date.now(),
      resourceId: 'abc123',
      resourcePath: path,
      stage: STAGE,
    },
  } as APIGatewayProxyEvent;
}
