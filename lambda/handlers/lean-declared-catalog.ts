// The declared tool catalog's read without the AWS SDK. An MCP instance's first request that may need a tool reads the
// catalog item (one GetItem); through the SDK's client that read loaded the SDK (its clients and @smithy/core: most of
// the chunk's parse and compile), which made a cold start's first tools/list cost about 1.5x the CPU of a minimal SDK
// server. This read sends the GetItem by the poll's short path (lean-get-item-exchange.ts: the same exchange, bounds,
// answer decoding, clock correction and retry loop) with parts of its own where the poll uses the SDK's, each as the
// SDK does it: a SigV4 signature (sigV4Headers; a unit test holds it to the SDK signer's headers), the standard retry
// strategy's decisions for DynamoDB (3 attempts, 25 ms base, 1 s for throttles, full jitter) and its classification,
// and a refusal as an Error with the service's name, fault and metadata (the throttle translation and JSON-RPC answer
// read only those). Nothing here imports the SDK: esbuild splits chunks by file, so one import of an SDK module
// would bring its package's files into this chunk. The route is resolved from the environment as the SDK would resolve
// it; where the environment says anything this does not resolve as the SDK does (a profile or shared config file, an
// account ID, FIPS or dual-stack endpoints, another partition, adaptive retries, no key in the environment), the read
// goes through the SDK's store as before. Loaded with the first read (a chunk of its own), not at the function's
// import.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createHash, createHmac } from 'node:crypto';
import type { RetryErrorInfo, RetryErrorType, RetryStrategyV2, RetryToken, SdkError } from '@smithy/types';
import { DECLARED_CATALOG_ATTRIBUTE, unpackToolCatalog } from '../contract/declared-tool-catalog.js';
import { PARTITION_KEY } from '../contract/task-table-schema.js';
import type { ToolDefinition } from '../contract/tool-definition.js';
import { ServiceBusyError } from '../core/errors.js';
import type { DeclaredCatalogStore } from '../store/declared-catalog-store.js';
import { AWS_MAX_ATTEMPTS } from './aws-call-bounds.js';
import { isThrottling, THROTTLED_RETRY_AFTER_SECONDS, THROTTLING_ERROR_NAMES } from './aws-throttling.js';
import {
  leanGetItem,
  leanRoute,
  type LeanPolicy,
  type LeanRefusal,
  type LeanRequest,
  type LeanRoute,
} from './lean-get-item-exchange.js';

/** The DynamoDB client's retry base delay (its resolveRetryConfig default), and the SDK's for a throttled attempt. */
export const DYNAMODB_RETRY_BASE_DELAY_MS = 25;
export const THROTTLED_RETRY_BASE_DELAY_MS = 1_000;
/** The SDK's cap on one backoff. */
const MAXIMUM_RETRY_DELAY_MS = 20_000;

/** Regions of the `aws` partition (the SDK's partitions.json regionRegex): `dynamodb.<region>.amazonaws.com`. */
const AWS_PARTITION_REGION = /^(us|eu|ap|sa|ca|me|af|il|mx)-\w+-\d+$/;

/** Where and as whom the SDK's DynamoDB client would send a GetItem, as this environment configures it. */
export interface LeanDynamoDbSettings {
  readonly url: URL;
  readonly region: string;
  readonly credentials: {
    readonly accessKeyId: string;
    readonly secretAccessKey: string;
    readonly sessionToken?: string;
  };
}

/**
 * The SDK's resolution for a DynamoDB client made with no options but the bounds (aws-clients.ts), where this
 * environment leaves it simple: region from AWS_REGION, credentials from the environment (the first provider of the
 * SDK's default chain), the endpoint from AWS_ENDPOINT_URL_DYNAMODB or AWS_ENDPOINT_URL, else the `aws` partition's
 * regional endpoint, standard retries. `undefined` for anything else: the caller takes the SDK's path.
 */
