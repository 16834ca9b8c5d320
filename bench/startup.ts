// `npm run bench:startup`: what a cold start costs. Each bundle is built as the CDK construct builds it (ESM, node22,
// minified, source map, no externals), then loaded in fresh processes run as Lambda runs them (--enable-source-maps):
// import, then one first request (tools/list, which needs no AWS call). The baseline is a minimal bundle of the
// official SDK's server and transport (bench/minimal-sdk-server.ts), measured in the same run, alternating.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { BUNDLE_OPTIONS } from '../scripts/build-assets.js';

const RUNS = Number(process.env['BENCH_ROUNDS'] ?? 10);
/** Enough configuration for the handler to compose its backend at load, as in Lambda; nothing calls AWS. */
const ENVIRONMENT = { ...process.env, AWS_REGION: 'us-east-1', TASK_TABLE_NAME: 'bench', TOOL_CATALOG: '[]', POWERTOOLS_LOG_LEVEL: 'SILENT' };
const LIST_TOOLS = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: 'localhost' };

/**
 * Per bundle: the module to load and the first request, as a script body that leaves the answer's status in `status`.
 */
const FIRST_REQUEST = {
  minimal: `const status = (await module.handle(new Request('http://localhost/mcp', { method: 'POST', headers: ${JSON.stringify(HEADERS)}, body: ${JSON.stringify(LIST_TOOLS)} }))).status;`,
  'mcp-http': `const { PassThrough } = await import('node:stream');
    const stream = new PassThrough(); stream.resume();
    await module.handler({ httpMethod: 'POST', path: '/mcp', headers: ${JSON.stringify(HEADERS)},
      body: ${JSON.stringify(LIST_TOOLS)}, requestContext: { authorizer: { principalId: 'bench' } } }, stream);
    const status = 200;`,
} as const;
const ENTRIES = { minimal: 'bench/minimal-sdk-server.ts', 'mcp-http': 'lambda/handlers/mcp-http.ts' } as const;
type Bundle = keyof typeof ENTRIES;

function coldStartMs(bundle: Bundle, file: string): { importMs: number; totalMs: number } {
  const script = `const start = performance.now(); const module = await import(${JSON.stringify(file)});
    const imported = performance.now();
    ${FIRST_REQUEST[bundle]}
    if (status !== 200) throw new Error('first request answered ' + status);
    console.log(JSON.stringify({ importMs: imported - start, totalMs: performance.now() - start }));`;
  const run = spawnSync(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', script], { env: ENVIRONMENT, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { importMs: number; totalMs: number };
}

const median = (samples: number[]): number => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'startup-'));
  const files = {} as Record<Bundle, string>;
  for (const [bundle, entry] of Object.entries(ENTRIES) as [Bundle, string][]) {
    files[bundle] = join(dir, `${bundle}.mjs`);
    await build({ ...BUNDLE_OPTIONS, entryPoints: [entry], outfile: files[bundle], logLevel: 'error' });
  }
  const samples = { minimal: [] as Array<{ importMs: number; totalMs: number }>, 'mcp-http': [] as Array<{ importMs: number; totalMs: number }> };
  for (let run = 0; run < RUNS; run++) for (const bundle of Object.keys(ENTRIES) as Bundle[]) samples[bundle].push(coldStartMs(bundle, files[bundle]));
  const figures = (bundle: Bundle) => ({
    size: statSync(files[bundle]).size / 1024,
    gzip: gzipSync(readFileSync(files[bundle])).length / 1024,
    importMs: median(samples[bundle].map((sample) => sample.importMs)),
    totalMs: median(samples[bundle].map((sample) => sample.totalMs)),
  });
  const baseline = figures('minimal');
  console.log(
    `\nnpm run bench:startup: cold start, median of ${RUNS} fresh processes each, alternating ` +
      `(Node ${process.version}, --enable-source-maps)\n`,
  );
  console.log(
    `${'bundle'.padEnd(34)} ${'size KiB'.padStart(9)} ${'gzip KiB'.padStart(9)} ` +
      `${'import ms'.padStart(10)} ${'import+1st ms'.padStart(14)} ${'ratio'.padStart(6)}`,
  );
  for (const [label, bundle] of [['minimal SDK server (baseline)', 'minimal'], ['mcp-http (the MCP endpoint)', 'mcp-http']] as const) {
    const f = figures(bundle);
    console.log(
      `${label.padEnd(34)} ${f.size.toFixed(0).padStart(9)} ${f.gzip.toFixed(0).padStart(9)} ` +
        `${f.importMs.toFixed(1).padStart(10)} ${f.totalMs.toFixed(1).padStart(14)} ` +
        `${(f.totalMs / baseline.totalMs).toFixed(2).padStart(6)}`,
    );
  }
  console.log(`\ngoals: import + first request <= 1.1x the baseline; bundle <= 1024 KiB`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
