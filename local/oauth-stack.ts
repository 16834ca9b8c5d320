// The endpoint's own authorization server on the local stack, as deployed but for its upstream: a real OpenID
// provider (oidc-provider, local/oauth-upstream.ts) stands in for Cognito, and DynamoDB Local holds the proxy's table.
// The proxy code, the token checks and the table layout are the ones the Lambda functions run.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { randomBytes } from 'node:crypto';
import { createBearerOwnerResolver, type BearerOwnerResolver } from '../lambda/oauth/bearer-owner.js';
import type { ClientMetadataDocumentsOptions } from '../lambda/oauth/client-metadata-documents.js';
import { OAUTH_PATHS } from '../lambda/contract/oauth-paths.js';
import type { OAuthProxy } from '../lambda/oauth/oauth-proxy-app.js';
import type { OAuthProxyLogger } from '../lambda/oauth/oauth-proxy-context.js';
import type { RegistrationLimits } from '../lambda/oauth/oauth-store.js';
import type { OAuthProxyMetrics, SourceLimits } from '../lambda/oauth/source-limits.js';
import { DEFAULT_ALLOWED_REDIRECT_URIS } from '../lambda/contract/redirect-uri-policy.js';
import { createOAuthProxyFromConfig, DEFAULT_REGISTRATION_LIMITS } from '../lambda/handlers/oauth-proxy-core.js';
import { startOAuthUpstream, type OAuthUpstream } from './oauth-upstream.js';

export interface LocalOAuthOptions {
  /** Where the dev server will listen, e.g. http://127.0.0.1:3000: the issuer. */
  readonly baseUrl: string;
  /** The MCP URL (`<baseUrl>/mcp`). */
  readonly resource: string;
  readonly dynamoDb: DynamoDBClient;
  /** A table made with createOAuthTable (local/dynamodb-local-tables.ts). */
  readonly tableName: string;
  /** @default DEFAULT_ALLOWED_REDIRECT_URIS */
  readonly allowedRedirectUris?: readonly string[];
  /** `false` turns CIMD off; options tune the fetch (tests trust a self-signed certificate). @default true */
  readonly clientIdMetadataDocuments?: boolean | ClientMetadataDocumentsOptions;
  /** `false` turns DCR off. @default DEFAULT_REGISTRATION_LIMITS */
  readonly registration?: RegistrationLimits | false;
  /** Sign-ins and metadata document fetches per source. @default DEFAULT_SOURCE_LIMITS */
  readonly sourceLimits?: SourceLimits;
  readonly logger?: OAuthProxyLogger;
  /** Where refusals for a limit are counted, for tests. @default none */
  readonly metrics?: OAuthProxyMetrics;
  /** Clock of the proxy (codes, refresh tokens, registrations), for tests. @default Date.now */
  readonly now?: () => number;
  /** The access-token signing key, for tests that mint tokens of their own. @default 32 random bytes per run */
  readonly signingKey?: Uint8Array;
}

export interface LocalOAuth {
  readonly proxy: OAuthProxy;
  readonly bearerOwner: BearerOwnerResolver;
  /** The Cognito stand-in, with its one test user. */
  readonly upstream: OAuthUpstream;
  readonly issuer: string;
  close(): Promise<void>;
}

const quietLogger: OAuthProxyLogger = { info: () => {}, warn: () => {}, error: () => {} };

export async function startLocalOAuth(options: LocalOAuthOptions): Promise<LocalOAuth> {
  const issuer = options.baseUrl.replace(/\/+$/, '');
  const upstream = await startOAuthUpstream({ redirectUris: [`${issuer}${OAUTH_PATHS.callback}`] });
  // A fresh key per run: tokens from an earlier run are refused, as after a key rotation.
  const key = options.signingKey ?? randomBytes(32);
  const signingKey = async () => key;
  const registration = options.registration ?? DEFAULT_REGISTRATION_LIMITS;
  const proxy = createOAuthProxyFromConfig(
    {
      issuer,
      resource: options.resource,
      tableName: options.tableName,
      signingKey,
      upstream: {
        issuer: upstream.issuer,
        clientId: upstream.clientId,
        clientSecret: async () => upstream.clientSecret,
        allowInsecureRequests: true,
      },
      allowedRedirectUris: options.allowedRedirectUris ?? DEFAULT_ALLOWED_REDIRECT_URIS,
      clientIdMetadataDocuments: options.clientIdMetadataDocuments ?? true,
      ...(registration === false ? {} : { registration }),
      ...(options.sourceLimits ? { sourceLimits: options.sourceLimits } : {}),
    },
    {
      dynamoDb: options.dynamoDb,
      logger: options.logger ?? quietLogger,
      ...(options.metrics ? { metrics: options.metrics } : {}),
      ...(options.now ? { now: options.now } : {}),
    },
  );
  const bearerOwner = createBearerOwnerResolver({
    issuer,
    resource: options.resource,
    signingKey,
  });
  return { proxy, bearerOwner, upstream, issuer, close: () => upstream.close() };
}
