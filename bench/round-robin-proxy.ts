// A reverse proxy on loopback that hands each request to the next of several upstream servers in turn, as a load
// balancer in front of several instances would: the processes share nothing but the stand-ins, so whichever serves a
// request must find the task in the table. Used by bench/scale.ts.
import { Agent, createServer, request as forward } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobinProxy {
  /** The proxy's URL for the upstreams' path, e.g. http://127.0.0.1:4321/mcp */
  readonly url: string;
  close(): Promise<void>;
}

/** Starts a proxy over `upstreams` (URLs of the same path on several servers); requests go to each in turn. */
export async function startRoundRobinProxy(upstreams: readonly string[]): Promise<RoundRobinProxy> {
  if (upstreams.length === 0) throw new Error('A round-robin proxy needs at least one upstream');
  const targets = upstreams.map((upstream) => new URL(upstream));
  // Kept-alive connections, as a load balancer keeps them: a new TCP connection per request would be what is measured.
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  let next = 0;
  const server = createServer((incoming, outgoing) => {
    const target = targets[next++ % targets.length]!;
    const upstream = forward(
      {
        agent,
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    upstream.once('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502).end();
      else outgoing.destroy();
    });
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${targets[0]!.pathname}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}