export function leanDynamoDbSettings(
  env: NodeJS.ProcessEnv,
  fileExists: (path: string) => boolean = existsSync,
): LeanDynamoDbSettings | undefined {
  const region = env['AWS_REGION'];
  const accessKeyId = env['AWS_ACCESS_KEY_ID'];
  const secretAccessKey = env['AWS_SECRET_ACCESS_KEY'];
  if (!region || !accessKeyId || !secretAccessKey) return undefined;
  // A profile skips the environment's keys; an account ID picks an account-based endpoint.
  if (env['AWS_PROFILE'] || env['AWS_ACCOUNT_ID']) return undefined;
  if (isSet(env['AWS_USE_FIPS_ENDPOINT']) || isSet(env['AWS_USE_DUALSTACK_ENDPOINT'])) return undefined;
  if (env['AWS_RETRY_MODE'] && env['AWS_RETRY_MODE'] !== 'standard') return undefined;
  if (env['AWS_ACCOUNT_ID_ENDPOINT_MODE'] === 'required') return undefined;
  // A shared config file may set what the environment leaves unset (endpoints, FIPS, retries): the SDK reads it.
  if (fileExists(env['AWS_CONFIG_FILE'] || join(homeDirectory(env), '.aws', 'config'))) return undefined;
  const configured =
    env['AWS_IGNORE_CONFIGURED_ENDPOINT_URLS'] === 'true'
      ? undefined
      : env['AWS_ENDPOINT_URL_DYNAMODB'] || env['AWS_ENDPOINT_URL'] || undefined;
  let url: URL;
  if (configured !== undefined) {
    if (!URL.canParse(configured)) return undefined;
    url = new URL(configured);
  } else if (AWS_PARTITION_REGION.test(region)) {
    url = new URL(`https://dynamodb.${region}.amazonaws.com/`);
  } else return undefined;
  const sessionToken = env['AWS_SESSION_TOKEN'];
  return { url, region, credentials: { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } };
}

const isSet = (flag: string | undefined): boolean => flag !== undefined && flag !== '' && flag !== 'false';

/** The home directory as the SDK's shared-ini loader finds it. */
function homeDirectory(env: NodeJS.ProcessEnv): string {
  if (env['HOME']) return env['HOME'];
  if (env['USERPROFILE']) return env['USERPROFILE'];
  if (env['HOMEPATH']) return `${env['HOMEDRIVE'] ?? 'C:'}${env['HOMEPATH']}`;
  return homedir();
}

/** AWS credentials as the environment gives them. */
type Credentials = LeanDynamoDbSettings['credentials'];

const sha256Hex = (data: string): string => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();

/**
 * The headers of `request` signed with AWS Signature Version 4 for DynamoDB, as the SDK's SignatureV4 signs them
 * (x-amz-date, the session token, x-amz-content-sha256, every header signed): the request here is always a POST to
 * the endpoint's path with no query and plain header values.
 */
