// The short GetItem's exchange, shared by the two reads that take it: a poll's GetItem inside the SDK client
// (lean-get-item.ts) and the declared tool catalog's read at an instance's first request (lean-declared-catalog.ts).
// One signed POST bounded like the production clients' requests, its answer or refusal as the SDK gives them, and the
// SDK retry middleware's loop around it. Node's own modules only: what signs, classifies and names a refusal is the
// caller's (the SDK's own parts for a poll), so the catalog's read loads none of the AWS SDK.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { RetryErrorType, RetryStrategy, RetryStrategyV2, SdkError } from '@smithy/types';
import { AWS_CONNECT_TIMEOUT_MS, AWS_REQUEST_TIMEOUT_MS } from './aws-call-bounds.js';

const TARGET = 'DynamoDB_20120810.GetItem';
const CONTENT_TYPE = 'application/x-amz-json-1.0';
/** The SDK's default socket pool for one client (NodeHttpHandler). */
const MAX_SOCKETS = 50;

/** A request to sign, in the shape of the SDK's HttpRequest (what its SignatureV4 signs). */
export interface LeanRequest {
  readonly method: 'POST';
  readonly protocol: string;
  readonly hostname: string;
  readonly port?: number;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Where and as whom a GetItem is sent. */
export interface LeanRoute {
  readonly url: URL;
  /** The request's headers, signed as of `signingDate`. */
  readonly sign: (request: LeanRequest, signingDate: Date) => Promise<Record<string, string>>;
  readonly agent: HttpAgent;
  readonly send: typeof httpRequest;
  /** The clock offset, kept up to date from refusals' Date headers (for a poll, the SDK client's config). */
  readonly clock: { systemClockOffset?: number };
}

/** A route to `url` over a keep-alive agent, signed by `sign`, dated by `clock`. */
export function leanRoute(url: URL, sign: LeanRoute['sign'], clock: LeanRoute['clock']): LeanRoute {
  const https = url.protocol === 'https:';
  return {
    url,
    sign,
    agent: https
      ? new HttpsAgent({ keepAlive: true, maxSockets: MAX_SOCKETS })
      : new HttpAgent({ keepAlive: true, maxSockets: MAX_SOCKETS }),
    send: https ? httpsRequest : httpRequest,
    clock,
  };
}

/** What a refusal is made of, as the SDK's deserializer reads it. */
export interface LeanRefusal {
  readonly name: string;
  readonly message: string;
  readonly $fault: 'client' | 'server';
  readonly $metadata: GetItemAnswer['$metadata'];
}

/** How a caller retries and what it throws: for a poll, the SDK client's own strategy, classification and classes. */
export interface LeanPolicy {
  readonly strategy: RetryStrategy | RetryStrategyV2;
  /** The retry middleware's classification of a failed attempt. */
  readonly classify: (error: SdkError) => RetryErrorType;
  /** The service's refusal as the error to throw. */
  readonly refusal: (refusal: LeanRefusal) => Error;
}

/**
 * One GetItem of a wire-shaped `input` (its JSON is its wire body), answered as the SDK answers it: the SDK retry
 * middleware's loop (the policy's strategy decides whether and when) around one attempt.
 */
export async function leanGetItem(
  route: LeanRoute,
  input: object,
  policy: LeanPolicy,
): Promise<Record<string, unknown> & { $metadata: Record<string, unknown> }> {
  const { strategy } = policy;
  if (!('acquireInitialRetryToken' in strategy)) throw new Error('The lean GetItem needs a standard retry strategy');
  const body = JSON.stringify(input);
  let token = await strategy.acquireInitialRetryToken('');
  let totalRetryDelay = 0;
  for (let attempts = 1; ; attempts = token.getRetryCount() + 1) {
    try {
      const output = await attempt(route, body, policy);
      strategy.recordSuccess(token);
      return { ...output, $metadata: { ...output.$metadata, attempts, totalRetryDelay } };
    } catch (error) {
      const failure = error as SdkError;
      try {
        token = await strategy.refreshRetryTokenForRetry(token, { errorType: policy.classify(failure) });
      } catch {
        failure.$metadata = { ...failure.$metadata, attempts, totalRetryDelay };
        throw failure;
      }
      const delay = token.getRetryDelay();
      totalRetryDelay += delay;
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

interface GetItemAnswer extends Record<string, unknown> {
  readonly $metadata: { readonly httpStatusCode: number; readonly requestId?: string };
}

/** One signed POST, bounded like the production clients' requests: 1 s to connect, 3 s in all. */
async function attempt(route: LeanRoute, body: string, policy: LeanPolicy): Promise<GetItemAnswer> {
  const { url, clock } = route;
  const headers = await route.sign(
    {
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port !== '' ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: {},
      headers: { host: url.host, 'content-type': CONTENT_TYPE, 'x-amz-target': TARGET },
      body,
    },
    // Dated by the clock the SDK has corrected (as its signer does), not the local one, which may be skewed.
    new Date(Date.now() + (clock.systemClockOffset ?? 0)),
  );
  const sentAt = Date.now();
  const { response, text } = await post(route, headers, body);
  const status = response.statusCode ?? 0;
  const requestId = headerOf(response, 'x-amzn-requestid');
  const $metadata = { httpStatusCode: status, ...(requestId !== undefined ? { requestId } : {}) };
  if (status >= 200 && status < 300) {
    // Binary values come base64 on the wire and as bytes from the SDK (its only difference from the JSON).
    const output = JSON.parse(text, text.includes('"B') ? bytesOfBinaryValues : undefined) as Record<string, unknown>;
    return { ...output, $metadata };
  }
  const error = serviceErrorOf(status, text, $metadata, policy);
  correctClock(clock, headerOf(response, 'date'), sentAt, error);
  throw error;
}

/**
 * The SDK signer's error handler: a refusal's Date header sets the client's clock offset, and a correction of more
 * than 4 minutes makes the error transient (clockSkewCorrected), so the retry is signed with the corrected clock.
 */
function correctClock(clock: LeanRoute['clock'], date: string | undefined, sentAt: number, error: SdkError): void {
  const serverTime = date === undefined ? NaN : Date.parse(date);
  const receivedAt = Date.now();
  if (Number.isNaN(serverTime) || receivedAt - sentAt > 900_000) return;
  const before = clock.systemClockOffset;
  const offset = serverTime - receivedAt;
  clock.systemClockOffset = offset;
  if (Math.abs(offset) >= 240_000 && offset !== before)
    error.$metadata = { ...error.$metadata, clockSkewCorrected: true } as SdkError['$metadata'];
}

/** JSON.parse's reviver: `{ "B": base64 }` and `{ "BS": [base64] }` attribute values as the SDK gives them, bytes. */
function bytesOfBinaryValues(this: unknown, key: string, value: unknown): unknown {
  const bytes = (text: unknown) => (typeof text === 'string' ? new Uint8Array(Buffer.from(text, 'base64')) : text);
  if (key === 'B') return bytes(value);
  if (key === 'BS' && Array.isArray(value)) return value.map(bytes);
  return value;
}

/** The exchange, answer body included, bounded like the production clients' requests: 1 s to connect, 3 s in all. */
function post(
  route: LeanRoute,
  headers: Record<string, string>,
  body: string,
): Promise<{ response: IncomingMessage; text: string }> {
  return new Promise((resolve, reject) => {
    const timedOut = (what: string, ms: number) =>
      Object.assign(new Error(`The DynamoDB ${what} did not complete within ${ms} ms`), { name: 'TimeoutError' });
    let received: IncomingMessage | undefined;
    const fail = (error: Error) => {
      clearTimeout(requestTimer);
      reject(error);
    };
    const sent = route.send(route.url, { method: 'POST', agent: route.agent, headers }, (response) => {
      received = response;
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        clearTimeout(requestTimer);
        resolve({ response, text });
      });
      response.on('error', fail);
    });
    // Until the body's end, not only its headers: an answer that stops halfway would otherwise hold the poll forever.
    const requestTimer = setTimeout(() => {
      const error = timedOut('request', AWS_REQUEST_TIMEOUT_MS);
      received?.destroy(error);
      sent.destroy(error);
      reject(error);
    }, AWS_REQUEST_TIMEOUT_MS);
    sent.on('socket', (socket) => {
      if (!socket.connecting) return;
      const connectTimer = setTimeout(
        () => sent.destroy(timedOut('connection', AWS_CONNECT_TIMEOUT_MS)),
        AWS_CONNECT_TIMEOUT_MS,
      );
      socket.once('connect', () => clearTimeout(connectTimer));
      socket.once('close', () => clearTimeout(connectTimer));
    });
    sent.on('error', fail);
    sent.end(body);
  });
}

function headerOf(response: IncomingMessage, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The service's refusal as the SDK reads it: its name from `__type`, its message, fault and metadata; the policy makes
 * the error (for a poll, a modelled one as its class).
 */
function serviceErrorOf(
  status: number,
  text: string,
  $metadata: GetItemAnswer['$metadata'],
  policy: LeanPolicy,
): SdkError {
  let parsed: { __type?: unknown; message?: unknown; Message?: unknown } = {};
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    // A body that is not JSON (a proxy's page): the status names the error.
  }
  const type = typeof parsed.__type === 'string' ? parsed.__type : '';
  const name = type.slice(type.lastIndexOf('#') + 1) || `HTTP ${status}`;
  const found = parsed.message ?? parsed.Message;
  const message = typeof found === 'string' ? found : name;
  return policy.refusal({ name, message, $fault: status >= 500 ? 'server' : 'client', $metadata }) as SdkError;
}
