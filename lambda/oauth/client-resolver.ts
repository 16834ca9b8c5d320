// Finds the client a request names, in the spec's order after pre-registration: an HTTPS URL is a Client ID Metadata
// Document (fetched, checked, cached), anything else a client registered here by DCR. Either way the answer is the
// same shape, so the endpoints never ask which kind of client they serve.
import { InvalidClientError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import {
  ClientMetadataDocumentError,
  isClientMetadataDocumentUrl,
  type ClientMetadataDocuments,
} from './client-metadata-documents.js';
import type { ClientAuthMethod, OAuthStore } from './oauth-store.js';
import { OAUTH_LIMIT, type SourceLimiter } from './source-limits.js';

export interface KnownClient {
  readonly clientId: string;
  readonly kind: 'metadata-document' | 'registered';
  readonly redirectUris: readonly string[];
  readonly tokenEndpointAuthMethod: ClientAuthMethod;
  readonly clientSecretHash?: string;
  /** The name the client gives itself (unverified), for the consent page. */
  readonly clientName?: string;
}

export interface ClientResolverOptions {
  readonly store: OAuthStore;
  /** Absent when Client ID Metadata Documents are turned off. */
  readonly metadataDocuments?: ClientMetadataDocuments;
  /** Counts the metadata documents each source makes this server fetch. */
  readonly limiter: SourceLimiter;
}

/**
 * Resolves a client ID for a request from `source` (a counting source, see source-limits.ts), or throws
 * `InvalidClientError` with a message that says why, or `TooManyRequestsError` when resolving it would fetch a
 * metadata document past the source's limit.
 */
export type ClientResolver = (clientId: string, now: number, source: string) => Promise<KnownClient>;

export function createClientResolver(options: ClientResolverOptions): ClientResolver {
  return async (clientId, now, source) => {
    if (clientId === '') throw new InvalidClientError('client_id is required');
    if (clientId.startsWith('https://')) {
      if (!options.metadataDocuments)
        throw new InvalidClientError('Client ID Metadata Documents are turned off on this server: register the client');
      if (!isClientMetadataDocumentUrl(clientId))
        throw new InvalidClientError(
          `client_id '${clientId}' is not a valid client metadata document URL: https, with a path, no fragment, ` +
            'no credentials, and written as a URL parser writes it ' +
            '(no dot segments, tabs or newlines, a lowercase host)',
        );
      try {
        const document = await options.metadataDocuments.resolve(clientId, () =>
          options.limiter.admit(OAUTH_LIMIT.metadataFetchesPerSource, source, now),
        );
        return {
          clientId,
          kind: 'metadata-document',
          redirectUris: document.redirectUris,
          tokenEndpointAuthMethod: 'none',
          ...(document.clientName ? { clientName: document.clientName } : {}),
        };
      } catch (error) {
        if (error instanceof ClientMetadataDocumentError) throw new InvalidClientError(error.message);
        throw error;
      }
    }
    const registered = await options.store.getClient(clientId, now);
    if (registered === null) throw new InvalidClientError(`Unknown client '${clientId}': register it first`);
    return {
      clientId,
      kind: 'registered',
      redirectUris: registered.redirectUris,
      tokenEndpointAuthMethod: registered.tokenEndpointAuthMethod,
      ...(registered.clientSecretHash ? { clientSecretHash: registered.clientSecretHash } : {}),
      ...(typeof registered.metadata['client_name'] === 'string'
        ? { clientName: registered.metadata['client_name'] }
        : {}),
    };
  };
}
