// End to end, modern era (MCP 2026-07-28): the official 2.x client with an ext-tasks session drives the Tasks
// extension over real HTTP against the local stack; raw requests pin down the wire details no client exposes.
// A legacy 1.x client shares the endpoint throughout.
import { STATUS_TOOL_NAMES } from '../../lambda/contract/tool-definition.js';
import { ListExecutionsCommand, type ExecutionListItem } from '@aws-sdk/client-sfn';
import type { Client } from '@modelcontextprotocol/client';
import type { TaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { taskKey } from '../../lambda/core/task-key.js';
import {
  connectClient,
  exampleTools,
  GENEROUS_WAIT,
  localAwsClients,
  startTestServer,
  TOKENS,
  type TestServer,
} from '../support/local-backend.js';
import {
  callModern,
  connectModernClient,
  connectTaskSession,
  modernRequest,
  postModern,
  sseMessages,
  TASKS_EXTENSION,
  type JsonRpcMessage,
  type ModernTaskClient,
} from '../support/modern-client.js';

let server: TestServer;
let alice: ModernTaskClient;

beforeAll(async () => {
  server = await startTestServer({ maxTtlMs: 3_600_000, directCallTimeoutMs: 5_000 });
  alice = await connectTaskSession(server.url, TOKENS.alice);
});
afterAll(async () => {
  await alice?.close();
  await server?.close();
});

/** Settles a tool call made through alice's ext-tasks session; the call must have become a task. */
async function settleTask(
  name: string,
  args: Record<string, unknown>,
): Promise<{ taskId: string; outcome: TaskOutcome<unknown> }> {
  const execution = await alice.session.callTool(name, args as never);
  if (execution.kind !== 'task') throw new Error(`${name} was answered inline, not as a task`);
  const { outcome } = await execution.settle();
  return { taskId: execution.handle.taskId, outcome };
}

/** Creates a task for `token` with a raw tools/call that declares the extension; returns its ID. */
async function createTask(name: string, args: Record<string, unknown>, token: string = TOKENS.alice): Promise<string> {
  const response = await callModern(server.url, modernRequest('tools/call', { name, arguments: args }), token);
  expect(response.result).toMatchObject({ resultType: 'task', status: 'working' });
  return response.result!['taskId'] as string;
}

async function taskStatus(taskId: string, token: string = TOKENS.alice): Promise<string | undefined> {
  return (await callModern(server.url, modernRequest('tasks/get', { taskId }), token)).result?.['status'] as
    string | undefined;
}

/** Every message of one subscriptions/listen stream, until the server ends it. */
async function listen(taskIds: string[], token: string = TOKENS.alice): Promise<JsonRpcMessage[]> {
  const response = await postModern(
    server.url,
    modernRequest('subscriptions/listen', { notifications: { taskIds } }),
    token,
  );
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const messages: JsonRpcMessage[] = [];
  for await (const message of sseMessages(response)) messages.push(message);
  return messages;
}

/** The executions Step Functions ran for one of `owner`'s tasks. */
async function executionsOf(toolName: string, owner: string, taskId: string): Promise<ExecutionListItem[]> {
  const stateMachineArn = exampleTools().find((tool) => tool.name === toolName)!.stateMachineArn;
  const { executions = [] } = await localAwsClients().stepFunctions.send(
    new ListExecutionsCommand({ stateMachineArn, maxResults: 1000 }),
  );
  return executions.filter((execution) => execution.name?.startsWith(`task-${taskKey(owner, taskId)}-`));
}

describe('an ext-tasks session (official 2.x client pinned to 2026-07-28)', () => {
  it('negotiates the modern era and sees the Tasks extension', () => {
    expect(alice.client.getProtocolEra()).toBe('modern');
    expect(alice.session.capabilities).toMatchObject({ execution: true, cancellation: true });
  });

  it('settles a long analyze_documents task to its tool result', async () => {
    const { outcome } = await settleTask('analyze_documents', {
      documents: ['The cat sat.', 'A dog ran far away.'],
      reviewSeconds: 1,
    });
    expect(outcome.status).toBe('completed');
    expect(outcome.status === 'completed' && outcome.result).toMatchObject({
      structuredContent: { documentCount: 2, totalWords: 8 },
    });
  });

  it('settles a cancelled analyze_documents task as cancelled, and its execution is aborted', async () => {
    const execution = await alice.session.callTool('analyze_documents', { documents: ['long'], reviewSeconds: 300 });
    if (execution.kind !== 'task') throw new Error('analyze_documents was answered inline, not as a task');
    await execution.cancel();
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe('cancelled');
    const executions = await vi.waitUntil(async () => {
      const found = await executionsOf('analyze_documents', 'alice', execution.handle.taskId);
      return found.length > 0 && found.every((item) => item.status !== 'RUNNING') && found;
    }, GENEROUS_WAIT);
    expect(executions.map((item) => item.status)).toEqual(['ABORTED']);
  });

  it('settles an export_report task as failed, with the execution error', async () => {
    const { outcome } = await settleTask('export_report', { reportName: 'quarterly' });
    expect(outcome.status).toBe('failed');
    expect(outcome.status === 'failed' && outcome.error).toMatchObject({
      code: -32603,
      message: expect.stringMatching(/^Execution failed: UpstreamUnavailable: .*'quarterly'/),
    });
  });

  it('settles a text_stats task whose tool reports an error as completed with isError', async () => {
    const { outcome } = await settleTask('text_stats', { text: '   ' });
    expect(outcome.status).toBe('completed');
    expect(outcome.status === 'completed' && outcome.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'The text has no words to count.' }],
    });
  });
});

