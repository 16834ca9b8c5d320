// `npm run bench:startup`: what a cold start costs. Each bundle is built as the CDK construct builds it (ESM, node22,
// minified, source maps, no externals, chunks loaded on demand), then loaded in fresh processes run as Lambda runs
// them (--enable-source-maps): import, then one first request (tools/list, which reads the declared tool catalog: here
// from a loopback stand-in of DynamoDB in this process that answers every GetItem with a one-tool catalog item, so
// the endpoint lists its catalog as the baseline lists its one tool; the endpoint streams its answer to the Runtime
// API's stand-in, in this process too, as in Lambda). The baseline is a minimal bundle of the official SDK's server and
// transport (bench/minimal-sdk-server.ts), measured in the same run, alternating.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Metafile } from 'esbuild';
import { promisify } from 'node:util';
import { PACKAGE_ROOT } from '../lib/handlers/handler-asset.js';
import { BUNDLE_OPTIONS } from '../scripts/build-assets.js';
import { bundleWithColdStartChunk, coldStartOutputs } from '../scripts/cold-start-chunks.js';
import { declaredCatalogAttributes } from '../lambda/contract/declared-tool-catalog.js';
import { PARTITION_KEY } from '../lambda/contract/task-table-schema.js';

const RUNS = Number(process.env['BENCH_ROUNDS'] ?? 10);
const CATALOG_KEY = 'catalog#declared#bench';
/** Enough configuration for the handler to compose its backend at load, as in Lambda; no AWS call leaves the host. */
const environment = (dynamoDbEndpoint: string) => ({
  ...process.env,
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  AWS_SESSION_TOKEN: 'bench',
  AWS_ENDPOINT_URL_DYNAMODB: dynamoDbEndpoint,
  // As in Lambda: no shared config file for the SDK to read.
  AWS_CONFIG_FILE: join(tmpdir(), 'no-aws-config'),
  TASK_TABLE_NAME: 'bench',
  TOOL_CATALOG_ITEM: CATALOG_KEY,
  POWERTOOLS_LOG_LEVEL: 'SILENT',
});

/** The catalog item's GetItem answer: one tool, as the baseline has one. */
const CATALOG_ANSWER = JSON.stringify({
  Item: {
    [PARTITION_KEY]: { S: CATALOG_KEY },
    ...Object.fromEntries(
      Object.entries(
        declaredCatalogAttributes([
          {
            name: 'noop',
            description: 'Does nothing.',
            inputSchema: { type: 'object' },
            stateMachineArn: 'arn:aws:states:us-east-1:123456789012:stateMachine:noop',
          },
        ]),
      ).map(([name, value]) => [name, { S: value }]),
    ),
  },
});

/**
 * Loopback stand-ins for what a cold start talks to: DynamoDB, which answers every request with the catalog item, and
 * the Lambda Runtime API, which takes a streamed response (kept, to check what the endpoint answered).
 */
async function standIns(): Promise<{ endpoint: string; responses: string[]; close: () => void }> {
  const responses: string[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      if (request.url?.startsWith(RUNTIME_RESPONSE_PATH)) {
        responses.push(body);
        response.writeHead(202).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'bench' });
      response.end(CATALOG_ANSWER);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    responses,
    close: () => server.close(),
  };
}
const LIST_TOOLS = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  host: 'localhost',
};

/** Where the Lambda runtime posts an invocation's response. */
const RUNTIME_RESPONSE_PATH = '/2018-06-01/runtime/invocation/';

/**
 * Per bundle: the first request after the import, as a script body that leaves the CPU spent on it in `firstCpu`
 * (microseconds) and its elapsed time in `firstMs`. The endpoint is a streaming handler: as
 * the Lambda runtime does before it calls one (aws-lambda-nodejs-runtime-interface-client's createResponseStream), the
 * response's POST to the Runtime API is opened off the clock, over its keep-alive agent, and handed to the handler as
 * its response stream. So the handler's catalog read is not the process's first HTTP request, as in Lambda; writing its
 * answer to the socket is on the clock. The stand-in keeps what it was sent, for the check that the catalog was listed.
 */
