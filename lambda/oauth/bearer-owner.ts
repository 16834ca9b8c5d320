// Who a request to the MCP endpoint comes from, when the endpoint is its own authorization server: the subject of a
// valid access token minted by the proxy for this resource, or, with a machine client, of a Cognito access token from
// the client-credentials grant (checked with AWS's aws-jwt-verify). Anything else is refused with the MCP
// authorization spec's 401, whose WWW-Authenticate names the protected-resource metadata.
import type { Jwks } from 'aws-jwt-verify/jwk';
import { onceLoaded } from '../core/once-loaded.js';
import { checkAccessToken, type AccessTokenKeys } from './access-tokens.js';
import { OAUTH_PATHS } from '../contract/oauth-paths.js';
import { OAUTH_PROXY_SCOPE } from './oauth-proxy-context.js';

export interface MachineTokenConfig {
  readonly userPoolId: string;
  readonly clientId: string;
  readonly scope: string;
}

/** Checks a machine client's token; throws when it is not one. */
export interface MachineTokenVerifier {
  verify(token: string): Promise<{ readonly sub: string }>;
}

/**
 * Cognito access tokens of one client-credentials client, with one scope, checked by aws-jwt-verify (loaded with the
 * first such token). The pool's keys are fetched from Cognito, unless `jwks` gives them.
 */
export function cognitoMachineTokens(config: MachineTokenConfig, jwks?: Jwks): MachineTokenVerifier {
  const verifier = onceLoaded(async () => {
    const { CognitoJwtVerifier } = await import('aws-jwt-verify');
    const created = CognitoJwtVerifier.create({
      userPoolId: config.userPoolId,
      tokenUse: 'access',
      clientId: config.clientId,
      scope: config.scope,
    });
    if (jwks) created.cacheJwks(jwks);
    return created;
  });
  return { verify: async (token) => (await verifier()).verify(token) };
}

export interface BearerOwnerConfig extends AccessTokenKeys {
  /** With a machine client: its tokens are accepted too. */
  readonly machine?: MachineTokenVerifier;
}

export type BearerOwner = { readonly owner: string } | { readonly owner: null; readonly challenge: string };

/** Resolves the owner of a request from its bearer token. */
export type BearerOwnerResolver = (request: Request) => Promise<BearerOwner>;

function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, '')}"`;
}

export function createBearerOwnerResolver(config: BearerOwnerConfig): BearerOwnerResolver {
  const resourceMetadataUrl = `${config.issuer}${OAUTH_PATHS.protectedResourceMetadata}`;
  const challenge = (error?: string, description?: string): BearerOwner => ({
    owner: null,
    challenge:
      `Bearer resource_metadata=${quoted(resourceMetadataUrl)}, scope=${quoted(OAUTH_PROXY_SCOPE)}` +
      (error ? `, error=${quoted(error)}, error_description=${quoted(description ?? '')}` : ''),
  });
  return async (request) => {
    const header = request.headers.get('authorization')?.trim() ?? '';
    // RFC 6750 3.1: a request with no credentials at all gets the challenge without an error code.
    if (header === '') return challenge();
    const match = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(header);
    if (match === null) return challenge('invalid_request', 'Send the access token as Authorization: Bearer <token>');
    const token = match[1]!;
    const check = await checkAccessToken(config, token);
    if (check.valid) return { owner: check.subject };
    if (config.machine) {
      try {
        return { owner: (await config.machine.verify(token)).sub };
      } catch {
        // Not a machine token either: the proxy's reason is the one worth telling.
      }
    }
    return challenge('invalid_token', check.description);
  };
}
