// The declared catalog's read without the AWS SDK (lean-declared-catalog.ts) does what the SDK's DynamoDB client would:
// the same endpoint and signing region from the same environment (or none: then the SDK's store reads), the same
// signature, the same retry decisions. Each is held to the SDK itself, not to a copy of its rules.
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import { SignatureV4 } from '@smithy/signature-v4';
import type { HttpRequest, SdkError } from '@smithy/types';
import { Sha256 } from '@aws-crypto/sha256-js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AWS_MAX_ATTEMPTS } from '../../../lambda/handlers/aws-call-bounds.js';
import {
  DYNAMODB_RETRY_BASE_DELAY_MS,
  LeanDeclaredCatalog,
  LeanRetryStrategy,
  leanDynamoDbSettings,
  retryErrorTypeOf,
  sigV4Headers,
} from '../../../lambda/handlers/lean-declared-catalog.js';
import type { LeanRequest } from '../../../lambda/handlers/lean-get-item-exchange.js';

const NO_CONFIG_FILE = { AWS_CONFIG_FILE: '/nonexistent/aws-config' };
const KEYS = { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret/key+example' };

/** What the SDK's DynamoDB client sends for a GetItem under `env`: its URL parts and its signed headers. */
async function sdkRequest(env: Record<string, string>): Promise<HttpRequest> {
  // An empty value stands for an unset variable.
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value === '' ? undefined : value);
  let sent: HttpRequest | undefined;
  const client = new DynamoDBClient({
    maxAttempts: AWS_MAX_ATTEMPTS,
    requestHandler: {
      handle: async (request: HttpRequest) => {
        sent = request;
        throw Object.assign(new Error('captured'), { name: 'Captured' });
      },
    },
  });
  await client
    .send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'k' } }, ConsistentRead: true }))
    .catch((error: unknown) => {
      if ((error as Error).name !== 'Captured') throw error;
    });
  client.destroy();
  return sent!;
}

/** The region in a signed request's Authorization scope. */
const signingRegionOf = (authorization: string) =>
  /Credential=[^/]+\/\d{8}\/([^/]+)\/dynamodb\//.exec(authorization)![1];

