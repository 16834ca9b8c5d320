// GetItem, the poll's one AWS call, sent by a short path inside the SDK client. Measured on DynamoDB Local, a GetItem
// through the full SDK pipeline cost about 650 us of CPU, where the same request signed with the SDK's own SigV4 signer
// and sent over a keep-alive agent cost about 280 us: the rest is the SDK's per-call machinery (endpoint rules,
// serde schemas, the HTTP handler's request objects). This middleware answers GetItem at the end of the initialize
// step, so what sits before it still runs as for any call: the document client's marshalling, the throttle translation
// (aws-throttling.ts), call counters and injected faults. What it skips it does itself with the SDK's own parts:
//   - the endpoint is the one the SDK resolved for the client's first GetItem (which takes the full path);
//   - credentials and region are the client's resolved providers;
//   - retries follow the client's own retry strategy (attempts, backoff, retry quota) and the SDK's error classes;
//   - every attempt is bounded as the production clients are (aws-clients.ts: 1 s connect, 3 s request);
//   - errors are the SDK's classes for GetItem's modelled errors (else DynamoDBServiceException) with the service's
//     name, $fault and $metadata, as the SDK throws them.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import {
  DynamoDBServiceException,
  InternalServerError,
  InvalidEndpointException,
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  ResourceNotFoundException,
  ThrottlingException,
  type DynamoDBClient,
  type ServiceInputTypes,
  type ServiceOutputTypes,
} from '@aws-sdk/client-dynamodb';
import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import { SignatureV4 } from '@smithy/signature-v4';
import type {
  Checksum,
  EndpointV2,
  InitializeHandlerArguments,
  InitializeHandlerOutput,
  InitializeMiddleware,
  RetryErrorType,
  SdkError,
  SourceData,
} from '@smithy/types';
import { AWS_CONNECT_TIMEOUT_MS, AWS_REQUEST_TIMEOUT_MS } from './aws-clients.js';

const TARGET = 'DynamoDB_20120810.GetItem';
const CONTENT_TYPE = 'application/x-amz-json-1.0';
/** The SDK's default socket pool for one client (NodeHttpHandler). */
const MAX_SOCKETS = 50;

/** SHA-256 over node:crypto, in the shape the SDK's signer takes (what @smithy/hash-node does). */
class NodeSha256 implements Checksum {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }
  update(data: Uint8Array | string): void {
    this.hash.update(data);
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {
    this.hash = this.fresh();
  }
  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', this.secret as Uint8Array | string);
  }
}

/** Where and as whom a GetItem is sent: learned from the SDK's own resolution of the client's first one. */
interface Route {
  readonly url: URL;
  readonly signer: SignatureV4;
  readonly agent: HttpAgent;
  readonly send: typeof httpRequest;
  /** The client's config, whose systemClockOffset the SDK keeps up to date from every answer's Date header. */
  readonly clock: { systemClockOffset?: number };
}

/**
 * Installs the short path on `client` (again replaces it). Only GetItem takes it; every other command, and the first
 * GetItem, go through the SDK as before.
 */
export function sendGetItemLean(client: DynamoDBClient): void {
  const config = client.config;
  let route: Route | undefined;
  const learn = async (endpoint: EndpointV2): Promise<Route> => {
    const url = new URL(endpoint.url.href);
    const scheme = endpoint.properties?.['authSchemes'] as { signingRegion?: string }[] | undefined;
    const region = scheme?.[0]?.signingRegion ?? (await config.region());
    const https = url.protocol === 'https:';
    return {
      url,
      signer: new SignatureV4({ service: 'dynamodb', region, credentials: config.credentials, sha256: NodeSha256 }),
      agent: https
        ? new HttpsAgent({ keepAlive: true, maxSockets: MAX_SOCKETS })
        : new HttpAgent({ keepAlive: true, maxSockets: MAX_SOCKETS }),
      send: https ? httpsRequest : httpRequest,
      clock: config,
    };
  };
  const middleware: InitializeMiddleware<ServiceInputTypes, ServiceOutputTypes> = (next, context) => async (args) => {
    // A document client's GetCommand reaches this step unmarshalled: only the wire-shaped input takes the short path.
    if (context.commandName !== 'GetItemCommand' || !hasWireKey(args.input)) return next(args);
    if (route === undefined) {
      const answer = await next(args);
      if (context.endpointV2 !== undefined) {
        const learned = await learn(context.endpointV2);
        route ??= learned;
      }
      return answer;
    }
    return withRetries(route, args, await config.retryStrategy());
  };
  client.middlewareStack.add(middleware, { step: 'initialize', priority: 'low', name: 'leanGetItem', override: true });
}

/** A GetItem input whose key is all strings and numbers in their wire shape, so its JSON is its wire body. */
function hasWireKey(input: object): boolean {
  const key = (input as { Key?: Record<string, unknown> }).Key;
  if (typeof key !== 'object' || key === null) return false;
  return Object.values(key).every((value) => {
    if (typeof value !== 'object' || value === null) return false;
    const entries = Object.entries(value);
    return (
      entries.length === 1 && (entries[0]![0] === 'S' || entries[0]![0] === 'N') && typeof entries[0]![1] === 'string'
    );
  });
}

