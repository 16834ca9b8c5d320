// The RFC 7591 errors the MCP SDK's OAuth error classes lack; the rest come from the SDK itself.
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';

/** RFC 7591 section 3.2.2: a redirect URI the server does not accept. */
export class InvalidRedirectUriError extends OAuthError {
  static override errorCode = 'invalid_redirect_uri';
}