const BASE_ENV = {
  AWS_PROFILE: '',
  AWS_ACCOUNT_ID: '',
  AWS_SESSION_TOKEN: '',
  AWS_ENDPOINT_URL: '',
  AWS_ENDPOINT_URL_DYNAMODB: '',
  AWS_USE_FIPS_ENDPOINT: '',
  AWS_USE_DUALSTACK_ENDPOINT: '',
  AWS_RETRY_MODE: '',
  AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: '',
  AWS_ACCOUNT_ID_ENDPOINT_MODE: '',
  ...NO_CONFIG_FILE,
  ...KEYS,
};

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('leanDynamoDbSettings', () => {
  it.each([
    ['a region of the aws partition', { AWS_REGION: 'us-east-1' }],
    ['another region of it', { AWS_REGION: 'eu-west-3' }],
    ['a session token', { AWS_REGION: 'ap-southeast-2', AWS_SESSION_TOKEN: 'token' }],
    ['DynamoDB’s own endpoint', { AWS_REGION: 'us-east-1', AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:8000' }],
    ['the shared endpoint', { AWS_REGION: 'us-west-2', AWS_ENDPOINT_URL: 'https://ddb.example.com' }],
    [
      'DynamoDB’s before the shared one',
      { AWS_REGION: 'us-west-2', AWS_ENDPOINT_URL: 'https://a.example.com', AWS_ENDPOINT_URL_DYNAMODB: 'http://b:1' },
    ],
    [
      'configured endpoints ignored',
      {
        AWS_REGION: 'us-east-1',
        AWS_ENDPOINT_URL: 'https://a.example.com',
        AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'true',
      },
    ],
    ['FIPS and dual-stack switched off', { AWS_REGION: 'us-east-1', AWS_USE_FIPS_ENDPOINT: 'false' }],
  ])('resolves %s as the SDK does: URL, signing region and credentials', async (_, extra) => {
    const env = { ...BASE_ENV, ...extra };
    const lean = leanDynamoDbSettings(env)!;
    expect(lean).toBeDefined();
    const sdk = await sdkRequest(env);
    expect(`${sdk.protocol}//${sdk.hostname}${sdk.port !== undefined ? `:${sdk.port}` : ''}${sdk.path}`).toBe(
      lean.url.href,
    );
    expect(signingRegionOf(sdk.headers['authorization']!)).toBe(lean.region);
    expect(sdk.headers['authorization']).toContain(`Credential=${lean.credentials.accessKeyId}/`);
    expect(sdk.headers['x-amz-security-token']).toBe(lean.credentials.sessionToken);
  });

  it.each([
    ['no region', { AWS_REGION: '' }],
    ['no key', { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: '' }],
    ['a profile', { AWS_REGION: 'us-east-1', AWS_PROFILE: 'dev' }],
    ['an account ID (account endpoints)', { AWS_REGION: 'us-east-1', AWS_ACCOUNT_ID: '123456789012' }],
    ['FIPS', { AWS_REGION: 'us-east-1', AWS_USE_FIPS_ENDPOINT: 'true' }],
    ['dual-stack', { AWS_REGION: 'us-east-1', AWS_USE_DUALSTACK_ENDPOINT: 'true' }],
    ['adaptive retries', { AWS_REGION: 'us-east-1', AWS_RETRY_MODE: 'adaptive' }],
    ['account endpoints required', { AWS_REGION: 'us-east-1', AWS_ACCOUNT_ID_ENDPOINT_MODE: 'required' }],
    ['the China partition', { AWS_REGION: 'cn-north-1' }],
    ['GovCloud', { AWS_REGION: 'us-gov-west-1' }],
    ['an endpoint that is not a URL', { AWS_REGION: 'us-east-1', AWS_ENDPOINT_URL_DYNAMODB: 'not a url' }],
  ])('leaves %s to the SDK', (_, extra) => {
    expect(leanDynamoDbSettings({ ...BASE_ENV, ...extra })).toBeUndefined();
  });

  it('leaves the read to the SDK where a shared config file may set what the environment does not', () => {
    const env = { ...BASE_ENV, AWS_REGION: 'us-east-1', AWS_CONFIG_FILE: '/home/dev/.aws/config' };
    expect(leanDynamoDbSettings(env, (path) => path === '/home/dev/.aws/config')).toBeUndefined();
    const { AWS_CONFIG_FILE: _, ...withoutPath } = env;
    const seen: string[] = [];
    leanDynamoDbSettings({ ...withoutPath, HOME: '/home/dev' }, (path) => (seen.push(path), false));
    expect(seen).toEqual(['/home/dev/.aws/config']);
  });
});

describe('sigV4Headers', () => {
  const request = (port?: number): LeanRequest => ({
    method: 'POST',
    protocol: 'https:',
    hostname: 'dynamodb.eu-west-3.amazonaws.com',
    ...(port !== undefined ? { port } : {}),
    path: '/',
    query: {},
    headers: {
      host: `dynamodb.eu-west-3.amazonaws.com${port !== undefined ? `:${port}` : ''}`,
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'DynamoDB_20120810.GetItem',
    },
    body: JSON.stringify({ TableName: 't', Key: { pk: { S: 'catalog#declared#é' } }, ConsistentRead: true }),
  });

  it.each([
    ['long-term keys', KEYS, undefined],
    ['a session token', { ...KEYS, sessionToken: 'session/token=' }, undefined],
    ['a port in the host', KEYS, 8443],
  ])('signs as the SDK’s SignatureV4 does, with %s', async (_, credentials, port) => {
    const signingDate = new Date('2026-12-07T04:05:06.789Z');
    const credentialsOf = {
      accessKeyId: credentials.AWS_ACCESS_KEY_ID,
      secretAccessKey: credentials.AWS_SECRET_ACCESS_KEY,
      ...('sessionToken' in credentials ? { sessionToken: credentials.sessionToken } : {}),
    };
    const sdk = new SignatureV4({
      service: 'dynamodb',
      region: 'eu-west-3',
      credentials: credentialsOf,
      sha256: Sha256,
    });
    const expected = (await sdk.sign({ ...request(port), headers: { ...request(port).headers } }, { signingDate }))
      .headers;
    expect(sigV4Headers(request(port), signingDate, 'eu-west-3', credentialsOf)).toEqual(expected);
  });
});

describe('retries', () => {
  /** The SDK retry middleware's classification, from the SDK's own predicates. */
  const sdkClassification = (error: SdkError) =>
    isThrottlingError(error)
      ? 'THROTTLING'
      : isTransientError(error)
        ? 'TRANSIENT'
        : isServerError(error)
          ? 'SERVER_ERROR'
          : 'CLIENT_ERROR';
  const refusal = (name: string, status: number) =>
    Object.assign(new Error(name), {
      name,
      $fault: status >= 500 ? 'server' : 'client',
      $metadata: { httpStatusCode: status },
    });

  it.each([
    ['a throttle', refusal('ProvisionedThroughputExceededException', 400)],
    ['a request-rate throttle', refusal('RequestLimitExceeded', 400)],
    ['an HTTP 429', refusal('HTTP 429', 429)],
    ['a ThrottlingException', refusal('ThrottlingException', 400)],
    ['an internal server error', refusal('InternalServerError', 500)],
    ['a 503', refusal('HTTP 503', 503)],
    ['a 501', refusal('HTTP 501', 501)],
    ['a missing table', refusal('ResourceNotFoundException', 400)],
    ['a bad signature', refusal('UnrecognizedClientException', 400)],
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })],
    ['a reset connection', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })],
    ['a timeout', Object.assign(new Error('late'), { name: 'TimeoutError' })],
    [
      'a clock skew corrected',
      Object.assign(refusal('InvalidSignatureException', 400), {
        $metadata: { httpStatusCode: 400, clockSkewCorrected: true },
      }),
    ],
    ['an abort', Object.assign(new Error('aborted'), { name: 'AbortError' })],
  ])('classifies %s as the SDK does', (_, error) => {
    expect(retryErrorTypeOf(error as SdkError)).toBe(sdkClassification(error as SdkError));
  });

  it('tries a throttled or transient read three times in all, backing off from 25 ms (1 s for a throttle), and a client error once', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    const strategy = new LeanRetryStrategy(AWS_MAX_ATTEMPTS, DYNAMODB_RETRY_BASE_DELAY_MS);
    const first = await strategy.acquireInitialRetryToken();
    const second = await strategy.refreshRetryTokenForRetry(first, { errorType: 'TRANSIENT' });
    const third = await strategy.refreshRetryTokenForRetry(second, { errorType: 'THROTTLING' });
    expect([second.getRetryCount(), second.getRetryDelay()]).toEqual([1, 24]);
    expect([third.getRetryCount(), third.getRetryDelay()]).toEqual([2, 1998]);
    await expect(strategy.refreshRetryTokenForRetry(third, { errorType: 'TRANSIENT' })).rejects.toThrow();
    await expect(strategy.refreshRetryTokenForRetry(first, { errorType: 'CLIENT_ERROR' })).rejects.toThrow();
    await expect(strategy.refreshRetryTokenForRetry(first, { errorType: 'SERVER_ERROR' })).rejects.toThrow();
    vi.restoreAllMocks();
  });

  it('has the retry settings the SDK resolves for the production DynamoDB client', async () => {
    const client = new DynamoDBClient({ region: 'us-east-1', maxAttempts: AWS_MAX_ATTEMPTS });
    const strategy = (await client.config.retryStrategy()) as unknown as { mode: string; baseDelay: number };
    expect(strategy.mode).toBe('standard');
    expect(strategy.baseDelay).toBe(DYNAMODB_RETRY_BASE_DELAY_MS);
    expect(await client.config.maxAttempts()).toBe(AWS_MAX_ATTEMPTS);
    client.destroy();
  });
});

describe('LeanDeclaredCatalog', () => {
  it('reads through the SDK’s store where the environment is not one it resolves', async () => {
    const fallback = { read: vi.fn(async () => []) };
    const catalog = new LeanDeclaredCatalog({
      tableName: 't',
      fallback,
      env: { ...BASE_ENV, AWS_REGION: 'us-east-1', AWS_PROFILE: 'dev' },
    });
    expect(catalog.lean).toBe(false);
    expect(await catalog.read('catalog#declared#v1')).toEqual([]);
    expect(fallback.read).toHaveBeenCalledWith('catalog#declared#v1');
  });
});
