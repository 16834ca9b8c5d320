// `npm run bench:poll-layers`: where a poll's cost goes, layer by layer, in ONE process (no other server beside it):
// the task store's GetItem, the task service's read, the MCP app answering tasks/get (and ping, its floor) from a
// Request object, and again over real HTTP (whose rows hold the client's CPU with the server's: one process). Each row
// is CPU time and elapsed time per call, after a warm-up; the differences between rows are what each layer adds.
// `npm run bench` gives the figures against the anchor.
import { Agent, request as httpRequest } from 'node:http';
import { MODERN_VERSION } from '../cli/modern-dispatch.js';
import { TaskOrigin } from '../lambda/core/task.js';
import { taskKey } from '../lambda/core/task-key.js';
import { PARTITION_KEY } from '../lambda/contract/task-table-schema.js';
import { EXAMPLE_TOOLS } from '../lambda/example-tools/example-tool-catalog.js';
import { createBackend } from '../lambda/handlers/backend.js';
import { DEFAULT_SETTINGS } from '../lambda/service/settings.js';
import { singleOwner, startDevServer } from '../local/dev-server.js';
import { createEventTable } from '../local/dynamodb-local-tables.js';
import { localClients, startLocalInfrastructure } from '../local/infrastructure.js';
import { deployedEvents } from './deployed-events.js';
import { storedTask } from './seed-tasks.js';

const CALLS = Number(process.env['BENCH_ROUNDS'] ?? 1_000);
/** Calls before each measurement, so that every layer runs JIT-optimized code, as a busy function's does. */
const WARMUPS = 300;
const OWNER = 'bench';
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
  host: 'localhost',
};

/**
 * One GetItem sent without the AWS SDK (DynamoDB Local does not check the signature): the stand-in's own service time
 * plus one HTTP round trip, the floor under every poll that reads DynamoDB.
 */
function rawGetItem(endpoint: string, tableName: string, key: string): () => Promise<void> {
  const agent = new Agent({ keepAlive: true });
  const { hostname, port } = new URL(endpoint);
  const headers = {
    'content-type': 'application/x-amz-json-1.0',
    'x-amz-target': 'DynamoDB_20120810.GetItem',
    authorization:
      'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
  };
  const body = JSON.stringify({ TableName: tableName, Key: { [PARTITION_KEY]: { S: key } }, ConsistentRead: true });
  return () =>
    new Promise((resolve, reject) => {
      const sent = httpRequest({ hostname, port, method: 'POST', path: '/', agent, headers }, (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => {
          if (response.statusCode !== 200 || !('Item' in JSON.parse(text))) reject(new Error(`GetItem: ${text}`));
          else resolve();
        });
      });
      sent.on('error', reject);
      sent.end(body);
    });
}

async function main(): Promise<void> {
  const infrastructure = await startLocalInfrastructure({ example: EXAMPLE_TOOLS });
  try {
    await infrastructure.createTable('bench');
    const clients = localClients(infrastructure);
    await createEventTable(clients.dynamoDb, 'bench-events');
    const quiet = { info: () => {}, warn: () => {}, error: () => {} };
    // A poll is the one read, as deployed (events and webhooks on).
    const settings = DEFAULT_SETTINGS;
    const { service, app } = createBackend(
      { tableName: 'bench', tools: infrastructure.tools.example, settings, events: deployedEvents('bench-events') },
      clients,
      quiet,
    );
    const { taskId } = await service.createTask({
      owner: OWNER,
      toolName: 'analyze_documents',
      arguments: { documents: ['a'], reviewSeconds: 3600 },
      origin: TaskOrigin.Mcp20251125,
    });
    const server = await startDevServer(app, { resolveOwner: singleOwner(OWNER) });
    const body = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
    const inApp = async (method: string, params: unknown) =>
      (
        await app.handle(
          new Request(server.url, { method: 'POST', headers: HEADERS, body: body(method, params) }),
          OWNER,
        )
      ).text();
    // The same poll in the modern era (2026-07-28, the Tasks extension): the era's headers, and its envelope in _meta.
    const modernHeaders = {
      ...HEADERS,
      'mcp-protocol-version': MODERN_VERSION,
      'mcp-method': 'tasks/get',
      'mcp-name': taskId,
    };
    const modernBody = body('tasks/get', {
      taskId,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
      },
    });
    const modernInApp = async () => {
      const request = new Request(server.url, { method: 'POST', headers: modernHeaders, body: modernBody });
      const text = await (await app.handle(request, OWNER)).text();
      // A refused envelope would measure the refusal: the answer must be the task.
      if (!text.includes(`"taskId":"${taskId}"`)) throw new Error(`The modern tasks/get answered ${text}`);
      return text;
    };
    const overHttp = async (method: string, params: unknown) =>
      (await fetch(server.url, { method: 'POST', headers: HEADERS, body: body(method, params) })).text();
    const modernOverHttp = async () =>
      (await fetch(server.url, { method: 'POST', headers: modernHeaders, body: modernBody })).text();
    const layers: [string, () => Promise<unknown>][] = [
      [
        'DynamoDB Local: GetItem, raw HTTP',
        rawGetItem(infrastructure.dynamoDbEndpoint, 'bench', taskKey(OWNER, taskId)),
      ],
      ['task store: one GetItem (AWS SDK)', () => storedTask(clients.dynamoDb, 'bench', OWNER, taskId)],
      ['task service: getTask', () => service.getTask(OWNER, taskId)],
      ['MCP app: ping', () => inApp('ping', {})],
      ['MCP app: tasks/get', () => inApp('tasks/get', { taskId })],
      ['MCP app: tasks/get (2026-07-28)', modernInApp],
      ['HTTP: ping', () => overHttp('ping', {})],
      ['HTTP: tasks/get', () => overHttp('tasks/get', { taskId })],
      ['HTTP: tasks/get (2026-07-28)', modernOverHttp],
    ];
    console.log(`\nnpm run bench:poll-layers: ${CALLS} calls each, one process, Node ${process.version}\n`);
    console.log(`${'layer'.padEnd(36)}${'CPU ms/call'.padStart(12)}${'elapsed ms/call'.padStart(17)}`);
    for (const [name, call] of layers) {
      for (let warmup = 0; warmup < WARMUPS; warmup++) await call();
      const cpu = process.cpuUsage();
      const start = performance.now();
      for (let index = 0; index < CALLS; index++) await call();
      const elapsed = (performance.now() - start) / CALLS;
      const used = process.cpuUsage(cpu);
      const cpuMs = (used.user + used.system) / CALLS / 1000;
      console.log(`${name.padEnd(36)}${cpuMs.toFixed(2).padStart(12)}${elapsed.toFixed(2).padStart(17)}`);
    }
    await server.close();
  } finally {
    await infrastructure.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