describe('a 2.x client without the Tasks extension', () => {
  let plain: Client;
  beforeAll(async () => {
    plain = await connectModernClient(server.url, TOKENS.alice);
  });
  afterAll(async () => {
    await plain?.close();
  });

  it('lists every tool', async () => {
    const { tools } = await plain.listTools();
    // And the status tools, as to every client that did not declare tasks.
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      [...exampleTools().map((tool) => tool.name), ...Object.values(STATUS_TOOL_NAMES)].sort(),
    );
  });

  it('gets the tool result of a call synchronously', async () => {
    const result = await plain.callTool({ name: 'text_stats', arguments: { text: 'plain call works' } });
    expect(result.structuredContent).toMatchObject({ words: 3 });
  });
});

describe('the modern era on the wire', () => {
  it('advertises the Tasks extension under capabilities.extensions in server/discover, and no tasks capability', async () => {
    const { result } = await callModern(server.url, modernRequest('server/discover', {}, {}));
    expect(result).toMatchObject({
      supportedVersions: expect.arrayContaining(['2026-07-28']),
      capabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    });
    expect(result!['capabilities']).not.toHaveProperty('tasks');
  });

  it('answers a tools/call from a client without the extension with the tool result, not a task', async () => {
    const { result } = await callModern(
      server.url,
      modernRequest('tools/call', { name: 'text_stats', arguments: { text: 'one two' } }, {}),
    );
    expect(result).toMatchObject({ resultType: 'complete', structuredContent: { words: 2 } });
    expect(result).not.toHaveProperty('taskId');
  });

  it('answers tasks/get without the extension declared -32021 (HTTP 400), naming the extension as required', async () => {
    const taskId = await createTask('text_stats', { text: 'a' });
    const response = await postModern(server.url, modernRequest('tasks/get', { taskId }, {}));
    expect(response.status).toBe(400);
    expect(((await response.json()) as JsonRpcMessage).error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    });
  });

  it('answers tasks/get for an unknown task ID -32602, echoing the request id', async () => {
    const request = modernRequest('tasks/get', { taskId: 'no-such-task' });
    const response = await callModern(server.url, request);
    expect(response.id).toBe(request.id);
    expect(response.error).toMatchObject({ code: -32602 });
  });

  it('acknowledges tasks/cancel of a task that has already finished', async () => {
    const taskId = await createTask('text_stats', { text: 'done soon' });
    await vi.waitUntil(async () => (await taskStatus(taskId)) === 'completed', GENEROUS_WAIT);
    const response = await callModern(server.url, modernRequest('tasks/cancel', { taskId }));
    expect(response.error).toBeUndefined();
    expect(response.result).toMatchObject({ resultType: 'complete' });
    expect(await taskStatus(taskId)).toBe('completed');
  });

  it('streams a subscribed task: acknowledgement, each change until completed with the result inlined, then the end', async () => {
    const taskId = await createTask('analyze_documents', { documents: ['one two three'], reviewSeconds: 2 });
    const request = modernRequest('subscriptions/listen', { notifications: { taskIds: [taskId] } });
    const response = await postModern(server.url, request);
    const messages: JsonRpcMessage[] = [];
    for await (const message of sseMessages(response)) messages.push(message);
    expect(messages[0]).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { taskIds: [taskId] } },
    });
    const updates = messages.slice(1, -1);
    expect(updates.length).toBeGreaterThan(0);
    expect(
      updates.every((message) => message.method === 'notifications/tasks' && message.params?.['taskId'] === taskId),
    ).toBe(true);
    expect(updates.slice(0, -1).map((message) => message.params?.['status'])).toEqual(
      updates.slice(0, -1).map(() => 'working'),
    );
    expect(updates.at(-1)!.params).toMatchObject({
      status: 'completed',
      result: { resultType: 'complete', structuredContent: { documentCount: 1, totalWords: 3 } },
    });
    expect(messages.at(-1)).toMatchObject({ id: request.id, result: { resultType: 'complete' } });
  });

  it('answers subscriptions/listen for tasks without the extension declared -32021 (HTTP 400)', async () => {
    const taskId = await createTask('text_stats', { text: 'a' });
    const response = await postModern(
      server.url,
      modernRequest('subscriptions/listen', { notifications: { taskIds: [taskId] } }, {}),
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as JsonRpcMessage).error).toMatchObject({ code: -32021 });
  });

  it('has no tasks/list or tasks/result (-32601)', async () => {
    const taskId = await createTask('text_stats', { text: 'a' });
    expect((await callModern(server.url, modernRequest('tasks/list'))).error).toMatchObject({ code: -32601 });
    expect((await callModern(server.url, modernRequest('tasks/result', { taskId }))).error).toMatchObject({
      code: -32601,
    });
  });
});

