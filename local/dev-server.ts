// Serves the MCP HTTP app on loopback with Node's http server (through @hono/node-server), as API Gateway does in AWS.
import { serve, type HttpBindings, type ServerType } from '@hono/node-server';
import type { BearerOwnerResolver } from '../lambda/oauth/bearer-owner.js';
import type { OAuthProxy } from '../lambda/oauth/oauth-proxy-app.js';
import type { McpHttpApp } from '../lambda/protocol/http-app.js';
import { unauthorizedResponse } from '../lambda/protocol/unauthorized.js';
import { portInUseOr } from './free-port.js';

/** The only host names a loopback server should answer to: anything else is a DNS-rebinding attempt. */
export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'] as const;

/** Decides the owner of a local request; `null` answers 401. */
export type OwnerResolver = (request: Request) => string | null;

/** Auth off: every request belongs to one fixed owner. */
export const singleOwner =
  (owner = 'local'): OwnerResolver =>
  () =>
    owner;

/** Static bearer tokens, each naming its owner: lets tests and demos act as several principals. */
export const bearerTokenOwners =
  (tokens: Readonly<Record<string, string>>): OwnerResolver =>
  (request) => {
    const match = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '');
    return (match && Object.hasOwn(tokens, match[1]!) ? tokens[match[1]!] : undefined) ?? null;
  };

export interface DevServer {
  /** The MCP endpoint, e.g. http://127.0.0.1:3000/mcp */
  readonly url: string;
  close(): Promise<void>;
}

export interface DevServerOptions {
  /** @default 0 (any free port) */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** Who a request belongs to. @default singleOwner() */
  readonly resolveOwner?: OwnerResolver;
  /**
   * The endpoint's own authorization server, as deployed: its routes are served beside /mcp, and MCP requests need
   * its access tokens (checked by `bearerOwner`), so `resolveOwner` is not used.
   */
  readonly oauth?: { readonly proxy: OAuthProxy; readonly bearerOwner: BearerOwnerResolver };
}

export function startDevServer(app: McpHttpApp, options: DevServerOptions = {}): Promise<DevServer> {
  const host = options.host ?? '127.0.0.1';
  const resolveOwner = options.resolveOwner ?? singleOwner();
  const oauth = options.oauth;
  const handle = async (request: Request, bindings: HttpBindings): Promise<Response> => {
    if (oauth === undefined) return app.handle(request, resolveOwner(request));
    if (oauth.proxy.serves(new URL(request.url).pathname))
      return oauth.proxy.handle(request, { sourceIp: bindings.incoming.socket.remoteAddress ?? 'unknown' });
    const bearer = await oauth.bearerOwner(request);
    return bearer.owner === null ? unauthorizedResponse(bearer.challenge) : app.handle(request, bearer.owner);
  };
  return new Promise((resolve, reject) => {
    let server: ServerType;
    try {
      server = serve(
        {
          fetch: (request: Request, bindings) => handle(request, bindings as HttpBindings),
          port: options.port ?? 0,
          hostname: host,
        },
        (info) => {
          resolve({
            url: `http://${host}:${info.port}/mcp`,
            close: () =>
              new Promise<void>((done) => {
                if ('closeAllConnections' in server) server.closeAllConnections();
                server.close(() => done());
              }),
          });
        },
      );
      // A port already taken rejects with a PortInUseError: one line naming the port and PORT, not a stack trace.
      server.once('error', (error) => reject(portInUseOr(error, options.port ?? 0, host)));
    } catch (error) {
      reject(error);
    }
  });
}
