// End to end, in a real pseudo-terminal: the mcp-tasks bundle runs inside tmux against a test server, as a person
// would run it. The live line must show the status and elapsed time while the task works; Ctrl-C must stop it and
// ask; "leave it running" must print the task ID, exit 130 and leave the task working; "cancel" must cancel it. In the
// default protocol (the 2026-07-28 Tasks extension) the line draws a progress bar from the count the task carries.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GENEROUS_WAIT, progressTable, startTestServer, TOKENS, type TestServer } from '../support/local-backend.js';
import { buildCliBundle, runCli, shellQuote, TmuxSession } from '../support/cli-process.js';

let server: TestServer;
/** A server on the table the emulator's progress step records on, so analyze_documents' counts reach its tasks. */
let progressServer: TestServer;
let bundle: string;
let disposeBundle: () => Promise<void>;
const sessions: TmuxSession[] = [];

beforeAll(async () => {
  [server, progressServer, { bundle, dispose: disposeBundle }] = await Promise.all([
    startTestServer(),
    startTestServer({}, { tableName: progressTable() }),
    buildCliBundle(),
  ]);
});
afterAll(async () => {
  await Promise.all(sessions.map((session) => session.kill()));
  await server?.close();
  await progressServer?.close();
  await disposeBundle?.();
});

/**
 * Starts `mcp-tasks call analyze_documents --wait` on a task that runs for minutes, in a terminal. CI is unset
 * (ora draws nothing live under CI); after the CLI exits the shell prints its exit code and stays, so the
 * screen can still be read.
 */
async function startWaitingCall(on: TestServer = server): Promise<TmuxSession> {
  const args = JSON.stringify({ documents: ['The cat sat.', 'A dog ran far away.'], reviewSeconds: 600 });
  const cli = [process.execPath, bundle, 'call', 'analyze_documents', '--args', args, '--wait']
    .map(shellQuote)
    .join(' ');
  const environment = `env -u CI MCP_TASKS_URL=${shellQuote(on.url)} MCP_TASKS_TOKEN=${shellQuote(TOKENS.alice)}`;
  // Ctrl-C signals the whole foreground group, the shell too: its trap keeps it alive to print the exit code
  // (a trapped signal is reset to the default in the CLI it starts, so the CLI sees SIGINT as usual).
  const session = await TmuxSession.start(
    `sh -c ${shellQuote(`trap true INT; ${environment} ${cli}; echo "EXIT=$?"; exec sleep 3600`)}`,
  );
  sessions.push(session);
  return session;
}

/** Waits until the screen matches `pattern`; returns the match. */
async function screenMatch(session: TmuxSession, pattern: RegExp): Promise<RegExpExecArray> {
  return vi.waitUntil(async () => pattern.exec(await session.screen()) ?? false, GENEROUS_WAIT);
}

const PROMPT = /Task (\w+) is still working\. What should happen to it\?/;
/**
 * The live line: the status, then the status message (the workflow's current step, say) when there is one, then the
 * elapsed time.
 */
const LIVE_LINE = String.raw`working(?: · [^\n]*?)? · `;

describe('mcp-tasks call --wait in a terminal', () => {
  it('shows a live line whose elapsed time advances while the task works', async () => {
    const session = await startWaitingCall();
    const first = await screenMatch(session, new RegExp(`${LIVE_LINE}(\\d+)s`));
    // The same line, redrawn in place with a later time: a live view, not a log.
    await screenMatch(session, new RegExp(`${LIVE_LINE}(?!${first[1]}s)\\d+s`));
    expect((await session.screen()).match(new RegExp(`${LIVE_LINE}\\d+s`, 'g'))).toHaveLength(1);
    await session.sendKeys('C-c');
    await screenMatch(session, PROMPT);
    await session.sendKeys('Down', 'Enter');
    await screenMatch(session, /EXIT=3/);
  });

  it('on Ctrl-C asks; "leave it running" prints the task ID, exits 130, and the task keeps working', async () => {
    const session = await startWaitingCall();
    await screenMatch(session, new RegExp(`${LIVE_LINE}\\d+s`));
    await session.sendKeys('C-c');
    const [, taskId] = await screenMatch(session, PROMPT);
    expect(await session.screen()).toMatch(/Leave it running[\s\S]*Cancel the task/);

    await session.sendKeys('Enter');
    const screen = (await screenMatch(session, /EXIT=130/)).input;
    expect(screen).toMatch(new RegExp(`^${taskId}$`, 'm'));
    expect(screen).toContain(`mcp-tasks watch ${taskId}`);

    const env = { MCP_TASKS_URL: server.url, MCP_TASKS_TOKEN: TOKENS.alice };
    const after = await runCli(bundle, ['--json', 'get', taskId!], env);
    expect(JSON.parse(after.stdout)).toMatchObject({ task: { taskId, status: 'working' } });
    await runCli(bundle, ['cancel', taskId!], env);
  });

  it('on Ctrl-C, "cancel the task" cancels it and exits 3', async () => {
    const session = await startWaitingCall();
    await screenMatch(session, new RegExp(`${LIVE_LINE}\\d+s`));
    await session.sendKeys('C-c');
    const [, taskId] = await screenMatch(session, PROMPT);
    await session.sendKeys('Down', 'Enter');
    expect((await screenMatch(session, /EXIT=3/)).input).toContain(`Task ${taskId} was cancelled.`);
  });

  it('in the default protocol (Tasks extension) draws a progress bar from the count in the task, with the workflow’s message', async () => {
    const session = await startWaitingCall(progressServer);
    // Both documents analysed, then the review window: the count the workflow reported stays at 2 of 2.
    const full =
      String.raw`working · (?:Analysed 2 of 2 documents|Waiting for review \(\d+ s left\)) · ` +
      String.raw`\[#{20}\] 100% · \d+s`;
    await screenMatch(session, new RegExp(full));
    expect((await session.screen()).match(/\[[#-]{20}\] \d+%/g)).toHaveLength(1);
    await session.sendKeys('C-c');
    const [, taskId] = await screenMatch(session, PROMPT);
    // The same count, as a script sees it: `get --json` in the default protocol.
    const got = await runCli(bundle, ['--json', 'get', taskId!], {
      MCP_TASKS_URL: progressServer.url,
      MCP_TASKS_TOKEN: TOKENS.alice,
    });
    expect(JSON.parse(got.stdout)).toMatchObject({
      task: { taskId, status: 'working', progress: { progress: 2, total: 2 } },
    });
    await session.sendKeys('Down', 'Enter');
    await screenMatch(session, /EXIT=3/);
  });
});
