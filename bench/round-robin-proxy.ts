// A reverse proxy on loopback that hands each request to the next of several upstream servers in turn, as a load
// balancer in front of several instances would: the processes share nothing but the stand-ins, so whichever serves a
// request must find the task in the table. With `perUpstream` it also serves as Lambda does: an instance takes one
// request at a time (perUpstream 1), so N upstreams are a function with N concurrent executions, and a request that
// finds every one busy waits for the first to be free. Used by bench/scale.ts.
import { Agent, createServer, request as forward } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobinProxy {
  /** The proxy's URL for the upstreams' path, e.g. http://127.0.0.1:4321/mcp */
  readonly url: string;
  close(): Promise<void>;
}

export interface RoundRobinProxyOptions {
  /** Requests one upstream serves at once; the rest wait in line, first come first served. @default no limit */
  readonly perUpstream?: number;
}

/** Starts a proxy over `upstreams` (URLs of the same path on several servers); requests go to each in turn. */
export async function startRoundRobinProxy(
  upstreams: readonly string[],
  options: RoundRobinProxyOptions = {},
): Promise<RoundRobinProxy> {
  if (upstreams.length === 0) throw new Error('A round-robin proxy needs at least one upstream');
  const targets = upstreams.map((upstream) => new URL(upstream));
  const limit = options.perUpstream ?? Infinity;
  // Kept-alive connections, as a load balancer keeps them: a new TCP connection per request would be what is measured.
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const busy = targets.map(() => 0);
  const waiting: Array<(index: number) => void> = [];
  let next = 0;
  /** The next upstream in turn with room, once there is one. */
  const acquire = (): Promise<number> => {
    for (let tried = 0; tried < targets.length; tried++) {
      const index = next++ % targets.length;
      if (busy[index]! < limit) {
        busy[index]!++;
        return Promise.resolve(index);
      }
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  /** A request done: its place goes to the first in line, or back to its upstream. */
  const release = (index: number): void => {
    const first = waiting.shift();
    if (first !== undefined) first(index);
    else busy[index]!--;
  };
  const server = createServer((incoming, outgoing) => {
    void acquire().then((index) => {
      const target = targets[index]!;
      outgoing.once('close', () => release(index));
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