type RetryStrategy = Awaited<ReturnType<DynamoDBClient['config']['retryStrategy']>>;

/** The SDK retry middleware's loop (the client's strategy decides whether and when), around one lean attempt. */
async function withRetries(
  route: Route,
  args: InitializeHandlerArguments<ServiceInputTypes>,
  strategy: RetryStrategy,
): Promise<InitializeHandlerOutput<ServiceOutputTypes>> {
  if (!('acquireInitialRetryToken' in strategy)) throw new Error('The lean GetItem needs a standard retry strategy');
  const body = JSON.stringify(args.input);
  let token = await strategy.acquireInitialRetryToken('');
  let totalRetryDelay = 0;
  for (let attempts = 1; ; attempts = token.getRetryCount() + 1) {
    try {
      const output = await attempt(route, body);
      strategy.recordSuccess(token);
      return { output: { ...output, $metadata: { ...output.$metadata, attempts, totalRetryDelay } }, response: {} };
    } catch (error) {
      const failure = error as SdkError;
      try {
        token = await strategy.refreshRetryTokenForRetry(token, { errorType: retryErrorTypeOf(failure) });
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

/** The SDK's own classification (its retry middleware's getRetryErrorType). */
function retryErrorTypeOf(error: SdkError): RetryErrorType {
  if (isThrottlingError(error)) return 'THROTTLING';
  if (isTransientError(error)) return 'TRANSIENT';
  if (isServerError(error)) return 'SERVER_ERROR';
  return 'CLIENT_ERROR';
}

interface GetItemAnswer extends Record<string, unknown> {
  readonly $metadata: { readonly httpStatusCode: number; readonly requestId?: string };
}

/** One signed POST, bounded like the production clients' requests: 1 s to connect, 3 s in all. */
async function attempt(route: Route, body: string): Promise<GetItemAnswer> {
  const { url, signer, clock } = route;
  const signed = await signer.sign(
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
    { signingDate: new Date(Date.now() + (clock.systemClockOffset ?? 0)) },
  );
  const sentAt = Date.now();
  const { response, text } = await post(route, signed.headers, body);
  const status = response.statusCode ?? 0;
  const requestId = headerOf(response, 'x-amzn-requestid');
  const $metadata = { httpStatusCode: status, ...(requestId !== undefined ? { requestId } : {}) };
  if (status >= 200 && status < 300) {
    // Binary values come base64 on the wire and as bytes from the SDK (its only difference from the JSON).
    const output = JSON.parse(text, text.includes('"B') ? bytesOfBinaryValues : undefined) as Record<string, unknown>;
    return { ...output, $metadata };
  }
  const error = serviceErrorOf(status, text, $metadata);
  correctClock(clock, headerOf(response, 'date'), sentAt, error);
  throw error;
}

/**
 * The SDK signer's error handler: a refusal's Date header sets the client's clock offset, and a correction of more
 * than 4 minutes makes the error transient (clockSkewCorrected), so the retry is signed with the corrected clock.
 */
function correctClock(
  clock: Route['clock'],
  date: string | undefined,
  sentAt: number,
  error: DynamoDBServiceException,
): void {
  const serverTime = date === undefined ? NaN : Date.parse(date);
  const receivedAt = Date.now();
  if (Number.isNaN(serverTime) || receivedAt - sentAt > 900_000) return;
  const before = clock.systemClockOffset;
  const offset = serverTime - receivedAt;
  clock.systemClockOffset = offset;
  if (Math.abs(offset) >= 240_000 && offset !== before)
    error.$metadata = { ...error.$metadata, clockSkewCorrected: true } as DynamoDBServiceException['$metadata'];
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
  route: Route,
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

/** GetItem's modelled errors, as the SDK's deserializer makes them: callers may test `instanceof`. */
const MODELLED_ERRORS: Record<string, new (options: ModelledErrorOptions) => DynamoDBServiceException> = {
  InternalServerError,
  InvalidEndpointException,
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  ResourceNotFoundException,
  ThrottlingException,
};

type ModelledErrorOptions = { message: string; $metadata: GetItemAnswer['$metadata'] };

/**
 * The service's refusal as the SDK throws it: its name from `__type` (a modelled one as its class), its message,
 * fault and metadata.
 */
function serviceErrorOf(status: number, text: string, $metadata: GetItemAnswer['$metadata']): DynamoDBServiceException {
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
  const Modelled = Object.hasOwn(MODELLED_ERRORS, name) ? MODELLED_ERRORS[name] : undefined;
  if (Modelled !== undefined) return new Modelled({ message, $metadata });
  return new DynamoDBServiceException({ name, message, $fault: status >= 500 ? 'server' : 'client', $metadata });
}
