// The public MCP conformance suite (@modelcontextprotocol/conformance) against the local server, one scenario a test.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { singleOwner } from '../../local/dev-server.js';
import { startTestServer, type TestServer } from '../support/local-backend.js';

const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'] as const;
const CLI = createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/dist/index.js');

let server: TestServer;
beforeAll(async () => {
  // The suite sends no credentials: auth off, as `npm start` runs by default.
  server = await startTestServer({}, { resolveOwner: singleOwner() });
});
afterAll(async () => {
  await server?.close();
});

function runScenario(scenario: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    // The suite needs Node 22: run it with the Node that runs the tests (npm scripts put node@22 first on PATH).
    const child = spawn(process.execPath, [CLI, 'server', '--url', server.url, '--scenario', scenario], { env: { ...process.env, NO_COLOR: '1' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('MCP conformance suite', () => {
  for (const scenario of SCENARIOS) {
    it(`passes ${scenario}`, async () => {
      const { code, output } = await runScenario(scenario);
      expect(output, output).toMatch(/Passed: (\d+)\/\1, 0 failed/);
      expect(code, output).toBe(0);
    });
  }
});
