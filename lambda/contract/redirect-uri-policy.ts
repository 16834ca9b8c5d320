// Which redirect URIs this authorization server sends codes to. Two checks, both pure: a URI a client registers (or
// lists in its metadata document) must fit the team's policy, and a URI a client sends to /authorize must be one it
// registered, where a loopback URI may name any port (RFC 8252, section 7.3: desktop clients pick a free port per run).

/** The policy entry that admits loopback redirect URIs on any port: http on 127.0.0.1, [::1] or localhost. */
export const LOOPBACK_REDIRECT_URIS = 'loopback';

/**
 * Safe defaults: desktop clients on loopback (Claude Code, Cursor's and VS Code's local callbacks, MCP Inspector on
 * localhost:6274), and the hosted callbacks of claude.ai, ChatGPT, VS Code for the Web and Cursor.
 */
export const DEFAULT_ALLOWED_REDIRECT_URIS: readonly string[] = [
  LOOPBACK_REDIRECT_URIS,
  'https://claude.ai/api/mcp/auth_callback',
  'https://claude.com/api/mcp/auth_callback',
  'https://chatgpt.com/connector_platform_oauth_redirect',
  'https://vscode.dev/redirect',
  'cursor://anysphere.cursor-retrieval/oauth/*',
];

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

function parse(uri: string): URL | null {
  try {
    return new URL(uri);
  } catch {
    return null;
  }
}

function isLoopback(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/**
 * What is wrong with a policy entry, or `null`: `loopback`, an absolute URI without a fragment, or such a URI ending in
 * `*` (a prefix).
 */
export function redirectUriPatternProblem(pattern: string): string | null {
  if (pattern === LOOPBACK_REDIRECT_URIS) return null;
  const literal = pattern.endsWith('*') ? pattern.slice(0, -1) : pattern;
  const url = parse(literal);
  if (url === null)
    return `'${pattern}' is not an absolute URI, a URI prefix ending in '*', or '${LOOPBACK_REDIRECT_URIS}'`;
  if (url.hash !== '' || literal.includes('#')) return `'${pattern}' has a fragment, which redirect URIs must not have`;
  if (url.protocol === 'http:' && !isLoopback(url))
    return `'${pattern}' is plain http on a host other than loopback: codes would cross the network unencrypted`;
  // 'https://app.example.com*' would admit 'https://app.example.com.evil.example/'.
  if (pattern.endsWith('*') && !/^[a-z][a-z0-9+.-]*:\/\/[^/]+\//i.test(literal))
    return `'${pattern}' is a prefix that ends inside the host name: end it after a '/' of the path`;
  return null;
}

/** Whether the policy admits `uri` as a redirect URI: an exact entry, a prefix entry, or loopback on any port. */
export function isAllowedRedirectUri(uri: string, policy: readonly string[]): boolean {
  const url = parse(uri);
  if (url === null || url.hash !== '' || uri.includes('#')) return false;
  if (url.username !== '' || url.password !== '') return false;
  // Only a URI in its normal form: the browser is sent the normal form, so a dot segment, a backslash or a tab that
  // normalizes away would let a prefix entry admit a path outside it.
  if (url.href !== uri || /%2e/i.test(uri)) return false;
  return policy.some((pattern) => {
    if (pattern === LOOPBACK_REDIRECT_URIS) return isLoopback(url);
    if (pattern.endsWith('*')) return uri.startsWith(pattern.slice(0, -1));
    return uri === pattern;
  });
}

/**
 * Whether `requested` is one of the client's `registered` redirect URIs: the same string, or, for a loopback URI, the
 * same but for the port.
 */
export function matchesRegisteredRedirectUri(requested: string, registered: readonly string[]): boolean {
  if (registered.includes(requested)) return true;
  const url = parse(requested);
  if (url === null || !isLoopback(url)) return false;
  return registered.some((candidate) => {
    const known = parse(candidate);
    if (known === null || !isLoopback(known)) return false;
    return (
      known.hostname === url.hostname &&
      known.pathname === url.pathname &&
      known.search === url.search &&
      known.protocol === url.protocol
    );
  });
}
