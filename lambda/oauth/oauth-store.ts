// The OAuth proxy's persistence contract: registered clients, pending authorizations, authorization codes, refresh
// tokens and the registration counters. Every record has an end; a read past it answers as if the record were gone.
// Codes and refresh tokens are keyed by their SHA-256, so the table never holds a usable token.

/** How a client authenticates at the token endpoint (RFC 7591 `token_endpoint_auth_method`). */
export const CLIENT_AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'] as const;
export type ClientAuthMethod = (typeof CLIENT_AUTH_METHODS)[number];

/** A client registered by Dynamic Client Registration (RFC 7591). */
export interface RegisteredClient {
  readonly clientId: string;
  readonly redirectUris: readonly string[];
  readonly tokenEndpointAuthMethod: ClientAuthMethod;
  /** SHA-256 (hex) of the client secret; only for confidential clients. */
  readonly clientSecretHash?: string;
  /** The registered metadata as accepted (echoed back by the registration response). */
  readonly metadata: Readonly<Record<string, unknown>>;
  /** Epoch ms. */
  readonly issuedAt: number;
  /** Epoch ms: a registration nobody uses ends early; each token issued to it moves this later. */
  readonly expiresAt: number;
}

/** What the client asked for at /authorize, kept while the person signs in upstream. Keyed by the upstream `state`. */
export interface PendingAuthorization {
  readonly id: string;
  readonly clientId: string;
  readonly redirectUri: string;
  /** The client's PKCE S256 challenge. */
  readonly codeChallenge: string;
  readonly resource: string;
  readonly scope: string;
  /** The client's own `state`, returned to it untouched. */
  readonly clientState?: string;
  /** The proxy's own PKCE verifier for the upstream code exchange. */
  readonly upstreamCodeVerifier: string;
  readonly upstreamNonce: string;
  /**
   * SHA-256 of the consent cookie set in the browser that was shown the consent page: only that browser may consent
   * and complete the sign-in, so a link to a sign-in someone else started is worth nothing.
   */
  readonly browserBindingHash: string;
  /** Epoch ms. */
  readonly expiresAt: number;
}

/** What a person granted: carried by an authorization code, then by each refresh token that follows it. */
export interface Grant {
  /** Names the grant across its code and every refresh token, so that a replay of any one of them revokes it all. */
  readonly grantId: string;
  readonly clientId: string;
  readonly resource: string;
  readonly scope: string;
  /** The upstream subject (Cognito `sub`): the owner of every task made with tokens from this grant. */
  readonly subject: string;
  /** The upstream refresh token, so a refresh re-checks the person upstream; absent when upstream gave none. */
  readonly upstreamRefreshToken?: string;
}

/** An authorization code: single use, short-lived, bound to the client's PKCE challenge and redirect URI. */
export interface AuthorizationCode extends Grant {
  /** SHA-256 (hex) of the code. */
  readonly codeHash: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  /** Epoch ms. */
  readonly expiresAt: number;
}

/** A refresh token: single use (each refresh rotates it). */
export interface RefreshToken extends Grant {
  /** SHA-256 (hex) of the token. */
  readonly tokenHash: string;
  /** Epoch ms. */
  readonly expiresAt: number;
}

/**
 * What redeeming a code or refresh token found. `reused` means it was redeemed before: it was probably stolen, and the
 * grant it belongs to must be revoked (RFC 6749 4.1.2, RFC 9700 4.14.2).
 */
export type Redemption<T> =
  | { readonly outcome: 'redeemed'; readonly record: T }
  | { readonly outcome: 'reused'; readonly record: T }
  | { readonly outcome: 'unknown' };

/** The grant was revoked (a replay was seen): nothing more may be issued for it. */
export class GrantRevokedError extends Error {
  constructor(readonly grantId: string) {
    super(`Grant ${grantId} is revoked`);
    this.name = 'GrantRevokedError';
  }
}

/** Which registration limit a registration would pass. */
export type RegistrationLimit = 'per-source' | 'total';

export interface RegistrationLimits {
  readonly perSourcePerHour: number;
  readonly perDay: number;
}

export interface OAuthStore {
  /** Stores a new client. MUST NOT overwrite an existing client ID. */
  putClient(client: RegisteredClient): Promise<void>;
  /** The client, or `null` when it is unknown or past its end. */
  getClient(clientId: string, now: number): Promise<RegisteredClient | null>;
  /** Moves a client's end to `expiresAt` (never earlier than it is). A missing client is ignored. */
  extendClient(clientId: string, expiresAt: number): Promise<void>;
  /**
   * Counts one registration from `source` against both limits, atomically: either both counters move or neither.
   * Returns the limit that refused it, or `null` when the registration may go ahead.
   */
  countRegistration(source: string, now: number, limits: RegistrationLimits): Promise<RegistrationLimit | null>;
  /**
   * Counts one `kind` of request from `source` in the current hour, as {@link countRegistration} counts per source.
   * Returns `false`, and counts nothing, when `perHour` were already counted this hour.
   */
  countFromSource(kind: string, source: string, now: number, perHour: number): Promise<boolean>;

  putPendingAuthorization(pending: PendingAuthorization): Promise<void>;
  /** The pending authorization, left in place; `null` when unknown, taken or past its end. */
  getPendingAuthorization(id: string, now: number): Promise<PendingAuthorization | null>;
  /** Removes and returns the pending authorization; `null` when unknown, already taken or past its end. */
  takePendingAuthorization(id: string, now: number): Promise<PendingAuthorization | null>;

  putAuthorizationCode(code: AuthorizationCode): Promise<void>;
  /**
   * Redeems a code once: the first call for a live code answers `redeemed` and marks it used (the used code keeps no
   * upstream refresh token), a later call within a day answers `reused`, and a code that is unknown or past its end
   * answers `unknown`.
   */
  redeemAuthorizationCode(codeHash: string, now: number): Promise<Redemption<AuthorizationCode>>;

  /**
   * Stores a refresh token as its grant's current one. Throws {@link GrantRevokedError} when the grant was revoked,
   * and stores nothing then.
   */
  putRefreshToken(token: RefreshToken): Promise<void>;
  /** Redeems a refresh token once, as {@link redeemAuthorizationCode} does a code. */
  redeemRefreshToken(tokenHash: string, now: number): Promise<Redemption<RefreshToken>>;
  /** Makes a redeemed refresh token good again, as it was: for a refresh that failed through no fault of the client. */
  restoreRefreshToken(token: RefreshToken): Promise<void>;
  /** Revokes a grant: its current refresh token stops working and no new one can be stored for it. */
  revokeGrant(grantId: string, now: number): Promise<void>;
}
