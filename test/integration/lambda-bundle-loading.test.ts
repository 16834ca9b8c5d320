// What a cold start of the deployed MCP handler loads: the prebuilt bundle, run in fresh Node processes, answers
// initialize, ping and its first tools/list without the AWS SDK (the declared tool catalog is read by the short path,
// lean-declared-catalog.ts), which loads with the first request that calls AWS otherwise, or with the catalog's read
// where the environment asks for the SDK's (a shared config file, here); Powertools Tracer (and
// the X-Ray SDK) load only when tracing is on, and then trace the handler and its AWS calls to an X-Ray daemon (here
// a UDP socket of the test's, as Lambda runs one beside the function).
import { execFile } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it, vi } from 'vitest';
import { assetDirectory, projectPath } from '../../lib/handlers/handler-asset.js';
import { ENV } from '../../lambda/contract/environment-names.js';
import { localAwsEnvironment } from '../../local/local-aws.js';
import { writeDeclaredCatalog } from '../../local/declared-tool-catalog.js';
import { createTestTable, exampleTools, localAwsClients } from '../support/local-backend.js';

const MCP_HANDLER = join(assetDirectory(projectPath('lambda/handlers/mcp-http.ts')), 'index.mjs');
const PROBE = projectPath('test/support/bundle-loading-probe.mjs');
const AWS_SDK = '@aws-sdk/client-dynamodb';
/** The 2026-07-28 era's SDK: a 2025-era request never needs it. */
const MODERN_SDK = '@modelcontextprotocol/server';
const TRACER = ['@aws-lambda-powertools/tracer', 'aws-xray-sdk-core'];

interface Step {
  readonly step: string;
  readonly answer?: string;
  readonly packages: string[];
  /** The modules the files loaded so far were built from, as their source maps name them. */
  readonly sources: string[];
  /** How many of the files loaded so far hold the project's own modules. */
  readonly projectFiles: number;
}

function event(method: string, params: Record<string, unknown> = {}, protocolVersion = '2025-11-25') {
  return {
    httpMethod: 'POST',
    path: '/mcp',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      host: 'localhost',
      'mcp-protocol-version': protocolVersion,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    requestContext: { authorizer: { principalId: 'alice' } },
  };
}

const INITIALIZE = event('initialize', {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'probe', version: '1.0.0' },
});

/** A 2026-07-28 request: the era named in its headers and claimed in its `_meta` envelope. */
function modernEvent(method: string) {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'probe', version: '1.0.0' },
  };
  const modern = event(method, { _meta }, '2026-07-28');
  return { ...modern, headers: { ...modern.headers, 'mcp-method': method } };
}

