// DynamoDB Local ends with the process that started it, however that process ends. An orderly exit stops it from an
// exit handler; a process killed outright (SIGKILL, which tsx sends a script slow to report a relayed Ctrl-C) runs no
// handler, and its JVM used to stay, holding its port and database: the next `npm start` on the same port found it
// taken. Linux only, where the kernel ends it (util-linux's setpriv).
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { describe, expect, it, vi } from 'vitest';

/** Whether something accepts connections at `endpoint`. */
function listening(endpoint: string): Promise<boolean> {
  const { hostname, port } = new URL(endpoint);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const HOLDER = `
  import { startDynamoDbLocal } from './local/dynamodb-local.ts';
  const local = await startDynamoDbLocal();
  console.log(JSON.stringify({ endpoint: local.endpoint }));
  setInterval(() => {}, 60_000);`;

describe.runIf(process.platform === 'linux')('DynamoDB Local started by a process', () => {
  it('ends when that process is killed with SIGKILL', async () => {
    const holder = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', HOLDER], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const [line] = await createInterface({ input: holder.stdout })
        [Symbol.asyncIterator]()
        .next()
        .then((next) => [next.value as string | undefined]);
      const { endpoint } = JSON.parse(line ?? 'null') as { endpoint: string };
      expect(await listening(endpoint)).toBe(true);

      holder.kill('SIGKILL');

      await vi.waitUntil(async () => !(await listening(endpoint)), { timeout: 30_000, interval: 200 });
    } finally {
      holder.kill('SIGKILL');
    }
  }, 90_000);
});
