// End to end: the mcp-tasks CLI, built with esbuild and run with plain node as a child process (the artifact the
// package's bin points at, so a bundling mistake fails here), against a test server on the local stack. Every
// command runs under both task protocols: `auto` (which picks the 2026-07-28 Tasks extension this server
// advertises) and `--protocol 2025-11-25` (the 1.x SDK's tasks). Stdout is a pipe here, so output is plain text.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EXAMPLE_TOOLS } from '../../lambda/example-tools/example-tool-catalog.js';
import { connectClient, GENEROUS_WAIT, startTestServer, TOKENS, type TestServer } from '../support/local-backend.js';
import { buildCliBundle, runCli, runShell, shellQuote, type CliRun } from '../support/cli-process.js';
import { connectModernClient } from '../support/modern-client.js';
import { STATUS_TOOL_NAMES } from '../../lambda/contract/tool-definition.js';

const STATUS_TOOLS: ReadonlySet<string> = new Set(Object.values(STATUS_TOOL_NAMES));

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

  /** The server's own tools/list, read with the official client of the era the CLI speaks, less the status tools. */
  async function serverToolList(): Promise<{ name: string; description?: string; taskSupport: string }[]> {
    const client = declaresTaskSupport ? await connectClient(server.url) : await connectModernClient(server.url);
    try {
      const { tools } = await client.listTools();
      return tools
        .filter((tool) => !STATUS_TOOLS.has(tool.name))
        .map((tool) => ({
          name: tool.name,
          ...(tool.description !== undefined ? { description: tool.description } : {}),
          // 2025-11-25: absent is forbidden, as the spec says; the Tasks extension declares nothing per tool.
          taskSupport: tool.execution?.taskSupport ?? (declaresTaskSupport ? 'forbidden' : 'undeclared'),
        }));
    } finally {
      await client.close();
    }
  }

  it("tools shows each tool's task support as the server's tools/list gives it, and its whole description", async () => {
    const [run, listed] = await Promise.all([cli(['tools']), serverToolList()]);
    const lines = run.stdout.trim().split('\n');
    expect(lines.map((line) => line.split(/\s+/)[0])).toEqual(listed.map((tool) => tool.name));
    for (const [index, tool] of listed.entries()) {
      expect(lines[index]).toMatch(new RegExp(`^${tool.name} +task: ${tool.taskSupport} +(.*)$`));
      expect(lines[index]!.endsWith(`  ${tool.description}`)).toBe(true);
    }
    // What this server declares today, so a change to it is seen here: refund_order may run either way.
    const refund = lines.find((line) => line.startsWith('refund_order '));
    expect(refund).toMatch(declaresTaskSupport ? /task: optional / : /task: undeclared /);
    expect(run.stdout).toContain('Runs for tens of seconds: call it as a task.');
  });

  it('call --quiet prints the task id alone, which a script hands to get', async () => {
    const args = JSON.stringify({ text: 'one two two' });
    const flags = extra.map(shellQuote).join(' ');
    const script =
      `id=$(mcp-tasks ${flags} call text_stats --args ${shellQuote(args)} --quiet) || exit $?\n` +
      `printf 'id=%s\\n' "$id"\n` +
      `mcp-tasks ${flags} get "$id"`;
    const run = await runShell(bundle, script, { MCP_TASKS_URL: server.url, MCP_TASKS_TOKEN: TOKENS.alice });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const taskId = /^id=([0-9a-f]+)$/m.exec(run.stdout)![1]!;
    expect(run.stdout).toMatch(new RegExp(`^task:\\s+${taskId}\\nstatus:\\s+(working|completed)$`, 'm'));
  });

  it('call --id-only prints exactly the id and a newline; with --wait it is refused and starts nothing', async () => {
    const run = await cli(['call', 'text_stats', '--args', '{"text":"a b"}', '--id-only']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^[0-9a-f]{32}\n$/);
    expect(run.stderr).toBe('');

    const before = json(await cli(['--json', 'list']))['tasks'].length as number;
    const refused = await cli(['call', 'text_stats', '--args', '{"text":"a b"}', '--quiet', '--wait']);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^--quiet prints the task id and returns at once; --wait follows the task/);
    expect(json(await cli(['--json', 'list']))['tasks']).toHaveLength(before);

    // With --json too the refusal goes to stderr, and before any connection: no server answers at this URL.
    const unreachable = ['--url', 'http://127.0.0.1:9/mcp', '--json', 'call', 'text_stats', '--quiet'];
    const refusedJson = await cli(unreachable);
    expect({ code: refusedJson.code, stdout: refusedJson.stdout }).toEqual({ code: 2, stdout: '' });
    expect(refusedJson.stderr).toMatch(/^--quiet prints the bare task id; --json prints the task as JSON/);
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
