// The public MCP conformance suite (@modelcontextprotocol/conformance, pinned) against the local server serving its
// fixture tools, as `npm run start:conformance` does: one scenario a test, both protocol eras.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE_PROMPTS } from '../../lambda/conformance-tools/conformance-tool-catalog.js';
import { singleOwner } from '../../local/dev-server.js';
import { conformanceTools, progressTable, startTestServer, type TestServer } from '../support/local-backend.js';

const LEGACY_SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'] as const;
const TOOL_SCENARIOS = [
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-error',
  'tools-call-with-progress',
  'json-schema-2020-12',
] as const;
const MODERN_SCENARIOS = [
  'server-stateless',
  'caching',
  'http-header-validation',
  'http-custom-header-server-validation',
] as const;
// Every tasks-* scenario but the input ones (tasks-mrtr-*, in INPUT_SCENARIOS_MODERN).
const TASKS_SCENARIOS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-request-headers',
  'tasks-dispatch-and-envelope',
  'tasks-status-notifications',
  'tasks-required-task-error',
] as const;
// Input requests on the 2025-era streams: the workflow asks through the ask step; the question goes to the
// client on the tools/call stream, and its answer, POSTed back, resumes the execution.
const INPUT_SCENARIOS_LEGACY = [
  'tools-call-elicitation',
  'tools-call-sampling',
  'elicitation-sep1034-defaults',
  'elicitation-sep1330-enums',
] as const;

// Input requests, modern era: the workflow asks its client. Tasks (tasks/get inputRequests, tasks/update answers), the
// composition of both, and the plain call's input_required rounds with a signed requestState (SEP-2322).
const INPUT_SCENARIOS_MODERN = [
  'tasks-mrtr-input',
  'tasks-mrtr-composition',
  'input-required-result-basic-elicitation',
  'input-required-result-basic-sampling',
  'input-required-result-basic-list-roots',
  'input-required-result-request-state',
  'input-required-result-multiple-input-requests',
  'input-required-result-multi-round',
  'input-required-result-missing-input-response',
  'input-required-result-non-tool-request',
  'input-required-result-result-type',
  'input-required-result-unsupported-methods',
  'input-required-result-tampered-state',
  'input-required-result-capability-check',
  'input-required-result-ignore-extra-params',
  'input-required-result-validate-input',
] as const;

const CLI = createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/dist/index.js');
const EXPECTED_FAILURES = fileURLToPath(new URL('./expected-failures.yml', import.meta.url));

let server: TestServer;
beforeAll(async () => {
  // The suite sends no credentials: auth off, as `npm run start:conformance` runs, with that script's settings: it
  // reads a plain call's answer within half a second, and calls tools in bursts from one owner. On the table the
  // emulator's progress step writes to, so test_tool_with_progress's reports reach its task.
  server = await startTestServer(
    { pollIntervalMs: 100, maxTaskCreationsPerMinute: 10_000 },
    {
      tools: conformanceTools(),
      prompts: CONFORMANCE_PROMPTS,
      resolveOwner: singleOwner(),
      tableName: progressTable(),
    },
  );
});
afterAll(async () => {
  await server?.close();
});

function runScenario(scenario: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    // The suite needs Node 22: run it with the Node that runs the tests (npm scripts put node@22 first on PATH).
    const args = [CLI, 'server', '--url', server.url, '--scenario', scenario, '--expected-failures', EXPECTED_FAILURES];
    const child = spawn(process.execPath, args, { env: { ...process.env, NO_COLOR: '1' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('MCP conformance suite', () => {
  for (const scenario of [
    ...LEGACY_SCENARIOS,
    ...TOOL_SCENARIOS,
    ...MODERN_SCENARIOS,
    ...TASKS_SCENARIOS,
    ...INPUT_SCENARIOS_LEGACY,
    ...INPUT_SCENARIOS_MODERN,
  ]) {
    it(`passes ${scenario}`, async () => {
      const { code, output } = await runScenario(scenario);
      // Exit 0 means every check passed, or failed only where the baseline says so; a stale baseline entry exits 1.
      expect(code, output).toBe(0);
      // The CLI's own words for a check that failed off the baseline (a check ID may say "unexpected" itself).
      expect(output, output).not.toMatch(/unexpected failures/i);
    });
  }
});