async function coldStart(events: unknown[], extraEnv: Record<string, string> = {}): Promise<Step[]> {
  const tableName = await createTestTable();
  const env = {
    ...process.env,
    ...localAwsEnvironment({
      dynamoDbEndpoint: inject('dynamoDbEndpoint'),
      stepFunctionsEndpoint: inject('stepFunctionsEndpoint'),
    }),
    [ENV.tableName]: tableName,
    [ENV.toolCatalogItem]: await writeDeclaredCatalog(localAwsClients().dynamoDb, tableName, exampleTools()),
    // As in Lambda: no shared config file (one on this machine would send the catalog's read through the SDK).
    AWS_CONFIG_FILE: join(tmpdir(), 'no-aws-config'),
    ...extraEnv,
  };
  const { stdout } = await promisify(execFile)(process.execPath, [PROBE, MCP_HANDLER, JSON.stringify(events)], {
    env,
    encoding: 'utf8',
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Step[];
}

describe('the MCP handler bundle at cold start', () => {
  it('answers initialize, ping and tools/list without the AWS SDK, and none of them needs the 2026-07-28 SDK', async () => {
    const steps = await coldStart([INITIALIZE, event('ping'), event('tools/list')]);
    for (const step of steps) expect(step.packages).not.toContain(AWS_SDK);
    for (const step of steps) expect(step.packages).not.toContain(MODERN_SDK);
    expect(steps.map((step) => step.step)).toEqual(['import', 'initialize', 'ping', 'tools/list']);
    expect(steps[1]!.answer).toContain('"protocolVersion":"2025-11-25"');
    expect(steps[2]!.answer).toContain('"result":{}');
    // The first request that needs the tools reads their catalog, by the short path: no SDK, no @smithy/core.
    expect(steps[3]!.packages).not.toContain('@smithy/core');
    expect(steps[3]!.answer).toContain('"name":"text_stats"');
    // Ajv's 2020-12 dialect evaluates its meta-schemas when loaded: it waits for the first argument check.
    for (const step of steps) expect(step.sources.filter((source) => source.includes('ajv/dist/2020'))).toEqual([]);
    // Every project module the import loads comes from two files: the entry and one chunk
    // (scripts/cold-start-chunks.ts).
    expect(steps[0]!.projectFiles).toBeLessThanOrEqual(2);
  });

  it('reads the catalog through the SDK where a shared config file may configure it, and answers the same', async () => {
    const config = join(mkdtempSync(join(tmpdir(), 'aws-config-')), 'config');
    writeFileSync(config, '');
    const [, list] = await coldStart([event('tools/list')], { AWS_CONFIG_FILE: config });
    expect(list!.packages).toContain(AWS_SDK);
    expect(list!.answer).toContain('"name":"text_stats"');
  });

  it('loads the AWS SDK with the first request that calls AWS, and answers it', async () => {
    const [, initialize, list] = await coldStart([INITIALIZE, event('tasks/list')]);
    expect(initialize!.packages).not.toContain(AWS_SDK);
    expect(list!.packages).toContain(AWS_SDK);
    expect(list!.answer).toContain('"tasks":[]');
  });

  it('loads the 2026-07-28 SDK with the first modern-era request, and answers it', async () => {
    const [imported, list] = await coldStart([modernEvent('tools/list')]);
    expect(imported!.packages).not.toContain(MODERN_SDK);
    expect(list!.packages).toContain(MODERN_SDK);
    expect(list!.answer).toContain('"name":"text_stats"');
    expect(list!.answer).toContain('"resultType":"complete"');
  });

  it('answers a modern-era request that fails the SDK era checks from the loaded SDK, with a JSON-RPC error', async () => {
    // A modern header without the envelope: the SDK's own rule (loaded for it) refuses it with -32602.
    const [, refused] = await coldStart([event('tools/list', {}, '2026-07-28')]);
    expect(refused!.packages).toContain(MODERN_SDK);
    expect(refused!.answer).toContain('"code":-32602');
  });

  it('loads no Powertools Tracer or X-Ray SDK when tracing is off, even once it calls AWS', async () => {
    const steps = await coldStart([event('tools/list'), event('tasks/list')]);
    for (const step of steps) for (const tracer of TRACER) expect(step.packages).not.toContain(tracer);
  });

  it('loads Powertools Tracer at import when tracing is on', async () => {
    const [imported] = await coldStart([], { [ENV.tracing]: 'true' });
    expect(imported!.packages).toEqual(expect.arrayContaining(TRACER));
  });
});

describe('the MCP handler bundle with tracing on', () => {
  it('sends the X-Ray daemon a subsegment for the invocation, annotated cold start, and one per AWS call', async () => {
    const daemon = createSocket('udp4');
    const segments: Array<{
      name: string;
      namespace?: string;
      annotations?: Record<string, unknown>;
      aws?: { operation?: string };
    }> = [];
    // Each datagram is a header line, then the segment document.
    daemon.on('message', (message) => segments.push(JSON.parse(message.toString('utf8').split('\n')[1]!)));
    await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
    try {
      await coldStart([event('tasks/list')], {
        [ENV.tracing]: 'true',
        // What Lambda sets in a traced function's environment.
        AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
        AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
        LAMBDA_TASK_ROOT: join(MCP_HANDLER, '..'),
        _HANDLER: 'index.handler',
        _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
        AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.address().port}`,
        AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
      });
      await vi.waitUntil(() => segments.some((segment) => segment.name === '## index.handler'), { timeout: 10_000 });
      const invocation = segments.find((segment) => segment.name === '## index.handler')!;
      expect(invocation.annotations).toMatchObject({ ColdStart: true, Service: 'mcp-tasks' });
      // The declared tool catalog's read, then the listing's.
      const operations = () =>
        segments
          .filter((segment) => segment.namespace === 'aws')
          .map((segment) => `${segment.name} ${segment.aws?.operation}`);
      await vi.waitUntil(() => operations().length >= 2, { timeout: 10_000 });
      expect(operations()).toEqual(['DynamoDB GetItem', 'DynamoDB Query']);
    } finally {
      daemon.close();
    }
  });
});
