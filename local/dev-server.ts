// Serves the MCP HTTP app on loopback with Node's http server (through @hono/node-server), as API Gateway does in AWS.
import { serve, type ServerType } from '@hono/node-server';
import type { McpHttpApp } from '../lambda/protocol/http-app.js';

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

export function startDevServer(
  app: McpHttpApp,
  options: { port?: number; host?: string; resolveOwner?: OwnerResolver } = {},
): Promise<DevServer> {
  const host = options.host ?? '127.0.0.1';
  const resolveOwner = options.resolveOwner ?? singleOwner();
  return new Promise((resolve, reject) => {
    let server: ServerType;
    try {
      server = serve(
        {
          fetch: (request: Request) => app.handle(request, resolveOwner(request)),
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
      server.once('error', reject);
    } catch (error) {
      reject(error);
    }
  });
}
