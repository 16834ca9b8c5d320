// End to end: the mcp-tasks CLI, built with esbuild and run with plain node as a child process (the artifact the
// package's bin points at, so a bundling mistake fails here), against a test server on the local stack. Every
// command runs under both task protocols: `auto` (which picks the 2026-07-28 Tasks extension this server
// advertises) and `--protocol 2025-11-25` (the 1.x SDK's tasks). Stdout is a pipe here, so output is plain text.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EXAMPLE_TOOLS } from '../../lambda/example-tools/example-tool-catalog.js';
import { GENEROUS_WAIT, startTestServer, TOKENS, type TestServer } from '../support/local-backend.js';
import { buildCliBundle, runCli, type CliRun } from '../support/cli-process.js';

/** The local stack serves the example catalog, in its order. */
const EXAMPLE_TOOL_NAMES = EXAMPLE_TOOLS.map((tool) => tool.name);

let server: TestServer;
let bundle: string;
let disposeBundle: () => Promise<void>;

beforeAll(async () => {
  [server, { bundle, dispose: disposeBundle }] = await Promise.all([startTestServer(), buildCliBundle()]);
});
afterAll(async () => {
  await server?.close();
  await disposeBundle?.();
});

/** A long task: analyze_documents waits out its review window, long enough to look at, cancel or leave. */
const LONG_ARGS = JSON.stringify({ documents: ['The cat sat.', 'A dog ran far away.'], reviewSeconds: 600 });
/** Any escape sequence: plain output must have none. */
const ANSI = /\u001b\[/; // eslint-disable-line no-control-regex -- ESC starts every escape sequence

// The CLI's --json output, read as each assertion needs it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function json(run: CliRun): Record<string, any> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return JSON.parse(run.stdout) as Record<string, any>;
}

