// End to end: the mcp-tasks CLI on a task that asks for input (the example refund_order, whose workflow asks for
// approval with a form). In a real terminal (tmux) the CLI asks the form's fields and sends the answers in the Tasks
// extension (tasks/update), and the task runs on to its result; in a pipe it cannot ask, so it says once what the
// task waits for and how to go on, and keeps following the task.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildCliBundle, runCli, TmuxSession } from '../support/cli-process.js';
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

/** Single-quotes a word for the shell line tmux runs. */
const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;

/** Waits until the screen matches `pattern`; returns the screen. */
async function screenShows(session: TmuxSession, pattern: RegExp): Promise<string> {
  return vi.waitUntil(async () => {
    const screen = await session.screen();
    return pattern.test(screen) ? screen : false;
  }, GENEROUS_WAIT);
}

describe('mcp-tasks call --wait on a task that asks for input', () => {
  it('in a terminal, asks each field of the form, refuses a bad value, sends the answers and prints the result', async () => {
    const url = backend.servers[0].url;
    const args = JSON.stringify({ orderId: 'CLI-1', reason: 'arrived broken' });
    const cli = [process.execPath, bundle, 'call', 'refund_order', '--args', args, '--wait'].map(quote).join(' ');
    const environment = `env -u CI MCP_TASKS_URL=${quote(url)} MCP_TASKS_TOKEN=${quote(TOKENS.alice)}`;
    const session = await TmuxSession.start(`sh -c ${quote(`${environment} ${cli}; echo "EXIT=$?"; exec sleep 3600`)}`);
    sessions.push(session);

    await screenShows(session, /Approve a refund of [\d.]+ \w+ on order CLI-1 .*Reason: arrived broken/);
    await screenShows(session, /Approve the refund\s+│\s+● Yes/);
    await session.sendKeys('Enter');
    await screenShows(session, /Amount to refund, optional/);
    await session.sendKeys('abc', 'Enter');
    await screenShows(session, /Enter a number\./);
    await session.sendKeys('BSpace', 'BSpace', 'BSpace', '5', 'Enter');
    await screenShows(session, /Note to the customer, optional/);
    await session.sendKeys('Sorry', 'Enter');

    const screen = await screenShows(session, /EXIT=\d+/);
    expect(screen).toMatch(/Task \w+ completed\./);
    expect(screen).toContain('"refunded":true');
    expect(screen).toContain('"amount":5');
    expect(screen).toContain('"note":"Sorry"');
    expect(screen).toContain('EXIT=0');
  });

  it('in a pipe, says once what the task waits for and how to go on, then follows it to its end', async () => {
    const env = { MCP_TASKS_URL: backend.servers[0].url, MCP_TASKS_TOKEN: TOKENS.alice };
    const args = JSON.stringify({ orderId: 'CLI-2' });
    let taskId: string | undefined;
    let cancelled = false;
    const run = await runCli(bundle, ['call', 'refund_order', '--args', args, '--wait'], env, (stderr) => {
      taskId ??= /Task (\w+) waits for input/.exec(stderr)?.[1];
      // Someone else ends the wait: the CLI must notice, as it would an answer given elsewhere.
      if (taskId !== undefined && !cancelled) {
        cancelled = true;
        void call(backend.servers[1].url, 'tasks/cancel', { taskId }, TOKENS.alice);
      }
    });
    expect(run.stderr).toContain(
      `Task ${taskId} waits for input, and this CLI answers forms only at a terminal. Answer it from an MCP client ` +
        `that shows forms, or cancel it: mcp-tasks cancel ${taskId}`,
    );
    expect(run.stderr.match(/waits for input/g)).toHaveLength(1);
    expect(run.code).toBe(3);
  });
});
