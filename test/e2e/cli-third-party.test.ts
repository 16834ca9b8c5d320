// End to end: mcp-tasks against a server that is not this project's backend, one built only from the official
// 1.x SDK (2025-11-25 tasks, stateful Streamable HTTP) whose tool reports progress. `auto` must fall back to
// 2025-11-25, and the progress notifications must reach the output: counts in plain mode, a bar in a terminal.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GENEROUS_WAIT } from '../support/local-backend.js';
import { buildCliBundle, runCli, shellQuote, TmuxSession } from '../support/cli-process.js';
import { startSdkTaskServer, type SdkTaskServer } from '../support/sdk-task-server.js';

let server: SdkTaskServer;
let bundle: string;
let disposeBundle: () => Promise<void>;
let terminal: TmuxSession | undefined;

beforeAll(async () => {
  [server, { bundle, dispose: disposeBundle }] = await Promise.all([
    startSdkTaskServer({ stepMs: 200 }),
    buildCliBundle(),
  ]);
});
afterAll(async () => {
  await terminal?.kill();
  await server?.close();
  await disposeBundle?.();
});

describe('mcp-tasks against an official 1.x SDK task server', () => {
  it('speaks 2025-11-25 to it and sees its tool as task-required', async () => {
    const run = await runCli(bundle, ['--json', 'tools'], { MCP_TASKS_URL: server.url });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      protocol: '2025-11-25',
      tools: [expect.objectContaining({ name: 'count_up', taskSupport: 'required' })],
    });
  });

  it('call --wait prints each progress step as a plain line, then the result, and exits 0', async () => {
    const run = await runCli(bundle, ['call', 'count_up', '--args', '{"to":5}', '--wait'], {
      MCP_TASKS_URL: server.url,
    });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('Counted to 5.');
    expect(run.stderr).toMatch(/^working.* \(5\/5\)$/m);
  });

  it('in a terminal, draws a progress bar from the progress notifications', async () => {
    const cli = [process.execPath, bundle, '--url', server.url, 'call', 'count_up', '--args', '{"to":60}', '--wait']
      .map(shellQuote)
      .join(' ');
    terminal = await TmuxSession.start(`sh -c ${shellQuote(`env -u CI ${cli}; echo "EXIT=$?"; exec sleep 3600`)}`);
    const bar = await vi.waitUntil(
      async () => /working · .*\[(#+)-+\] (\d+)% · \d+s/.exec(await terminal!.screen()) ?? false,
      GENEROUS_WAIT,
    );
    expect(Number(bar[2])).toBeGreaterThan(0);
    const done = await vi.waitUntil(async () => /EXIT=(\d+)/.exec(await terminal!.screen()) ?? false, GENEROUS_WAIT);
    expect(done[1]).toBe('0');
    expect(done.input).toContain('Counted to 60.');
  });
});
