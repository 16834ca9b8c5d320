// OAuth Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, used by the MCP 2025-11-25
// authorization spec): a client_id that is an HTTPS URL names a JSON document, served by the client, that describes
// it. This module tells such a client_id apart, fetches the document through safeFetch (the URL is a stranger's
// choice), checks it, and caches it for a while so every /authorize does not become an outbound request.

import { OAuthClientMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import { OutboundFetchError, safeFetch } from '../outbound/safe-fetch.js';
import type { SafeFetchOptions, SafeFetchResponse } from '../outbound/safe-fetch.js';

/** A client metadata document that passed every check. */
export interface ClientMetadataDocument {
  /** The document's URL, which is also its `client_id`. */
  readonly clientId: string;
  readonly redirectUris: readonly string[];
  readonly clientName?: string;
  /** The document's fields as the MCP SDK's `OAuthClientMetadataSchema` reads them, plus `client_id`. */
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** A client_id URL whose document could not be fetched or is not acceptable; `message` says why, for a person. */
export class ClientMetadataDocumentError extends Error {
  override readonly name = 'ClientMetadataDocumentError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export interface ClientMetadataDocuments {
  /**
   * The checked document for `clientId`, from the cache while it is fresh. Concurrent calls for one URL share one
   * fetch. Rejects with {@link ClientMetadataDocumentError}; failures are not cached, so the next call tries again.
   * `admitFetch` is awaited when the cache cannot answer, before any request goes out; what it throws, `resolve`
   * rejects with, and nothing is fetched.
   */
  resolve(clientId: string, admitFetch?: () => Promise<void>): Promise<ClientMetadataDocument>;
}

export interface ClientMetadataDocumentsOptions {
  /** Passed to safeFetch: `allowLoopback` (local stack and tests only), `ca`, `lookup`. */
  readonly fetch?: Pick<SafeFetchOptions, 'allowLoopback' | 'ca' | 'lookup'>;
  /** @default 5000 */
  readonly timeoutMs?: number;
  /** @default 5120, the draft's recommended limit of 5 KB */
  readonly maxBytes?: number;
  /**
   * How long a document is kept when its response has no `Cache-Control: max-age`. A max-age is honoured, clamped to
   * [60 s, 24 h]; `no-store` (or `no-cache`) means not kept at all.
   * @default 300000 (5 minutes)
   */
  readonly cacheTtlMs?: number;
  /** @default 500; past it the oldest entry goes */
  readonly maxEntries?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

const DEFAULTS = {
  timeoutMs: 5000,
  maxBytes: 5120,
  cacheTtlMs: 5 * 60_000,
  maxEntries: 500,
} as const;

const MIN_MAX_AGE_MS = 60_000;
const MAX_MAX_AGE_MS = 24 * 60 * 60_000;

/**
 * Whether `clientId` has the shape of a client metadata document URL: https, a path other than `/`, no fragment, no
 * user name or password, and written exactly as the URL parser writes it. Says nothing about whether the document
 * exists.
 */
export function isClientMetadataDocumentUrl(clientId: string): boolean {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '') return false;
  // `#` alone leaves url.hash empty, so look at the string.
  if (clientId.includes('#')) return false;
  if (url.pathname === '/' || url.pathname === '') return false;
  // One document, one spelling: the parser drops tabs and newlines, resolves `.` and `..` segments (percent-encoded
  // too), turns `\` into `/` and lowercases the host, so any text it would rewrite names a document other than the one
  // it says, and is refused rather than normalised.
  return url.href === clientId;
}

/** Failures whose detail is about the document itself, not about the network it was fetched across. */
const TOLD_REASONS: ReadonlySet<string> = new Set(['not-https', 'redirect', 'too-large']);

function fail(clientId: string, problem: string, cause?: unknown): never {
  throw new ClientMetadataDocumentError(`The client metadata document at ${clientId} ${problem}`, { cause });
}

/** Checks a fetched response against the draft and this server's limits, returning the document. */
function readDocument(clientId: string, response: SafeFetchResponse): ClientMetadataDocument {
  if (response.status !== 200) fail(clientId, `answered HTTP ${response.status}, not 200`);
  let json: unknown;
  try {
    json = JSON.parse(response.body);
  } catch (error) {
    fail(clientId, 'is not JSON', error);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) fail(clientId, 'is not a JSON object');
  const raw = json as Record<string, unknown>;

  if (raw.client_id !== clientId) {
    fail(clientId, `lists client_id ${JSON.stringify(raw.client_id ?? null)}, not its own URL`);
  }
  // A document anyone can read cannot hold a secret (draft, section 4.1).
  if ('client_secret' in raw || 'client_secret_expires_at' in raw) {
    fail(clientId, 'contains client_secret or client_secret_expires_at: a public document cannot hold a secret');
  }
  if (raw.redirect_uris === undefined || (Array.isArray(raw.redirect_uris) && raw.redirect_uris.length === 0)) {
    fail(clientId, 'lists no redirect_uris');
  }
  const parsed = OAuthClientMetadataSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.map(String).join('.') || '(document)'}: ${issue.message}`,
    );
    fail(clientId, `is not valid client metadata (${problems.join('; ')})`, parsed.error);
  }
  const metadata = parsed.data;
  const authMethod = metadata.token_endpoint_auth_method;
  if (authMethod !== undefined && authMethod !== 'none') {
    fail(
      clientId,
      `asks for token_endpoint_auth_method '${authMethod}': only public clients ('none') are supported with ` +
        'client metadata documents',
    );
  }
  if (metadata.grant_types !== undefined && !metadata.grant_types.includes('authorization_code')) {
    fail(clientId, `lists grant_types ${JSON.stringify(metadata.grant_types)} without 'authorization_code'`);
  }
  if (metadata.response_types !== undefined && !metadata.response_types.includes('code')) {
    fail(clientId, `lists response_types ${JSON.stringify(metadata.response_types)} without 'code'`);
  }
  return {
    clientId,
    redirectUris: metadata.redirect_uris,
    ...(metadata.client_name === undefined ? {} : { clientName: metadata.client_name }),
    metadata: { ...metadata, client_id: clientId },
  };
}

/** How long to keep a response, from its Cache-Control; 0 means not at all. */
function cacheLifetimeMs(cacheControl: string | undefined, defaultMs: number): number {
  const directives = (cacheControl ?? '')
    .toLowerCase()
    .split(',')
    .map((part) => part.trim());
  // no-cache means "revalidate before each use", which a cache without revalidation can only honour by not keeping it.
  if (directives.includes('no-store') || directives.includes('no-cache')) return 0;
  const maxAge = directives.find((part) => part.startsWith('max-age='));
  const seconds = maxAge === undefined ? NaN : Number(maxAge.slice('max-age='.length));
  if (!Number.isFinite(seconds) || seconds < 0) return defaultMs;
  return Math.min(MAX_MAX_AGE_MS, Math.max(MIN_MAX_AGE_MS, seconds * 1000));
}

/** Resolves client_id URLs to checked documents, with an in-memory cache per instance (one per Lambda container). */
export function createClientMetadataDocuments(options: ClientMetadataDocumentsOptions = {}): ClientMetadataDocuments {
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const maxBytes = options.maxBytes ?? DEFAULTS.maxBytes;
  const cacheTtlMs = options.cacheTtlMs ?? DEFAULTS.cacheTtlMs;
  const maxEntries = options.maxEntries ?? DEFAULTS.maxEntries;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { document: ClientMetadataDocument; expiresAt: number }>();
  const inFlight = new Map<string, Promise<ClientMetadataDocument>>();

  async function fetchDocument(clientId: string): Promise<ClientMetadataDocument> {
    let response: SafeFetchResponse;
    try {
      response = await safeFetch(
        clientId,
        { method: 'GET', headers: { accept: 'application/json' } },
        { ...options.fetch, timeoutMs, maxBytes },
      );
    } catch (error) {
      // Where a fetch failed (an address refused, a port closed or silent) is kept from the person who sees this, so
      // the server cannot be used to map networks; the cause keeps it for the logs.
      const told = error instanceof OutboundFetchError && TOLD_REASONS.has(error.reason) ? `: ${error.message}` : '';
      fail(clientId, `could not be fetched${told}`, error);
    }
    const document = readDocument(clientId, response);
    const lifetimeMs = cacheLifetimeMs(response.headers['cache-control'], cacheTtlMs);
    if (lifetimeMs > 0) {
      // Map keeps insertion order, so the first key is the oldest entry.
      cache.delete(clientId);
      cache.set(clientId, { document, expiresAt: now() + lifetimeMs });
      while (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
    }
    return document;
  }

  return {
    async resolve(clientId, admitFetch) {
      if (!isClientMetadataDocumentUrl(clientId)) {
        throw new ClientMetadataDocumentError(
          `'${clientId}' is not a client metadata document URL (https, a path, no fragment, no credentials, ` +
            'written as a URL parser writes it)',
        );
      }
      // Only the default port: a document on any other port is no client's, and asking would probe ports.
      if (new URL(clientId).port !== '' && !options.fetch?.allowLoopback)
        throw new ClientMetadataDocumentError(`The client metadata document at ${clientId} must be on port 443`);
      const cached = cache.get(clientId);
      if (cached !== undefined) {
        if (cached.expiresAt > now()) return cached.document;
        cache.delete(clientId);
      }
      // Admitted before joining a fetch in flight too: a join may count as a fetch, a fetch never goes uncounted.
      await admitFetch?.();
      const pending = inFlight.get(clientId);
      if (pending !== undefined) return pending;
      const fetching = fetchDocument(clientId).finally(() => inFlight.delete(clientId));
      inFlight.set(clientId, fetching);
      return fetching;
    },
  };
}
