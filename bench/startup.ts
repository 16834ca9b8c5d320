// `npm run bench:startup`: the Lambda bundles' size and their module start-up time (what a cold start spends
// loading and composing the handler, before the first request), against an empty module measured in the same run.
// Bundled with esbuild the way the CDK construct bundles them (ESM, node22, minified, no externals).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { ESM_REQUIRE_BANNER } from '../lib/handler-asset.js';

const RUNS = Number(process.env['BENCH_ROUNDS'] ?? 10);
const HANDLERS = { 'mcp-http': 'lambda/handlers/mcp-http.ts', 'status-sync': 'lambda/handlers/status-sync.ts' };
// Enough configuration for the handlers to compose their backend at load, as in Lambda; nothing is called.
const ENVIRONMENT = { ...process.env, AWS_REGION: 'us-east-1', TASK_TABLE_NAME: 'bench', TOOL_CATALOG: '[]', POWERTOOLS_LOG_LEVEL: 'SILENT' };

function importMs(file: string): number {
  const script = `const start = performance.now(); await import(${JSON.stringify(file)}); console.log(performance.now() - start);`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: ENVIRONMENT, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return Number(run.stdout.trim());
}

function median(file: string): number {
  const samples = Array.from({ length: RUNS }, () => importMs(file)).sort((a, b) => a - b);
  return samples[Math.floor(RUNS / 2)]!;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'startup-'));
  const empty = join(dir, 'empty.mjs');
  writeFileSync(empty, 'export const handler = async () => {};\n');
  const baseline = median(empty);
  console.log(`\nmodule start-up, median of ${RUNS} fresh processes (Node ${process.version}):\n`);
  console.log(`${'bundle'.padEnd(14)} ${'size KiB'.padStart(9)} ${'gzip KiB'.padStart(9)} ${'start-up ms'.padStart(12)} ${'x empty'.padStart(8)}`);
  console.log(`${'(empty)'.padEnd(14)} ${'0'.padStart(9)} ${'0'.padStart(9)} ${baseline.toFixed(1).padStart(12)} ${'1.0'.padStart(8)}`);
  for (const [name, entry] of Object.entries(HANDLERS)) {
    const outfile = join(dir, `${name}.mjs`);
    await build({ entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node22', minify: true, mainFields: ['module', 'main'], banner: { js: ESM_REQUIRE_BANNER }, logLevel: 'error' });
    const size = statSync(outfile).size;
    const gzip = gzipSync(readFileSync(outfile)).length;
    const ms = median(outfile);
    console.log(`${name.padEnd(14)} ${(size / 1024).toFixed(0).padStart(9)} ${(gzip / 1024).toFixed(0).padStart(9)} ${ms.toFixed(1).padStart(12)} ${(ms / baseline).toFixed(1).padStart(8)}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
