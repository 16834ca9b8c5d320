// `npm start` with LOCAL_STATE_DIR keeps its state across a restart: started, given a tagged machine (the real SFN
// client), a schema in a registry of its own (the real Schemas client) and tasks (the official MCP client), stopped
// with Ctrl-C's SIGINT and started again on the same fixed ports, it still has them all. A task that had finished reads
// the same, result included; one whose execution was running at the stop ends failed, the restart named as why.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateRegistryCommand,
  CreateSchemaCommand,
  DescribeSchemaCommand,
  SchemasClient,
} from '@aws-sdk/client-schemas';
import {
  CreateStateMachineCommand,
  DescribeStateMachineCommand,
  ListTagsForResourceCommand,
  SFNClient,
} from '@aws-sdk/client-sfn';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema, type Task } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../local/free-port.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/local-aws.js';
import { PORT_VARIABLES } from '../../local/local-ports.js';
import { STATE_DIR_VARIABLE } from '../../local/local-state.js';
import { RESTARTED } from '../../local/step-functions/persisted-registry.js';
import { connectClient, GENEROUS_WAIT } from '../support/local-backend.js';
import { startLocalStackProcess, type LocalStackProcess } from '../support/local-stack-process.js';

const ROLE_ARN = 'arn:aws:iam::000000000000:role/local';
const DEFINITION = JSON.stringify({
  Comment: 'Looks an order up.',
  StartAt: 'Look',
  States: { Look: { Type: 'Pass', End: true } },
});
const TAGS = [
  { key: 'mcp:tool', value: 'true' },
  { key: 'team', value: 'orders' },
];
const SCHEMA = { RegistryName: 'orders', SchemaName: 'RefundInput' };
const SCHEMA_CONTENT = JSON.stringify({ type: 'object', properties: { orderId: { type: 'string' } } });
const HOUR_MS = 3_600_000;

let stateDir: string;
let env: Record<string, string>;
let stack: LocalStackProcess | undefined;
let stepFunctions: SFNClient;
let schemas: SchemasClient;
let client: Client | undefined;
let machineArn: string;
let finished: { task: Task; result: unknown };
let interrupted: Task;

const mcpUrl = () => `http://127.0.0.1:${env[PORT_VARIABLES.mcp]}/mcp`;

async function startTask(mcp: Client, name: string, args: Record<string, unknown>): Promise<Task> {
  const { task } = await mcp.request(
    { method: 'tools/call', params: { name, arguments: args, task: { ttl: HOUR_MS } } },
    CreateTaskResultSchema,
  );
  return task;
}

/**
 * Starts the stack on `env`'s ports. A port found free a moment ago can be held by another process by then (on a busy
 * machine, another test's listener or an outgoing connection's local port): the first start then takes new ports, a
 * restart (which must keep its ports) waits for the holder to let go.
 */
async function startStack(options: { samePorts: boolean }): Promise<LocalStackProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startLocalStackProcess(env);
    } catch (error) {
      if (attempt === 5 || !(error as Error).message.includes('is already in use')) throw error;
      if (options.samePorts) await new Promise((resolve) => setTimeout(resolve, 1_000));
      else env = { ...env, ...(await freePorts()) };
    }
  }
}

async function freePorts(): Promise<Record<string, string>> {
  const names = Object.values(PORT_VARIABLES);
  return Object.fromEntries(await Promise.all(names.map(async (name) => [name, String(await freePort())])));
}

async function restart(): Promise<void> {
  await client?.close();
  await stack?.stop();
  stack = await startStack({ samePorts: true });
  client = await connectClient(mcpUrl());
}

beforeAll(async () => {
  stateDir = mkdtempSync(join(tmpdir(), 'local-stack-state-'));
  env = {
    ...(await freePorts()),
    [STATE_DIR_VARIABLE]: stateDir,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
  };
  stack = await startStack({ samePorts: false });
  const common = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  stepFunctions = new SFNClient({ ...common, endpoint: `http://127.0.0.1:${env[PORT_VARIABLES.stepFunctions]}` });
  schemas = new SchemasClient({ ...common, endpoint: `http://127.0.0.1:${env[PORT_VARIABLES.schemaRegistry]}` });
  client = await connectClient(mcpUrl());
  ({ stateMachineArn: machineArn } = (await stepFunctions.send(
    new CreateStateMachineCommand({ name: 'refund-lookup', roleArn: ROLE_ARN, definition: DEFINITION, tags: TAGS }),
  )) as { stateMachineArn: string });
  await schemas.send(new CreateRegistryCommand({ RegistryName: 'orders' }));
  await schemas.send(new CreateSchemaCommand({ ...SCHEMA, Type: 'JSONSchemaDraft4', Content: SCHEMA_CONTENT }));
  const mcp = client;
  const task = await startTask(mcp, 'text_stats', { text: 'Kept across a restart.' });
  await vi.waitUntil(
    async () => (await mcp.experimental.tasks.getTask(task.taskId)).status === 'completed',
    GENEROUS_WAIT,
  );
  finished = {
    task: await mcp.experimental.tasks.getTask(task.taskId),
    result: await mcp.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema),
  };
  // A review window far longer than the test: its execution is running when the stack stops.
  interrupted = await startTask(mcp, 'analyze_documents', { documents: ['Still running.'], reviewSeconds: 3600 });
  await vi.waitUntil(
    async () => (await mcp.experimental.tasks.getTask(interrupted.taskId)).status === 'working',
    GENEROUS_WAIT,
  );

  await restart();
}, 300_000);

afterAll(async () => {
  await client?.close();
  await stack?.stop();
  stepFunctions?.destroy();
  schemas?.destroy();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
}, 60_000);

describe('the local stack with LOCAL_STATE_DIR, stopped and started again', () => {
  it('says where it keeps its state', () => {
    expect(stack!.output()).toContain(`State: kept in ${stateDir}`);
  });

  it('still has the machine, its definition and its tags', async () => {
    expect(await stepFunctions.send(new DescribeStateMachineCommand({ stateMachineArn: machineArn }))).toMatchObject({
      name: 'refund-lookup',
      definition: DEFINITION,
    });
    const { tags } = await stepFunctions.send(new ListTagsForResourceCommand({ resourceArn: machineArn }));
    expect(tags).toEqual(TAGS);
  });

  it('still has the registry and the schema in it', async () => {
    expect(await schemas.send(new DescribeSchemaCommand(SCHEMA))).toMatchObject({
      Content: SCHEMA_CONTENT,
      SchemaVersion: '1',
    });
  });

  it('reads a task finished before the restart as it was, and gives its result', async () => {
    const mcp = client!;
    expect(await mcp.experimental.tasks.getTask(finished.task.taskId)).toEqual(finished.task);
    expect(await mcp.experimental.tasks.getTaskResult(finished.task.taskId, CallToolResultSchema)).toEqual(
      finished.result,
    );
    expect(finished.result).toMatchObject({ structuredContent: expect.objectContaining({ words: 4 }) });
  });

  it('ends a task whose execution was running at the stop as failed, the restart its reason', async () => {
    const mcp = client!;
    await vi.waitUntil(
      async () => (await mcp.experimental.tasks.getTask(interrupted.taskId)).status !== 'working',
      GENEROUS_WAIT,
    );
    expect(await mcp.experimental.tasks.getTask(interrupted.taskId)).toMatchObject({
      status: 'failed',
      statusMessage: expect.stringContaining(RESTARTED.error),
    });
  });
});
