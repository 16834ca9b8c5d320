// The mcp-tasks CLI as a real child process: the esbuild bundle the package's bin points at, run with plain node,
// once with pipes (what scripts see) and once inside tmux (a real pseudo-terminal, what a person sees).
import { execFile, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { buildCli } from '../../cli/build-cli.js';

const execFileAsync = promisify(execFile);

/** Builds the bundle into a fresh folder (a developer's dist/ is left alone); returns its path and a cleanup. */
export async function buildCliBundle(): Promise<{ bundle: string; dispose(): Promise<void> }> {
  const folder = await mkdtemp(join(tmpdir(), 'mcp-tasks-cli-'));
  const bundle = await buildCli(join(folder, 'mcp-tasks.js'));
  return { bundle, dispose: () => rm(folder, { recursive: true, force: true }) };
}

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the bundle with `args` and `env` added to this process's environment (less CI, which ora reads). `onStderr`
 * sees the standard error so far after each chunk, for a test that acts on what the CLI said while it still runs.
 */
export function runCli(
  bundle: string,
  args: readonly string[],
  env: Record<string, string> = {},
  onStderr?: (stderr: string) => void,
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const { CI: _ci, MCP_TASKS_URL: _url, MCP_TASKS_TOKEN: _token, ...inherited } = process.env;
    const child = spawn(process.execPath, [bundle, ...args], {
      env: { ...inherited, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      onStderr?.(stderr);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Runs `script` with `sh -c`, as a user's script runs the CLI: `mcp-tasks` on the PATH is a wrapper that starts the
 * bundle with this node. `env` is added as in {@link runCli}.
 */
export async function runShell(bundle: string, script: string, env: Record<string, string> = {}): Promise<CliRun> {
  const bin = join(dirname(bundle), 'bin');
  await mkdir(bin, { recursive: true });
  const wrapper = join(bin, 'mcp-tasks');
  await writeFile(wrapper, `#!/bin/sh\nexec ${shellQuote(process.execPath)} ${shellQuote(bundle)} "$@"\n`);
  await chmod(wrapper, 0o755);
  const { CI: _ci, MCP_TASKS_URL: _url, MCP_TASKS_TOKEN: _token, ...inherited } = process.env;
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', script], {
      env: { ...inherited, PATH: `${bin}:${process.env['PATH'] ?? ''}`, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Single-quotes a word for a shell command line (tmux runs its command through the shell). */
export const shellQuote = (word: string): string => `'${word.replaceAll("'", "'\\''")}'`;

/** One tmux server on its own socket, with one window running a command: keys in, screen text out. */
export class TmuxSession {
  private constructor(
    private readonly socket: string,
    private readonly name: string,
  ) {}

  /** Starts `command` (a shell command line) in a 120x30 terminal, on a socket of its own that `kill` removes. */
  static async start(command: string): Promise<TmuxSession> {
    const socket = join(
      tmpdir(),
      `mcp-tasks-cli-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.sock`,
    );
    const session = new TmuxSession(socket, 'cli');
    await session.tmux('new-session', '-d', '-s', session.name, '-x', '120', '-y', '30', command);
    return session;
  }

  private async tmux(...args: string[]): Promise<string> {
    const { stdout } = await execFileAsync('tmux', ['-S', this.socket, '-f', '/dev/null', ...args]);
    return stdout;
  }

  /** What the terminal shows now, as text (no escape sequences: tmux has interpreted them). */
  screen(): Promise<string> {
    return this.tmux('capture-pane', '-p', '-t', this.name);
  }

  /** Sends keys as tmux names them: `C-c`, `Enter`, `Down`. */
  async sendKeys(...keys: string[]): Promise<void> {
    await this.tmux('send-keys', '-t', this.name, ...keys);
  }

  async kill(): Promise<void> {
    await this.tmux('kill-server').catch(() => {});
    await rm(this.socket, { force: true });
  }
}
