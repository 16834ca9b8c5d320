// A free TCP port on loopback, for child processes that need a port number up front; and the one-line error when the
// port asked for is taken.
import { createServer } from 'node:net';

export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('No port')),
      );
    });
  });
}

/** A port asked for is taken: its message is the one line `npm start` prints, naming the variable that moves it. */
export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    readonly host: string,
    readonly variable = 'PORT',
  ) {
    super(
      `Port ${port} on ${host} is already in use (is another \`npm start\` running?). ` +
        `Set ${variable} to a free port, e.g. ${variable}=${port + 1} npm start`,
    );
    this.name = 'PortInUseError';
  }
}

/** `error` as a PortInUseError when it is a listen's EADDRINUSE, else `error` itself. */
export function portInUseOr(error: unknown, port: number, host: string, variable?: string): unknown {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE'
    ? new PortInUseError(port, host, variable)
    : error;
}

/**
 * Resolves when `port` can be listened on at `host` (it is listened on and closed at once), rejects with a
 * PortInUseError when it is taken: a check before anything is started, so a second `npm start` fails in a second.
 */
export function ensurePortFree(port: number, host = '127.0.0.1', variable?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (error) => reject(portInUseOr(error, port, host, variable)));
    server.listen(port, host, () => server.close(() => resolve()));
  });
}
