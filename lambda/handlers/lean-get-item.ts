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
// The exchange itself (lean-get-item-exchange.ts) is shared with the declared tool catalog's read at an instance's
// first request, which takes it without the SDK's client (lean-declared-catalog.ts).
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
import type { Checksum, EndpointV2, InitializeMiddleware, RetryErrorType, SdkError, SourceData } from '@smithy/types';
import {
  leanGetItem,
  leanRoute,
  type LeanRefusal,
  type LeanRequest,
  type LeanRoute,
} from './lean-get-item-exchange.js';

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

/**
 * Installs the short path on `client` (again replaces it). Only GetItem takes it; every other command, and the first
 * GetItem, go through the SDK as before.
 */
export function sendGetItemLean(client: DynamoDBClient): void {
  const config = client.config;
  let route: LeanRoute | undefined;
  const learn = async (endpoint: EndpointV2): Promise<LeanRoute> => {
    const scheme = endpoint.properties?.['authSchemes'] as { signingRegion?: string }[] | undefined;
    const region = scheme?.[0]?.signingRegion ?? (await config.region());
    const signer = new SignatureV4({
      service: 'dynamodb',
      region,
      credentials: config.credentials,
      sha256: NodeSha256,
    });
    const sign = async (request: LeanRequest, signingDate: Date) =>
      (await signer.sign(request, { signingDate })).headers;
    return leanRoute(new URL(endpoint.url.href), sign, config);
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
    const policy = { strategy: await config.retryStrategy(), classify: retryErrorTypeOf, refusal: sdkRefusal };
    return { output: await leanGetItem(route, args.input, policy), response: {} };
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

/** The SDK's own classification (its retry middleware's getRetryErrorType). */
function retryErrorTypeOf(error: SdkError): RetryErrorType {
  if (isThrottlingError(error)) return 'THROTTLING';
  if (isTransientError(error)) return 'TRANSIENT';
  if (isServerError(error)) return 'SERVER_ERROR';
  return 'CLIENT_ERROR';
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

type ModelledErrorOptions = Pick<LeanRefusal, 'message' | '$metadata'>;

/** A refusal as the SDK throws it: a modelled one as its class, anything else as a DynamoDBServiceException. */
function sdkRefusal({ name, message, $fault, $metadata }: LeanRefusal): DynamoDBServiceException {
  const Modelled = Object.hasOwn(MODELLED_ERRORS, name) ? MODELLED_ERRORS[name] : undefined;
  if (Modelled !== undefined) return new Modelled({ message, $metadata });
  return new DynamoDBServiceException({ name, message, $fault, $metadata });
}
