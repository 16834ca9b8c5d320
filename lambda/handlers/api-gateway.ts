// Converts API Gateway proxy events to Web Requests and Web Responses back to proxy results.
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

export function requestFromEvent(event: APIGatewayProxyEvent): Request {
  const headers = new Headers();
  for (const [name, values] of Object.entries(event.multiValueHeaders ?? {})) for (const value of values ?? []) headers.append(name, value);
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined && !headers.has(name)) headers.set(name, value);
  const host = headers.get('host') ?? 'localhost';
  const query = new URLSearchParams();
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) for (const value of values ?? []) query.append(name, value);
  const search = query.size > 0 ? `?${query.toString()}` : '';
  const body = event.body === null || event.body === undefined ? undefined : event.isBase64Encoded ? Buffer.from(event.body, 'base64') : event.body;
  const hasBody = body !== undefined && event.httpMethod !== 'GET' && event.httpMethod !== 'HEAD';
  return new Request(`https://${host}${event.path}${search}`, { method: event.httpMethod, headers, ...(hasBody ? { body } : {}) });
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

export async function resultFromResponse(response: Response): Promise<APIGatewayProxyResult> {
  const multiValueHeaders: Record<string, string[]> = {};
  response.headers.forEach((value, name) => (multiValueHeaders[name] = [...(multiValueHeaders[name] ?? []), value]));
  return { statusCode: response.status, multiValueHeaders, body: await response.text() };
}
