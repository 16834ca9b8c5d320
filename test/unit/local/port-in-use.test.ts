// A second `npm start` on a taken port: one line naming the port and PORT, not a Node stack trace.
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startDevServer } from '../../../local/dev-server.js';
import { ensurePortFree, PortInUseError } from '../../../local/free-port.js';
import type { McpHttpApp } from '../../../lambda/protocol/http-app.js';

const app = { handle: () => Promise.resolve(new Response('ok')) } as unknown as McpHttpApp;

let taken: Server | undefined;
afterEach(() => new Promise<void>((done) => (taken ? taken.close(() => done()) : done())));

function takePort(): Promise<number> {
  return new Promise((resolve) => {
    taken = createServer();
    taken.listen(0, '127.0.0.1', () => resolve((taken!.address() as { port: number }).port));
  });
}

describe('a port already in use', () => {
  it('the dev server rejects with one line naming the port and PORT', async () => {
    const port = await takePort();
    const error = await startDevServer(app, { port }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PortInUseError);
    const message = (error as Error).message;
    expect(message).toBe(
      `Port ${port} on 127.0.0.1 is already in use (is another \`npm start\` running?). ` +
        `Set PORT to a free port, e.g. PORT=${port + 1} npm start`,
    );
    expect(message).not.toContain('\n');
  });

  it('is found before anything starts', async () => {
    const port = await takePort();
    await expect(ensurePortFree(port)).rejects.toThrow(PortInUseError);
    await expect(ensurePortFree(port, '127.0.0.1', 'STEP_FUNCTIONS_PORT')).rejects.toThrow(
      `Set STEP_FUNCTIONS_PORT to a free port, e.g. STEP_FUNCTIONS_PORT=${port + 1} npm start`,
    );
  });

  it('a free port passes the check and is left free', async () => {
    const port = await takePort();
    await new Promise<void>((done) => taken!.close(() => done()));
    taken = undefined;
    await ensurePortFree(port);
    const server = await startDevServer(app, { port });
    expect(server.url).toBe(`http://127.0.0.1:${port}/mcp`);
    await server.close();
  });
});