const FIRST_REQUEST = {
  minimal: `const first = process.cpuUsage(); const firstAt = performance.now();
    const status = (await module.handle(new Request('http://localhost/mcp', { method: 'POST', headers: ${JSON.stringify(HEADERS)}, body: ${JSON.stringify(LIST_TOOLS)} }))).status;
    const firstCpu = process.cpuUsage(first); const firstMs = performance.now() - firstAt;
    if (status !== 200) throw new Error('the first request answered ' + status);`,
  'mcp-http': `const http = await import('node:http');
    const { hostname, port } = new URL(process.env.AWS_ENDPOINT_URL_DYNAMODB);
    const stream = http.request({ agent: new http.Agent({ keepAlive: true, maxSockets: 1 }), hostname, port,
      method: 'POST', path: '${RUNTIME_RESPONSE_PATH}bench/response',
      headers: { 'Lambda-Runtime-Function-Response-Mode': 'streaming', 'Content-Type': 'application/octet-stream' } });
    stream.setContentType = (type) => stream.setHeader('Content-Type', type);
    const answered = new Promise((resolve, reject) => {
      stream.on('response', (response) => response.resume().on('end', resolve));
      stream.on('error', reject);
    });
    const event = { httpMethod: 'POST', path: '/mcp', headers: ${JSON.stringify(HEADERS)},
      body: ${JSON.stringify(LIST_TOOLS)}, requestContext: { authorizer: { principalId: 'bench' } } };
    const first = process.cpuUsage(); const firstAt = performance.now();
    await module.handler(event, stream);
    const firstCpu = process.cpuUsage(first); const firstMs = performance.now() - firstAt;
    await answered;`,
} as const;
const ENTRIES = { minimal: 'bench/minimal-sdk-server.ts', 'mcp-http': 'lambda/handlers/mcp-http.ts' } as const;
type Bundle = keyof typeof ENTRIES;

interface Sample {
  readonly importMs: number;
  readonly totalMs: number;
  /** CPU time (user + system) of import and first request: on a shared machine, steadier than elapsed time. */
  readonly cpuMs: number;
  /** The import's part of it. */
  readonly importCpuMs: number;
}

