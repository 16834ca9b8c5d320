// The OAuth proxy's composition root: its store, upstream provider, client resolver and token keys from one config,
// for the Lambda handler (from the environment) and the local stack (from its stand-ins) alike.
import { positiveInteger, required } from './environment-values.js';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  createClientMetadataDocuments,
  type ClientMetadataDocumentsOptions,
} from '../oauth/client-metadata-documents.js';
import { createClientResolver } from '../oauth/client-resolver.js';
import { DynamoDbOAuthStore } from '../oauth/dynamodb-oauth-store.js';
import { OAUTH_ENV } from '../contract/environment-names.js';
import { createOAuthProxy, type OAuthProxy } from '../oauth/oauth-proxy-app.js';
import type { OAuthProxyLogger } from '../oauth/oauth-proxy-context.js';
import type { RegistrationLimits } from '../oauth/oauth-store.js';
import { DEFAULT_ALLOWED_REDIRECT_URIS, redirectUriPatternProblem } from '../contract/redirect-uri-policy.js';
import { signingKeyFromSecret } from '../oauth/access-tokens.js';
import { createUpstreamProvider, type UpstreamProviderConfig } from '../oauth/upstream-provider.js';
import {
  createSourceLimiter,
  DEFAULT_SOURCE_LIMITS,
  NO_OAUTH_METRICS,
  type OAuthProxyMetrics,
  type SourceLimits,
} from '../oauth/source-limits.js';
import { translateThrottles } from './aws-throttling.js';

export const DEFAULT_REGISTRATION_LIMITS: RegistrationLimits = { perSourcePerHour: 10, perDay: 1000 };

export interface OAuthProxyConfig {
  readonly issuer: string;
  readonly resource: string;
  readonly tableName: string;
  readonly signingKey: () => Promise<Uint8Array>;
  readonly upstream: UpstreamProviderConfig;
  readonly allowedRedirectUris: readonly string[];
  /** `false` turns Client ID Metadata Documents off; an object tunes their fetch (the local stack only). */
  readonly clientIdMetadataDocuments: boolean | ClientMetadataDocumentsOptions;
  /** Absent turns Dynamic Client Registration off. */
  readonly registration?: RegistrationLimits;
  /** @default DEFAULT_SOURCE_LIMITS */
  readonly sourceLimits?: SourceLimits;
}

/** What the proxy works with besides its config. */
export interface OAuthProxyPorts {
  readonly dynamoDb: DynamoDBClient;
  readonly logger: OAuthProxyLogger;
  /** @default none */
  readonly metrics?: OAuthProxyMetrics;
  /** @default Date.now */
  readonly now?: () => number;
}

export function createOAuthProxyFromConfig(config: OAuthProxyConfig, ports: OAuthProxyPorts): OAuthProxy {
  const { dynamoDb, logger, metrics = NO_OAUTH_METRICS, now = Date.now } = ports;
  // A throttled table read or write answers 503 with when to retry (oauth-proxy-app.ts), not a 500.
  translateThrottles(dynamoDb, 'DynamoDB');
  const store = new DynamoDbOAuthStore({
    client: DynamoDBDocumentClient.from(dynamoDb, { marshallOptions: { removeUndefinedValues: true } }),
    tableName: config.tableName,
  });
  const documents = config.clientIdMetadataDocuments;
  const issuer = config.issuer.replace(/\/+$/, '');
  const limiter = createSourceLimiter({ store, limits: config.sourceLimits ?? DEFAULT_SOURCE_LIMITS, metrics });
  return createOAuthProxy({
    issuer,
    resource: config.resource,
    store,
    upstream: createUpstreamProvider(config.upstream),
    clients: createClientResolver({
      store,
      limiter,
      ...(documents === false
        ? {}
        : { metadataDocuments: createClientMetadataDocuments(documents === true ? {} : documents) }),
    }),
    tokens: { issuer, resource: config.resource, signingKey: config.signingKey },
    allowedRedirectUris: config.allowedRedirectUris,
    clientIdMetadataDocuments: documents !== false,
    ...(config.registration ? { registration: config.registration } : {}),
    limiter,
    metrics,
    now,
    logger,
  });
}

/** The deployed proxy's config; secrets are read through `secret` (Secrets Manager) when first needed. */
export function oauthProxyConfigFromEnvironment(
  env: NodeJS.ProcessEnv,
  secret: (arn: string) => () => Promise<string>,
): OAuthProxyConfig {
  const allowedRedirectUris = env[OAUTH_ENV.allowedRedirectUris]
    ? (JSON.parse(env[OAUTH_ENV.allowedRedirectUris]!) as string[])
    : DEFAULT_ALLOWED_REDIRECT_URIS;
  const problems = allowedRedirectUris.map(redirectUriPatternProblem).filter((problem) => problem !== null);
  if (problems.length > 0) throw new Error(`${OAUTH_ENV.allowedRedirectUris} is invalid: ${problems.join('; ')}`);
  return {
    issuer: required(env, OAUTH_ENV.issuer),
    resource: required(env, OAUTH_ENV.resource),
    tableName: required(env, OAUTH_ENV.tableName),
    signingKey: signingKeyFromSecret(secret(required(env, OAUTH_ENV.signingKeySecretArn))),
    upstream: {
      issuer: required(env, OAUTH_ENV.upstreamIssuer),
      clientId: required(env, OAUTH_ENV.upstreamClientId),
      clientSecret: secret(required(env, OAUTH_ENV.upstreamClientSecretArn)),
    },
    allowedRedirectUris,
    clientIdMetadataDocuments: env[OAUTH_ENV.clientIdMetadataDocuments] !== 'false',
    ...(env[OAUTH_ENV.dynamicClientRegistration] === 'false'
      ? {}
      : {
          registration: {
            perSourcePerHour: positiveInteger(
              env,
              OAUTH_ENV.registrationsPerSourcePerHour,
              DEFAULT_REGISTRATION_LIMITS.perSourcePerHour,
            ),
            perDay: positiveInteger(env, OAUTH_ENV.registrationsPerDay, DEFAULT_REGISTRATION_LIMITS.perDay),
          },
        }),
  };
}
