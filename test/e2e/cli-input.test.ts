// End to end: the mcp-tasks CLI on a task that asks for input (the example refund_order, whose workflow asks for
// approval with a form). In a real terminal (tmux) the CLI asks the form's fields and sends the answers in the Tasks
// extension (tasks/update), and the task runs on to its result; in a pipe it cannot ask, so it says once what the
// task waits for and how to go on, and keeps following the task.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildCliBundle, runCli, shellQuote, TmuxSession } from '../support/cli-process.js';
import { call } from '../support/events-rpc.js';
import { useInputBackend } from '../support/input-backend.js';
import { GENEROUS_WAIT, TOKENS } from '../support/local-backend.js';

const backend = useInputBackend();
let bundle: string;
let disposeBundle: () => Promise<void>;
const sessions: TmuxSession[] = [];

beforeAll(async () => {
  ({ bundle, dispose: disposeBundle } = await buildCliBundle());
});
afterAll(async () => {
  await Promise.all(sessions.map((session) => session.kill()));
  await disposeBundle?.();
});

/** Waits until the screen matches `pattern`; returns the screen. */
async function screenShows(session: TmuxSession, pattern: RegExp): Promise<string> {
  return vi.waitUntil(async () => {
    const screen = await session.screen();
    return pattern.test(screen) ? screen : false;
  }, GENEROUS_WAIT);
}

/** Starts `mcp-tasks call refund_order --wait` in a terminal; the shell prints the exit code after it and stays. */
async function startRefund(orderId: string, reason?: string): Promise<TmuxSession> {
  const args = JSON.stringify({ orderId, ...(reason !== undefined ? { reason } : {}) });
  const cli = [process.execPath, bundle, 'call', 'refund_order', '--args', args, '--wait'].map(shellQuote).join(' ');
  const url = shellQuote(backend.servers[0].url);
  const environment = `env -u CI MCP_TASKS_URL=${url} MCP_TASKS_TOKEN=${shellQuote(TOKENS.alice)}`;
  // Ctrl-C signals the whole foreground group: the shell's trap keeps it alive to print the exit code.
  const session = await TmuxSession.start(
    `sh -c ${shellQuote(`trap true INT; ${environment} ${cli}; echo "EXIT=$?"; exec sleep 3600`)}`,
  );
  sessions.push(session);
  return session;
}

describe('mcp-tasks call --wait on a task that asks for input', () => {
  it('in a terminal, asks each field of the form, refuses what does not fit, sends the answers, prints the result', async () => {
    const session = await startRefund('CLI-1', 'arrived broken');
    await screenShows(session, /Approve a refund of [\d.]+ \w+ on order CLI-1 .*Reason: arrived broken/);
    // A yes/no starts on No: Enter alone never approves.
    await screenShows(session, /Approve the refund\s+│\s+○ Yes \/ ● No/);
    await session.sendKeys('y');
    await screenShows(session, /Amount to refund, optional/);
    await session.sendKeys('abc', 'Enter');
    await screenShows(session, /Enter a number\./);
    await session.sendKeys('BSpace', 'BSpace', 'BSpace', '5', 'Enter');
    await screenShows(session, /Note to the customer, optional/);
    await session.sendKeys('x'.repeat(501), 'Enter');
    await screenShows(session, /At most 500 characters \(this is 501\)\./);
    await session.sendKeys('C-u', 'Sorry', 'Enter');

    const screen = await screenShows(session, /EXIT=\d+/);
    expect(screen).toMatch(/Task \w+ completed\./);
    expect(screen).toContain('"refunded":true');
    expect(screen).toContain('"amount":5');
    expect(screen).toContain('"note":"Sorry"');
    expect(screen).toContain('EXIT=0');
  });

  it('in a terminal, Ctrl-C in the form asks what to do; "leave it waiting" exits 130 with the question still open', async () => {
    const session = await startRefund('CLI-3');
    await screenShows(session, /Approve the refund/);
    await session.sendKeys('C-c');
    const screen = await screenShows(session, /Task (\w+) waits for your answer\. What should happen\?/);
    const taskId = /Task (\w+) waits for your answer/.exec(screen)![1]!;
    await session.sendKeys('Down', 'Enter');
    await screenShows(session, /EXIT=130/);
    expect(await call(backend.servers[1].url, 'tasks/get', { taskId }, TOKENS.alice)).toMatchObject({
      status: 'input_required',
    });
    await call(backend.servers[1].url, 'tasks/cancel', { taskId }, TOKENS.alice);
  });

  it('in a pipe, says once what the task waits for and how to go on, then follows it to its end', async () => {
    const env = { MCP_TASKS_URL: backend.servers[0].url, MCP_TASKS_TOKEN: TOKENS.alice };
    const args = JSON.stringify({ orderId: 'CLI-2' });
    let taskId: string | undefined;
    let cancelled: Promise<unknown> | undefined;
    const run = await runCli(bundle, ['call', 'refund_order', '--args', args, '--wait'], env, (stderr) => {
      taskId ??= /Task (\w+) waits for input/.exec(stderr)?.[1];
      // Someone else ends the wait: the CLI must notice, as it would an answer given elsewhere.
      if (taskId !== undefined) cancelled ??= call(backend.servers[1].url, 'tasks/cancel', { taskId }, TOKENS.alice);
    });
    await expect(cancelled).resolves.toMatchObject({ status: 'cancelled' });
    expect(run.stderr).toContain(
      `Task ${taskId} waits for input, and this CLI asks its questions only at a terminal, on the Tasks extension ` +
        `(2026-07-28): run mcp-tasks watch ${taskId} there, answer it from an MCP client that can, or cancel it: ` +
        `mcp-tasks cancel ${taskId}`,
    );
    expect(run.stderr.match(/waits for input/g)).toHaveLength(1);
    expect(run.code).toBe(3);
  });
});
