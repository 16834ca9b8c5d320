// End to end: clients that do not speak tasks (the official 1.x SDK client declaring no tasks, the 2.x client on
// 2026-07-28 without the Tasks extension) run a workflow longer than the plain-call wait: the call is handed off as a
// task, whose execution goes on, and the status tools follow it to its result, or stop it.
import { DescribeExecutionCommand, ListExecutionsCommand } from '@aws-sdk/client-sfn';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskKey } from '../../lambda/core/task-key.js';
import {
  conformanceTools,
  connectClient,
  exampleTools,
  localAwsClients,
  startTestServer,
  TOKENS,
  type TestServer,
} from '../support/local-backend.js';
import { callModern, connectModernClient, modernRequest } from '../support/modern-client.js';

const STATUS_TOOLS = ['task_cancel', 'task_result', 'task_status'];
const RELATED_TASK = 'io.modelcontextprotocol/related-task';

type ToolAnswer = {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
};
/** What both SDKs' callTool share: a name and arguments in, a tool result out. */
type CallTool = (name: string, args: Record<string, unknown>) => Promise<ToolAnswer>;

let server: TestServer;
let legacy: Client;
let modern: ModernClient;

beforeAll(async () => {
  server = await startTestServer({ directCallTimeoutMs: 1_500 });
  legacy = await connectClient(server.url);
  modern = await connectModernClient(server.url);
});
afterAll(async () => {
  await legacy?.close();
  await modern?.close();
  await server?.close();
});

const textOf = (answer: ToolAnswer): string => answer.content.map((block) => block.text ?? '').join('\n');

/** The task id a handoff names, read as a model would: from its text. Its `_meta` must say the same. */
function handedOffTaskId(answer: ToolAnswer): string {
  expect(answer.isError).toBeUndefined();
  expect(answer.structuredContent).toBeUndefined();
  const match = /as task ([0-9a-f]{32})\./.exec(textOf(answer));
  expect(match, textOf(answer)).not.toBeNull();
  expect(answer._meta?.[RELATED_TASK]).toEqual({ taskId: match![1] });
  return match![1]!;
}

async function executionOf(owner: string, taskId: string, toolName: string) {
  const sfn = localAwsClients().stepFunctions;
  const stateMachineArn = exampleTools().find((tool) => tool.name === toolName)!.stateMachineArn;
  const { executions = [] } = await sfn.send(new ListExecutionsCommand({ stateMachineArn, maxResults: 1000 }));
  const own = executions.filter((execution) => execution.name?.startsWith(`task-${taskKey(owner, taskId)}-`));
  expect(own).toHaveLength(1);
  return sfn.send(new DescribeExecutionCommand({ executionArn: own[0]!.executionArn }));
}

/** Calls task_result until the task has ended, as a model told to call it again would. */
async function resultByStatusTools(call: CallTool, taskId: string): Promise<ToolAnswer> {
  for (let round = 0; round < 60; round++) {
    const answer = await call('task_result', { taskId });
    if (!/still runs|Running for/.test(textOf(answer)) || answer.structuredContent !== undefined) return answer;
  }
  throw new Error(`task ${taskId} never ended`);
}

const eras: Array<{ era: string; call: () => CallTool; owner: string }> = [
  {
    era: '2025-11-25, the 1.x client declaring no tasks',
    call: () => async (name, args) =>
      (await legacy.callTool({ name, arguments: args }, CallToolResultSchema)) as ToolAnswer,
    owner: 'alice',
  },
  {
    era: '2026-07-28, the 2.x client without the Tasks extension',
    call: () => async (name, args) => (await modern.callTool({ name, arguments: args })) as ToolAnswer,
    owner: 'alice',
  },
];