/** With BENCH_CPU_PROF=<dir>, each cold start writes its CPU profile to <dir>/<bundle> (as `npm run bench` does). */
function profiled(bundle: Bundle): string[] {
  const dir = process.env['BENCH_CPU_PROF'];
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${join(dir, bundle)}`, '--cpu-prof-interval=100'] : [];
}

/**
 * What the Lambda runtime has loaded before it imports a handler, loaded here before the clock starts in both bundles'
 * processes: `node:http`, its Runtime API client (the runtime interface client's RAPIDClient requires it as the runtime
 * starts). Loading it also makes the global TextDecoder, whose first use otherwise cost either bundle's first request
 * about 25 ms of CPU that no function pays in Lambda.
 */
const LOADED_BY_THE_RUNTIME = `await import('node:http');`;

async function coldStartMs(
  bundle: Bundle,
  file: string,
  standIn: Awaited<ReturnType<typeof standIns>>,
): Promise<Sample> {
  const script = `${LOADED_BY_THE_RUNTIME}
    const cpu = process.cpuUsage(); const start = performance.now();
    const module = await import(${JSON.stringify(file)}); const imported = performance.now();
    const importCpu = process.cpuUsage(cpu);
    ${FIRST_REQUEST[bundle]}
    const cpuMs = (importCpu.user + importCpu.system + firstCpu.user + firstCpu.system) / 1000;
    const importCpuMs = (importCpu.user + importCpu.system) / 1000;
    const importMs = imported - start;
    console.log(JSON.stringify({ importMs, totalMs: importMs + firstMs, cpuMs, importCpuMs }));`;
  const responses = standIn.responses.length;
  // Not spawnSync: the stand-ins answer from this process's event loop.
  const run = await promisify(execFile)(
    process.execPath,
    ['--enable-source-maps', ...profiled(bundle), '--input-type=module', '-e', script],
    { env: environment(standIn.endpoint), encoding: 'utf8' },
  );
  if (bundle === 'mcp-http' && !standIn.responses.slice(responses).some((body) => body.includes('"noop"')))
    throw new Error('The endpoint did not list its catalog in its first answer');
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Sample;
}

const median = (samples: number[]): number => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;

/** The JavaScript files of a build: the ones a cold start loads (the entry and what it imports statically) and all. */
function bundleFiles(metafile: Metafile, entry: string): { coldStart: string[]; all: string[] } {
  const all = Object.keys(metafile.outputs).filter((file) => file.endsWith('.mjs'));
  const entryOutput = all.find((file) => metafile.outputs[file]!.entryPoint === entry)!;
  return { coldStart: [...coldStartOutputs(metafile, entryOutput)], all };
}

const kib = (files: string[], size: (bytes: Buffer) => number = (bytes) => bytes.length): number =>
  files.reduce((sum, file) => sum + size(readFileSync(file)), 0) / 1024;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'startup-'));
  const files = {} as Record<Bundle, string>;
  const outputs = {} as Record<Bundle, { coldStart: string[]; all: string[] }>;
  for (const [bundle, entry] of Object.entries(ENTRIES) as [Bundle, string][]) {
    const metafile = await bundleWithColdStartChunk(
      { ...BUNDLE_OPTIONS, logLevel: 'error' },
      PACKAGE_ROOT,
      join(PACKAGE_ROOT, entry),
      join(dir, bundle),
    );
    outputs[bundle] = bundleFiles(metafile, entry);
    files[bundle] = join(dir, bundle, 'index.mjs');
  }
  const samples = { minimal: [] as Sample[], 'mcp-http': [] as Sample[] };
  const standIn = await standIns();
  for (let run = 0; run < RUNS; run++)
    for (const bundle of Object.keys(ENTRIES) as Bundle[])
      samples[bundle].push(await coldStartMs(bundle, files[bundle], standIn));
  standIn.close();
  const figures = (bundle: Bundle) => ({
    size: kib(outputs[bundle].coldStart),
    gzip: kib(outputs[bundle].coldStart, (bytes) => gzipSync(bytes).length),
    total: kib(outputs[bundle].all),
    importMs: median(samples[bundle].map((sample) => sample.importMs)),
    totalMs: median(samples[bundle].map((sample) => sample.totalMs)),
    cpuMs: median(samples[bundle].map((sample) => sample.cpuMs)),
    importCpuMs: median(samples[bundle].map((sample) => sample.importCpuMs)),
  });
  const baseline = figures('minimal');
  console.log(
    `\nnpm run bench:startup: cold start, median of ${RUNS} fresh processes each, alternating ` +
      `(Node ${process.version}, --enable-source-maps)\n`,
  );
  console.log(
    [
      'bundle'.padEnd(34),
      'size KiB'.padStart(9),
      'gzip KiB'.padStart(9),
      'total KiB'.padStart(10),
      'import ms'.padStart(10),
      'import+1st ms'.padStart(14),
      'ratio'.padStart(6),
      'CPU ms'.padStart(7),
      'ratio'.padStart(6),
      'import CPU'.padStart(11),
    ].join(' '),
  );
  for (const [label, bundle] of [
    ['minimal SDK server (baseline)', 'minimal'],
    ['mcp-http (the MCP endpoint)', 'mcp-http'],
  ] as const) {
    const f = figures(bundle);
    console.log(
      [
        label.padEnd(34),
        f.size.toFixed(0).padStart(9),
        f.gzip.toFixed(0).padStart(9),
        f.total.toFixed(0).padStart(10),
        f.importMs.toFixed(1).padStart(10),
        f.totalMs.toFixed(1).padStart(14),
        (f.totalMs / baseline.totalMs).toFixed(2).padStart(6),
        f.cpuMs.toFixed(0).padStart(7),
        (f.cpuMs / baseline.cpuMs).toFixed(2).padStart(6),
        f.importCpuMs.toFixed(0).padStart(11),
      ].join(' '),
    );
  }
  console.log(
    `\nsize: what a cold start loads (the entry file and the chunks it imports statically); total: every chunk,`,
  );
  console.log(
    `those loaded on demand included (the AWS SDK with the first request that calls AWS; Tracer with tracing on)`,
  );
  console.log(`CPU ms: user + system time of import and first request, steadier than elapsed time on a shared machine`);
  console.log(`(import CPU: the import's part); neither counts what the Lambda runtime does before it calls a handler`);
  console.log(`goals: import + first request <= 1.1x the baseline; bundle <= 1024 KiB`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