describe.each([
  // The Tasks extension's tools/list declares nothing per tool (the server decides at each call).
  { protocol: 'auto', extra: [] as string[], spoken: '2026-07-28+tasks', declaresTaskSupport: false },
  { protocol: '2025-11-25', extra: ['--protocol', '2025-11-25'], spoken: '2025-11-25', declaresTaskSupport: true },
])('mcp-tasks ($protocol)', ({ extra, spoken, declaresTaskSupport }) => {
  /** The URL by flag; the token from the environment, as a script would set it. */
  const cli = (args: string[], token: string = TOKENS.alice) =>
    runCli(bundle, ['--url', server.url, ...extra, ...args], { MCP_TASKS_TOKEN: token });

  /** Starts a long task and returns its ID, read from --json output. */
  async function startLongTask(): Promise<string> {
    const run = await cli(['--json', 'call', 'analyze_documents', '--args', LONG_ARGS]);
    expect(run.code).toBe(0);
    return json(run)['task']['taskId'] as string;
  }

  it('tools lists every tool, one plain line each', async () => {
    const run = await cli(['tools']);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(ANSI);
    expect(
      run.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(/\s+/)[0]),
    ).toEqual(EXAMPLE_TOOL_NAMES);
  });

  it("tools shows each tool's task support as tools/list gives it, and its whole description", async () => {
    const run = await cli(['tools']);
    const lines = run.stdout.trim().split('\n');
    for (const [index, tool] of EXAMPLE_TOOLS.entries()) {
      const support = declaresTaskSupport ? (tool.taskSupport ?? 'optional') : 'undeclared';
      expect(lines[index]).toMatch(new RegExp(`^${tool.name} +task: ${support} +(.*)$`));
      expect(lines[index]!.endsWith(`  ${tool.description}`)).toBe(true);
    }
    expect(run.stdout).toContain('Runs for tens of seconds: call it as a task.');
  });

  it('call returns a working task at once, and prints how to follow it', async () => {
    const run = await cli(['call', 'analyze_documents', '--args', LONG_ARGS]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^task:\s+\S+\nstatus:\s+working$/m);
    expect(run.stderr).toMatch(/mcp-tasks watch \S+/);
    await cli(['cancel', /^task:\s+(\S+)/m.exec(run.stdout)![1]!]);
  });

  it('call --wait follows a task to completion, prints the result on stdout and exits 0', async () => {
    const run = await cli(['call', 'text_stats', '--args', '{"text":"one two two"}', '--wait']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ words: 3, uniqueWords: 2, sentences: 1, characters: 11 });
    expect(run.stderr).toMatch(/Task \S+ completed\./);
    expect(run.stdout + run.stderr).not.toMatch(ANSI);
  });

  it('call --wait on a failing tool reports the failure and exits 1', async () => {
    const run = await cli(['call', 'export_report', '--args', '{"reportName":"quarterly"}', '--wait']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/Task \S+ failed: Execution failed: UpstreamUnavailable: .*'quarterly'/);
  });

  it('call --wait exits 1 when the tool reports an error in a completed task', async () => {
    const run = await cli(['call', 'text_stats', '--args', '{"text":"   "}', '--wait']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('The text has no words to count.');
  });

  it('call of an unknown tool names the tools there are and exits 2', async () => {
    const run = await cli(['call', 'no_such_tool', '--args', '{}']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      `Unknown tool 'no_such_tool'. Tools on this server: ${EXAMPLE_TOOL_NAMES.join(', ')}.`,
    );
  });

  it('call with --args that are not a JSON object says so and exits 2', async () => {
    const run = await cli(['call', 'text_stats', '--args', '[1,2]']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--args must be a JSON object/);
  });

  it.each(['get', 'result', 'cancel', 'watch'])(
    '%s of an unknown task ID says the task is unknown and exits 2',
    async (command) => {
      const run = await cli([command, 'f00dfeedf00dfeedf00dfeedf00dfeed']);
      expect(run.code).toBe(2);
      expect(run.stderr.trim()).toBe(
        "Unknown task 'f00dfeedf00dfeedf00dfeedf00dfeed': the server has no such task for you (it may have expired).",
      );
    },
  );

  it("another caller's task is unknown to you", async () => {
    const taskId = await startLongTask();
    const run = await cli(['get', taskId], TOKENS.bob);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^Unknown task/);
    await cli(['cancel', taskId]);
  });

  it('get shows a task; list includes it; cancel cancels it; result then exits 3', async () => {
    const taskId = await startLongTask();
    const got = await cli(['get', taskId]);
    expect(got.code).toBe(0);
    expect(got.stdout).toMatch(new RegExp(`^task:\\s+${taskId}\\nstatus:\\s+working`, 'm'));

    const listed = await cli(['list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${taskId}\\s+working`, 'm'));

    const cancelled = await cli(['cancel', taskId]);
    expect(cancelled.code).toBe(0);
    expect(cancelled.stdout).toMatch(/^status:\s+cancelled$/m);

    const result = await cli(['result', taskId]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(`Task ${taskId} was cancelled.`);
  });

  it('--json prints one parseable object per command, results and errors alike', async () => {
    const called = await cli(['--json', 'call', 'text_stats', '--args', '{"text":"a b"}']);
    const taskId = json(called)['task']['taskId'] as string;
    expect(json(called)['task']).toMatchObject({
      taskId: expect.any(String),
      status: expect.stringMatching(/^(working|completed)$/),
    });

    const result = await cli(['--json', 'result', taskId]);
    expect(result.code).toBe(0);
    expect(json(result)).toMatchObject({
      task: { taskId, status: 'completed' },
      outcome: { status: 'completed', result: { structuredContent: { words: 2 } } },
    });

    // The task ends on its own; get reports it as completed once it has.
    await vi.waitUntil(
      async () => json(await cli(['--json', 'get', taskId]))['task']['status'] === 'completed',
      GENEROUS_WAIT,
    );
    expect(json(await cli(['--json', 'list']))['tasks']).toEqual(
      expect.arrayContaining([expect.objectContaining({ taskId, status: 'completed' })]),
    );
    expect(json(await cli(['--json', 'tools']))).toMatchObject({
      protocol: spoken,
      tools: expect.arrayContaining([expect.objectContaining({ name: 'text_stats' })]),
    });

    const unknown = await cli(['--json', 'get', 'f00dfeedf00dfeedf00dfeedf00dfeed']);
    expect(unknown.code).toBe(2);
    expect(json(unknown)).toEqual({
      error: { kind: 'UnknownTaskError', message: expect.stringMatching(/^Unknown task/) },
    });
  });

  it('watch follows a task that is already running to its end, with plain status lines', async () => {
    const taskId = json(
      await cli([
        '--json',
        'call',
        'analyze_documents',
        '--args',
        JSON.stringify({ documents: ['x y'], reviewSeconds: 1 }),
      ]),
    )['task']['taskId'] as string;
    const run = await cli(['watch', taskId]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ documentCount: 1, totalWords: 2 });
    expect(run.stderr).not.toMatch(ANSI);
  });
});

describe('mcp-tasks without a server', () => {
  it('says it cannot connect, names the URL, and exits 4', async () => {
    const run = await runCli(bundle, ['tools'], { MCP_TASKS_URL: 'http://127.0.0.1:9/mcp' });
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(/^Cannot connect to the MCP server at http:\/\/127\.0\.0\.1:9\/mcp/);
  });
});