export function sigV4Headers(
  request: LeanRequest,
  signingDate: Date,
  region: string,
  credentials: Credentials,
): Record<string, string> {
  const longDate = signingDate
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const shortDate = longDate.slice(0, 8);
  const payloadHash = sha256Hex(request.body);
  const headers: Record<string, string> = {
    ...request.headers,
    'x-amz-date': longDate,
    ...(credentials.sessionToken !== undefined ? { 'x-amz-security-token': credentials.sessionToken } : {}),
    'x-amz-content-sha256': payloadHash,
  };
  const names = Object.keys(headers)
    .map((name) => name.toLowerCase())
    .sort();
  const value = (name: string) =>
    Object.entries(headers)
      .find(([key]) => key.toLowerCase() === name)![1]
      .trim();
  const canonicalRequest = [
    request.method,
    encodeURIComponent(request.path).replace(/%2F/g, '/'),
    '',
    ...names.map((name) => `${name}:${value(name)}`),
    '',
    names.join(';'),
    payloadHash,
  ].join('\n');
  const scope = `${shortDate}/${region}/dynamodb/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', longDate, scope, sha256Hex(canonicalRequest)].join('\n');
  let key = hmac(`AWS4${credentials.secretAccessKey}`, shortDate);
  for (const part of [region, 'dynamodb', 'aws4_request']) key = hmac(key, part);
  const signature = createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
  return {
    ...headers,
    authorization:
      `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, ` +
      `SignedHeaders=${names.join(';')}, Signature=${signature}`,
  };
}

/** Connection errors the SDK retries (its NODEJS_TIMEOUT_ERROR_CODES and NODEJS_NETWORK_ERROR_CODES). */
const TRANSIENT_CONNECTION_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const TRANSIENT_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);
const TRANSIENT_STATUSES = new Set([500, 502, 503, 504]);

/** The SDK retry middleware's classification (isThrottlingError, isTransientError, isServerError), for one GetItem. */
export function retryErrorTypeOf(error: SdkError): RetryErrorType {
  const status = error.$metadata?.httpStatusCode;
  if (status === 429 || THROTTLING_ERROR_NAMES.has(error.name)) return 'THROTTLING';
  const code = (error as { code?: unknown }).code;
  if (
    error.name !== 'AbortError' &&
    (error.$metadata?.clockSkewCorrected === true ||
      TRANSIENT_NAMES.has(error.name) ||
      (typeof code === 'string' && TRANSIENT_CONNECTION_CODES.has(code)) ||
      TRANSIENT_STATUSES.has(status ?? 0))
  )
    return 'TRANSIENT';
  if (status !== undefined && status >= 500 && status <= 599) return 'SERVER_ERROR';
  return 'CLIENT_ERROR';
}

/**
 * The SDK's StandardRetryStrategy decisions for one read: a throttled or transient failure is retried up to
 * `maxAttempts` in all, after a full-jitter backoff on the base delay (the throttling one for a throttle). Its retry
 * quota (500 tokens) cannot run out in one read's three attempts, so it is left out.
 */
export class LeanRetryStrategy implements RetryStrategyV2 {
  constructor(
    private readonly maxAttempts: number,
    private readonly baseDelayMs: number,
  ) {}

  async acquireInitialRetryToken(): Promise<RetryToken> {
    return retryToken(0, 0);
  }

  async refreshRetryTokenForRetry(token: RetryToken, { errorType }: RetryErrorInfo): Promise<RetryToken> {
    const retries = token.getRetryCount();
    if ((errorType !== 'THROTTLING' && errorType !== 'TRANSIENT') || retries + 1 >= this.maxAttempts)
      throw new Error('No retry token available');
    const base = errorType === 'THROTTLING' ? THROTTLED_RETRY_BASE_DELAY_MS : this.baseDelayMs;
    return retryToken(retries + 1, Math.floor(Math.random() * Math.min(base * 2 ** retries, MAXIMUM_RETRY_DELAY_MS)));
  }

  recordSuccess(): void {}
}

const retryToken = (count: number, delay: number): RetryToken => ({
  getRetryCount: () => count,
  getRetryDelay: () => delay,
});

/** A refusal with the service's name, fault and metadata, as the SDK's DynamoDBServiceException carries them. */
function refusalError({ name, message, $fault, $metadata }: LeanRefusal): Error {
  return Object.assign(new Error(message), { name, $fault, $metadata });
}

export interface LeanDeclaredCatalogOptions {
  readonly tableName: string;
  /** The SDK's store: reads the catalog where the environment is not one the short path resolves. */
  readonly fallback: Pick<DeclaredCatalogStore, 'read'>;
  readonly env: NodeJS.ProcessEnv;
  /** Told of a read that failed once its retries are spent (the handler counts it as a failed AWS call). */
  readonly onFailure?: (error: unknown) => void;
  /** Whether a shared config file is at `path`. @default existsSync */
  readonly fileExists?: (path: string) => boolean;
}

/** The declared catalog's read by the short path, or by `fallback` where the environment asks for the SDK's. */
export class LeanDeclaredCatalog implements Pick<DeclaredCatalogStore, 'read'> {
  private readonly route: LeanRoute | undefined;
  private readonly policy: LeanPolicy = {
    strategy: new LeanRetryStrategy(AWS_MAX_ATTEMPTS, DYNAMODB_RETRY_BASE_DELAY_MS),
    classify: retryErrorTypeOf,
    refusal: refusalError,
  };

  constructor(private readonly options: LeanDeclaredCatalogOptions) {
    const settings = leanDynamoDbSettings(options.env, options.fileExists);
    this.route =
      settings === undefined
        ? undefined
        : leanRoute(
            settings.url,
            async (request, signingDate) => sigV4Headers(request, signingDate, settings.region, settings.credentials),
            {},
          );
  }

  /** Whether reads take the short path (else the SDK's store). */
  get lean(): boolean {
    return this.route !== undefined;
  }

  async read(key: string): Promise<ToolDefinition[] | null> {
    if (this.route === undefined) return this.options.fallback.read(key);
    const input = { TableName: this.options.tableName, Key: { [PARTITION_KEY]: { S: key } }, ConsistentRead: true };
    let item: Record<string, { S?: string } | undefined> | undefined;
    try {
      ({ Item: item } = (await leanGetItem(this.route, input, this.policy)) as { Item?: typeof item });
    } catch (error) {
      this.options.onFailure?.(error);
      // As the clients' throttle translation (aws-throttling.ts) answers a throttled call.
      if (isThrottling(error))
        throw new ServiceBusyError('DynamoDB', 'GetItem', THROTTLED_RETRY_AFTER_SECONDS, { cause: error });
      throw error;
    }
    if (item === undefined) return null;
    return unpackToolCatalog(
      item[DECLARED_CATALOG_ATTRIBUTE.tools]?.S as string,
      item[DECLARED_CATALOG_ATTRIBUTE.stateMachines]?.S as string,
    );
  }
}