describe('owner isolation in the modern era', () => {
  let taskId: string;
  beforeAll(async () => {
    taskId = await createTask('analyze_documents', { documents: ['alice only'], reviewSeconds: 300 }, TOKENS.alice);
  });
  afterAll(async () => {
    await callModern(server.url, modernRequest('tasks/cancel', { taskId }), TOKENS.alice);
  });

  it("answers bob's tasks/get of alice's task -32602, as for a task that does not exist", async () => {
    expect((await callModern(server.url, modernRequest('tasks/get', { taskId }), TOKENS.bob)).error).toMatchObject({
      code: -32602,
    });
  });

  it("answers bob's tasks/cancel of alice's task -32602, and her task keeps working", async () => {
    expect((await callModern(server.url, modernRequest('tasks/cancel', { taskId }), TOKENS.bob)).error).toMatchObject({
      code: -32602,
    });
    expect(await taskStatus(taskId, TOKENS.alice)).toBe('working');
  });

  it("answers bob's tasks/update of alice's task -32602", async () => {
    const response = await callModern(
      server.url,
      modernRequest('tasks/update', { taskId, inputResponses: {} }),
      TOKENS.bob,
    );
    expect(response.error).toMatchObject({ code: -32602 });
  });

  it("acknowledges bob's subscription to alice's task with no task IDs, and tells him nothing about it", async () => {
    const messages = await listen([taskId], TOKENS.bob);
    expect(messages[0]).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { taskIds: [] } },
    });
    expect(messages.filter((message) => message.method === 'notifications/tasks')).toEqual([]);
  });

  it('acknowledges only the tasks a subscriber owns when a listen names both', async () => {
    const bobsTask = await createTask('text_stats', { text: 'bob words' }, TOKENS.bob);
    const messages = await listen([taskId, bobsTask], TOKENS.bob);
    expect(messages[0]!.params).toMatchObject({ notifications: { taskIds: [bobsTask] } });
    expect(
      messages
        .filter((message) => message.method === 'notifications/tasks')
        .every((message) => message.params?.['taskId'] === bobsTask),
    ).toBe(true);
  });
});

describe('both eras on one endpoint', () => {
  it('serves a legacy 1.x client while a modern task runs', async () => {
    const execution = await alice.session.callTool('analyze_documents', {
      documents: ['side by side'],
      reviewSeconds: 1,
    });
    const legacy = await connectClient(server.url, TOKENS.alice);
    try {
      const result = await legacy.callTool({ name: 'text_stats', arguments: { text: 'legacy still works' } });
      expect(result.structuredContent).toMatchObject({ words: 3 });
    } finally {
      await legacy.close();
    }
    expect((await execution.settle()).outcome.status).toBe('completed');
  });
});
