// The OpenID provider people actually sign in at (a Cognito user pool in AWS, a local stand-in on the local stack),
// reached as one confidential client through openid-client, a certified relying-party library: discovery, the
// authorization URL with PKCE and a nonce, the code exchange with ID-token checks, and refreshes.
import type { Configuration } from 'openid-client';
import { onceLoaded } from '../core/once-loaded.js';

export interface UpstreamProviderConfig {
  /** The provider's issuer URL; its OpenID discovery document is read from it once. */
  readonly issuer: string;
  readonly clientId: string;
  /** Read when first needed (from Secrets Manager in AWS), so the secret is never in the environment. */
  readonly clientSecret: () => Promise<string>;
  /** Scopes asked for upstream: only who the person is. @default 'openid email' */
  readonly scope?: string;
  /** Plain http, for the local stand-in on loopback only. @default false */
  readonly allowInsecureRequests?: boolean;
}

export interface UpstreamAuthorizationRequest {
  readonly redirectUri: string;
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
}

/** Who signed in, and what lets the proxy ask again later whether they still may. */
export interface UpstreamSignIn {
  readonly subject: string;
  readonly refreshToken?: string;
}

/** The provider refused a refresh (`invalid_grant`): the person may no longer sign in this way. */
export class UpstreamRefusedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UpstreamRefusedError';
  }
}

export interface UpstreamProvider {
  authorizationUrl(request: UpstreamAuthorizationRequest): Promise<URL>;
  /** Exchanges the code the provider sent to `callbackUrl`; throws when the response or its ID token fails a check. */
  signIn(callbackUrl: URL, expected: Omit<UpstreamAuthorizationRequest, 'redirectUri'>): Promise<UpstreamSignIn>;
  /**
   * Refreshes upstream. Throws {@link UpstreamRefusedError} when the provider refuses (the person was disabled, signed
   * out everywhere, ...); any other error means the provider could not be asked.
   */
  refresh(refreshToken: string): Promise<{ readonly refreshToken?: string }>;
}

export function createUpstreamProvider(config: UpstreamProviderConfig): UpstreamProvider {
  const scope = config.scope ?? 'openid email';
  const client = onceLoaded(() => import('openid-client'));
  const configuration = onceLoaded(async (): Promise<Configuration> => {
    const oidc = await client();
    const secret = await config.clientSecret();
    return oidc.discovery(
      new URL(config.issuer),
      config.clientId,
      undefined,
      oidc.ClientSecretBasic(secret),
      config.allowInsecureRequests ? { execute: [oidc.allowInsecureRequests] } : undefined,
    );
  });
  return {
    async authorizationUrl(request) {
      const oidc = await client();
      return oidc.buildAuthorizationUrl(await configuration(), {
        redirect_uri: request.redirectUri,
        response_type: 'code',
        scope,
        state: request.state,
        nonce: request.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(request.codeVerifier),
        code_challenge_method: 'S256',
      });
    },
    async signIn(callbackUrl, expected) {
      const oidc = await client();
      const tokens = await oidc.authorizationCodeGrant(await configuration(), callbackUrl, {
        pkceCodeVerifier: expected.codeVerifier,
        expectedState: expected.state,
        expectedNonce: expected.nonce,
        idTokenExpected: true,
      });
      const subject = tokens.claims()?.sub;
      if (typeof subject !== 'string' || subject === '') throw new Error('The ID token names no subject');
      return { subject, ...(tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {}) };
    },
    async refresh(refreshToken) {
      const oidc = await client();
      try {
        const tokens = await oidc.refreshTokenGrant(await configuration(), refreshToken);
        return tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {};
      } catch (error) {
        if (error instanceof oidc.ResponseBodyError && error.error === 'invalid_grant')
          throw new UpstreamRefusedError('The provider refused the refresh', { cause: error });
        throw error;
      }
    },
  };
}
