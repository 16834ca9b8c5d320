// End to end: the MCP Inspector CLI (2.12), run as a child process in the modern era against a test server with
// auth off, lists the tools and calls one, as a developer would from a terminal.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectorCommand } from '../../bin/example-tools-stack.js';
import { singleOwner } from '../../local/dev-server.js';
import { exampleTools, startTestServer, type TestServer } from '../support/local-backend.js';

const execFileAsync = promisify(execFile);
/** The package's `mcp-inspector` bin, run with this Node (22, as the CLI requires) rather than through its shim. */
const INSPECTOR = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js', import.meta.url),
);

let server: TestServer;
let home: string;

beforeAll(async () => {
  server = await startTestServer({}, { resolveOwner: singleOwner() });
  // The CLI keeps a catalog under the home directory: give it a throwaway one.
  home = await mkdtemp(join(tmpdir(), 'inspector-home-'));
});
afterAll(async () => {
  await server?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

/** Runs `mcp-inspector --cli <url> --transport http --protocol-era modern ...args` and parses what it prints. */
async function inspector(...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await execFileAsync(
    process.execPath,
    [INSPECTOR, '--cli', server.url, '--transport', 'http', '--protocol-era', 'modern', ...args],
    {
      env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json') },
      timeout: 60_000,
    },
  );
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe('MCP Inspector CLI in the modern era', () => {
  it('lists every tool', async () => {
    const listed = (await inspector('--method', 'tools/list')) as { tools: { name: string }[] };
    expect(listed.tools.map((tool) => tool.name).sort()).toEqual(
      exampleTools()
        .map((tool) => tool.name)
        .sort(),
    );
  });

  it('calls text_stats and prints its result as JSON, a modern-era (resultType) result', async () => {
    const printed = await inspector(
      '--method',
      'tools/call',
      '--tool-name',
      'text_stats',
      '--tool-args-json',
      '{"text":"a b"}',
      '--format',
      'json',
    );
    expect(printed['result']).toMatchObject({
      resultType: 'complete',
      structuredContent: { words: 2, uniqueWords: 2 },
    });
    expect(printed['result']).not.toHaveProperty('isError');
  });
});

describe('the example stack’s InspectorCommand output', () => {
  it('runs as printed, with the bearer token from $TOKEN in the Authorization header, and lists the tools', async () => {
    // The command as a shell would split it: words, double quotes grouping, $TOKEN expanded.
    const words = inspectorCommand(server.url, true)
      .match(/"[^"]*"|\S+/g)!
      .map((word) => word.replace(/^"|"$/g, '').replace('$TOKEN', 'a-token'));
    expect(words.slice(0, 2)).toEqual(['npx', '@modelcontextprotocol/inspector']);
    expect(words.slice(-2)).toEqual(['--header', 'Authorization: Bearer a-token']);
    const { stdout } = await execFileAsync(process.execPath, [INSPECTOR, ...words.slice(2)], {
      env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json') },
      timeout: 60_000,
    });
    const listed = JSON.parse(stdout) as { tools: { name: string }[] };
    expect(listed.tools.map((tool) => tool.name).sort()).toEqual(
      exampleTools()
        .map((tool) => tool.name)
        .sort(),
    );
  });
});