describe.each(eras)('a long workflow called plainly on $era', ({ call, owner }) => {
  it('is handed off within the wait, and task_result returns what a task-augmented call returns', async () => {
    const args = { documents: ['The cat sat.', 'A dog ran.'], reviewSeconds: 3 };
    const answer = await call()('analyze_documents', args);
    const taskId = handedOffTaskId(answer);
    expect(textOf(answer)).toMatch(/task_result with \{"taskId":"[0-9a-f]{32}"\}/);
    const result = await resultByStatusTools(call(), taskId);
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ documentCount: 2, totalWords: 6 });
    // The same call made as a task.
    const stream = legacy.experimental.tasks.callToolStream(
      { name: 'analyze_documents', arguments: args },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    );
    let asTask: ToolAnswer | undefined;
    for await (const message of stream) if (message.type === 'result') asTask = message.result as ToolAnswer;
    expect(result.content).toEqual(asTask!.content);
    expect(result.structuredContent).toEqual(asTask!.structuredContent);
    expect((await executionOf(owner, taskId, 'analyze_documents')).status).toBe('SUCCEEDED');
  });

  it('is an ordinary task of the caller’s: task_status looks, task_cancel stops its execution', async () => {
    const taskId = handedOffTaskId(await call()('analyze_documents', { documents: ['x'], reviewSeconds: 60 }));
    const status = await call()('task_status', { taskId });
    expect(textOf(status)).toMatch(/Status: working\./);
    expect(textOf(status)).toMatch(/Running for \d+ s\./);
    expect((await legacy.experimental.tasks.getTask(taskId)).status).toBe('working');
    const cancelled = await call()('task_cancel', { taskId });
    expect(textOf(cancelled)).toMatch(/Cancelled task/);
    expect((await executionOf(owner, taskId, 'analyze_documents')).status).toBe('ABORTED');
    expect(textOf(await call()('task_status', { taskId }))).toMatch(/Status: cancelled\./);
  });

  it('answers another owner’s id as it answers an id that never was, naming neither’s owner', async () => {
    const taskId = handedOffTaskId(await call()('analyze_documents', { documents: ['x'], reviewSeconds: 60 }));
    const bob = await connectClient(server.url, TOKENS.bob);
    try {
      const foreign = (await bob.callTool({ name: 'task_status', arguments: { taskId } })) as ToolAnswer;
      const never = (await bob.callTool({
        name: 'task_status',
        arguments: { taskId: '0'.repeat(32) },
      })) as ToolAnswer;
      expect(foreign.isError).toBe(true);
      expect(textOf(foreign)).toBe(textOf(never).replace('0'.repeat(32), taskId));
      expect(textOf(foreign)).not.toMatch(/alice|analyze_documents/);
    } finally {
      await bob.close();
      await call()('task_cancel', { taskId });
    }
  });
});

describe('the status tools in tools/list', () => {
  it('are listed to clients that do not declare tasks, in both eras', async () => {
    const legacyNames = (await legacy.listTools()).tools.map((tool) => tool.name);
    const modernNames = (await modern.listTools()).tools.map((tool) => tool.name);
    for (const names of [legacyNames, modernNames]) expect(names).toEqual(expect.arrayContaining(STATUS_TOOLS));
    const listed = (await legacy.listTools()).tools.find((tool) => tool.name === 'task_cancel')!;
    expect(listed).toMatchObject({
      execution: { taskSupport: 'forbidden' },
      annotations: { readOnlyHint: false, destructiveHint: true },
    });
  });

  it('are not listed to a 2025-11-25 client that declared tasks at initialize', async () => {
    const tasksClient = new Client(
      { name: 'tasks-client', version: '1.0.0' },
      { capabilities: { tasks: { list: {}, cancel: {}, requests: { elicitation: { create: {} } } } } },
    );
    await tasksClient.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { authorization: `Bearer ${TOKENS.alice}` } },
      }),
    );
    try {
      const names = (await tasksClient.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('analyze_documents');
      for (const name of STATUS_TOOLS) expect(names).not.toContain(name);
    } finally {
      await tasksClient.close();
    }
  });

  it('are not listed to a 2026-07-28 request that declares the Tasks extension', async () => {
    const response = await callModern(server.url, modernRequest('tools/list'));
    const names = (response.result!['tools'] as Array<{ name: string }>).map((tool) => tool.name);
    expect(names).toContain('analyze_documents');
    for (const name of STATUS_TOOLS) expect(names).not.toContain(name);
  });
});

describe('a tool that runs only as a task, called plainly', () => {
  // The conformance suite's fixtures have one: failing_job, registered as required.
  let fixtures: TestServer;
  beforeAll(async () => {
    fixtures = await startTestServer({}, { tools: conformanceTools() });
  });
  afterAll(async () => {
    await fixtures?.close();
  });

  async function failingJobExecutions(): Promise<number> {
    const stateMachineArn = conformanceTools().find((tool) => tool.name === 'failing_job')!.stateMachineArn;
    const { executions = [] } = await localAwsClients().stepFunctions.send(
      new ListExecutionsCommand({ stateMachineArn, maxResults: 1000 }),
    );
    return executions.length;
  }
  const failingJob = { name: 'failing_job', arguments: {} };

  it('is refused with -32601 on 2025-11-25 and -32021 on 2026-07-28, and nothing starts', async () => {
    const before = await failingJobExecutions();
    const client = await connectClient(fixtures.url);
    try {
      const legacyAnswer = await client
        .request({ method: 'tools/call', params: failingJob }, CallToolResultSchema)
        .catch((error: unknown) => error);
      expect(legacyAnswer).toMatchObject({ code: -32601, message: expect.stringMatching(/runs only as a task/) });
    } finally {
      await client.close();
    }
    const modernAnswer = await callModern(fixtures.url, modernRequest('tools/call', failingJob, {}));
    expect(modernAnswer.error).toMatchObject({ code: -32021 });
    expect(await failingJobExecutions()).toBe(before);
  });
});
