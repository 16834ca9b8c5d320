// End to end, 2025-11-25 era: the example refund_order workflow asks a person to approve a refund. The SDK 1.x
// client (with an elicitation handler) receives the question as an elicitation/create request on the stream of its
// tasks/result (or of a plain tools/call) from one server instance, and its JSON-RPC response is POSTed to ANOTHER
// instance on the same store, which resumes the execution; the execution then branches on the answer.
import { randomUUID } from 'node:crypto';
import {
  DescribeExecutionCommand,
  ListExecutionsCommand,
  type DescribeExecutionCommandOutput,
} from '@aws-sdk/client-sfn';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  type ElicitResult,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskKey } from '../../lambda/core/task-key.js';
import { RELATED_TASK_META_KEY_2025 } from '../../lambda/protocol/mcp-2025-11-25.js';
import { useInputBackend } from '../support/input-backend.js';
import {
  conformanceTools,
  connectClient,
  progressTable,
  startTestServer,
  TOKENS,
  type TestServer,
} from '../support/local-backend.js';
import { RELATED_TASK, Sep1686Client, type JsonRpcMessage } from '../support/sep-1686-client.js';

const backend = useInputBackend();
const first = () => backend.servers[0].url;
const second = () => backend.servers[1].url;

interface AskedQuestion {
  readonly id: RequestId;
  readonly params: { message: string; requestedSchema: { required?: string[] }; _meta?: Record<string, unknown> };
}

/** A JSON-RPC response body: what the client POSTs to answer a server->client request. */
const isResponse = (body: unknown): boolean =>
  typeof body === 'string' && /"result"|"error"/.test(body) && !/"method"/.test(body);

/** POSTs a raw JSON-RPC message as `token`'s owner; returns the HTTP status and body. */
async function post(
  url: string,
  message: unknown,
  token: string = TOKENS.alice,
): Promise<{ status: number; body: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify(message),
  });
  return { status: response.status, body: await response.text() };
}

/**
 * The SDK 1.x client connected to the first server, answering elicitations with `answer`. Every POST carrying a
 * JSON-RPC response goes to the second server instead (to both, when `duplicateAnswers`): `answersRouted` counts them.
 */
async function connect(
  answer: (question: AskedQuestion) => Promise<ElicitResult>,
  options: { duplicateAnswers?: boolean } = {},
) {
  const routed = { count: 0 };
  const fetchRouting = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    if (init?.method === 'POST' && isResponse(init.body)) {
      routed.count += 1;
      if (options.duplicateAnswers) {
        const [one] = await Promise.all([fetch(second(), init), fetch(first(), init)]);
        return one;
      }
      return fetch(second(), init);
    }
    return fetch(url, init);
  };
  const client = new Client({ name: 'legacy-input-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (request, extra) =>
    answer({ id: extra.requestId, params: request.params as AskedQuestion['params'] }),
  );
  const transport = new StreamableHTTPClientTransport(new URL(first()), {
    requestInit: { headers: { authorization: `Bearer ${TOKENS.alice}` } },
    fetch: fetchRouting,
  });
  await client.connect(transport);
  return { client, routed };
}

/**
 * Runs refund_order as a task through the SDK's task stream (tools/call, tasks/get, then tasks/result on
 * input_required).
 */
async function refundAsTask(
  client: Client,
  args: Record<string, unknown>,
): Promise<{ taskId: string; result: Record<string, unknown> }> {
  let taskId = '';
  for await (const message of client.experimental.tasks.callToolStream(
    { name: 'refund_order', arguments: args },
    CallToolResultSchema,
    { task: { ttl: 600_000 } },
  )) {
    if (message.type === 'taskCreated') taskId = message.task.taskId;
    if (message.type === 'error') throw message.error;
    if (message.type === 'result') return { taskId, result: message.result as Record<string, unknown> };
  }
  throw new Error('the task stream ended without a result');
}

async function taskStatus(client: Client, taskId: string): Promise<string> {
  return (await client.experimental.tasks.getTask(taskId)).status;
}

describe('refund_order as a task, SDK 1.x client, answers POSTed to another instance', () => {
  it('asks on the tasks/result stream with related-task meta and applies the refund when the answer accepts', async () => {
    const asked: AskedQuestion[] = [];
    const { client, routed } = await connect(
      async (question) => (
        asked.push(question),
        { action: 'accept', content: { approve: true, amount: 5, note: 'Sorry!' } }
      ),
    );
    try {
      const { taskId, result } = await refundAsTask(client, { orderId: 'L-1', reason: 'arrived broken' });
      expect(asked).toHaveLength(1);
      expect(asked[0]!.params).toMatchObject({
        message: expect.stringContaining('order L-1'),
        _meta: { [RELATED_TASK_META_KEY_2025]: { taskId } },
      });
      expect(asked[0]!.params.requestedSchema.required).toEqual(['approve']);
      expect(routed.count).toBe(1);
      expect(result).toMatchObject({
        structuredContent: { orderId: 'L-1', refunded: true, outcome: 'refunded', amount: 5, note: 'Sorry!' },
      });
    } finally {
      await client.close();
    }
  });

  it('declines the refund when the answer declines', async () => {
    const { client, routed } = await connect(async () => ({ action: 'decline' }));
    try {
      const { result } = await refundAsTask(client, { orderId: 'L-2' });
      expect(routed.count).toBe(1);
      expect(result).toMatchObject({
        structuredContent: { orderId: 'L-2', refunded: false, outcome: 'declined', answer: 'decline' },
      });
    } finally {
      await client.close();
    }
  });

  it('delivers an answer POSTed to both instances once: one SendTaskSuccess', async () => {
    const before = backend.sendTaskSuccessCalls();
    const { client } = await connect(async () => ({ action: 'accept', content: { approve: true, amount: 3 } }), {
      duplicateAnswers: true,
    });
    try {
      const { result } = await refundAsTask(client, { orderId: 'L-3' });
      expect(result).toMatchObject({ structuredContent: { refunded: true, amount: 3 } });
      expect(backend.sendTaskSuccessCalls() - before).toBe(1);
    } finally {
      await client.close();
    }
  });
});

describe('the POSTed response to an input request', () => {
  it('is refused with -32602 when it does not match the requested schema, and the request stays open', async () => {
    const refusals: { status: number; body: string }[] = [];
    const { client } = await connect(async (question) => {
      refusals.push(
        await post(second(), { jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { amount: 1 } } }),
      );
      return { action: 'accept', content: { approve: true } };
    });
    try {
      const { result } = await refundAsTask(client, { orderId: 'L-4' });
      expect(refusals).toHaveLength(1);
      expect(refusals[0]!.status).toBe(400);
      expect(JSON.parse(refusals[0]!.body)).toMatchObject({
        error: { code: -32602, message: expect.stringContaining("must have required property 'approve'") },
      });
      // The valid answer after the refused one still resumed the execution.
      expect(result).toMatchObject({ structuredContent: { refunded: true } });
    } finally {
      await client.close();
    }
  });

  it("is ignored for an unknown id or another owner's task, answered alike, so nothing leaks", async () => {
    const seen: { status: number; body: string }[] = [];
    let statusMeanwhile = '';
    let taskOfQuestion = '';
    const { client } = await connect(async (question) => {
      taskOfQuestion = (question.params._meta?.[RELATED_TASK_META_KEY_2025] as { taskId: string }).taskId;
      const accept = { action: 'accept', content: { approve: true } };
      seen.push(await post(second(), { jsonrpc: '2.0', id: question.id, result: accept }, TOKENS.bob));
      seen.push(
        await post(second(), {
          jsonrpc: '2.0',
          id: 'mcp-tasks-sfn/input/WyJuby1zdWNoLXRhc2siLCJpbnB1dC14Il0',
          result: accept,
        }),
      );
      seen.push(await post(second(), { jsonrpc: '2.0', id: 12345, result: accept }));
      statusMeanwhile = await taskStatus(client, taskOfQuestion);
      return { action: 'decline' };
    });
    try {
      const { result } = await refundAsTask(client, { orderId: 'L-5' });
      expect(seen).toEqual([
        { status: 202, body: '' },
        { status: 202, body: '' },
        { status: 202, body: '' },
      ]);
      // Bob's answer did not resume Alice's execution: it still waited, and Alice's own answer decided.
      expect(statusMeanwhile).toBe('input_required');
      expect(result).toMatchObject({ structuredContent: { refunded: false, outcome: 'declined' } });
    } finally {
      await client.close();
    }
  });
});

describe('refund_order as a plain tools/call (no task)', () => {
  it('asks on the call stream and returns the branch the answer chose', async () => {
    const asked: AskedQuestion[] = [];
    const { client, routed } = await connect(
      async (question) => (asked.push(question), { action: 'accept', content: { approve: true, amount: 2 } }),
    );
    try {
      const result = await client.callTool({ name: 'refund_order', arguments: { orderId: 'L-6' } });
      expect(asked).toHaveLength(1);
      // The call's own task is not the client's to see: no related-task meta.
      expect(asked[0]!.params._meta).toBeUndefined();
      expect(routed.count).toBe(1);
      expect(result).toMatchObject({ structuredContent: { orderId: 'L-6', refunded: true, amount: 2 } });
    } finally {
      await client.close();
    }
  });
});

describe('refund_order and a client without the elicitation capability', () => {
  // Its SDK answers the approval form with -32601 (no handler); the workflow gets { error } in place of an answer.
  const couldNotAnswer = (orderId: string) => ({
    isError: true,
    structuredContent: {
      orderId,
      refunded: false,
      outcome: 'not_answered',
      message: expect.stringMatching(
        /^The client could not answer the approval form: .+ \(error -32601\)\. Nothing was refunded; call refund_order again/,
      ),
    },
  });

  it('ends the task with a tool error a person can act on, and refunds nothing', async () => {
    const client = await connectClient(first());
    try {
      const { taskId, result } = await refundAsTask(client, { orderId: 'N-1' });
      expect(result).toMatchObject(couldNotAnswer('N-1'));
      // 2025-11-25: a task whose result is a tool error (isError) reports failed.
      expect(await taskStatus(client, taskId)).toBe('failed');
    } finally {
      await client.close();
    }
  });

  it('answers a plain tools/call with the same tool error', async () => {
    const client = await connectClient(first());
    try {
      const result = await client.callTool({ name: 'refund_order', arguments: { orderId: 'N-2' } });
      expect(result).toMatchObject(couldNotAnswer('N-2'));
    } finally {
      await client.close();
    }
  });
});

describe('refund_order in the SEP-1686 dialect', () => {
  it("asks on the task-augmented call's stream with the seed's related-task meta; the answer, POSTed to another instance, resumes it", async () => {
    const taskId = `refund-${randomUUID()}`;
    const sep = new Sep1686Client(first(), TOKENS.alice);
    const asked: JsonRpcMessage[] = [];
    const answered: Promise<{ status: string | undefined; post: { status: number; body: string } }>[] = [];
    const exchange = await sep.callToolAsTask(
      'refund_order',
      { orderId: 'S-1' },
      { taskId },
      {
        onMessage: (message) => {
          if (message.method !== 'elicitation/create') return;
          asked.push(message);
          answered.push(
            (async () => {
              const status = (await sep.taskRequest('tasks/get', taskId)).response?.result?.['status'] as
                string | undefined;
              return {
                status,
                post: await post(second(), {
                  jsonrpc: '2.0',
                  id: message.id,
                  result: { action: 'accept', content: { approve: true, amount: 4 } },
                }),
              };
            })(),
          );
        },
      },
    );
    expect(asked).toHaveLength(1);
    expect(asked[0]!.params?._meta).toEqual({ [RELATED_TASK]: { taskId } });
    expect(await Promise.all(answered)).toEqual([{ status: 'input_required', post: { status: 202, body: '' } }]);
    expect(exchange.response?.result).toMatchObject({
      structuredContent: { orderId: 'S-1', refunded: true, amount: 4 },
      _meta: { [RELATED_TASK]: { taskId } },
    });
  });
});

describe('a client without the capability the question needs', () => {
  let server: TestServer;
  beforeAll(async () => {
    // The conformance fixture test_elicitation, whose ask step records on the emulator's one table.
    server = await startTestServer({}, { tools: conformanceTools(), tableName: progressTable() });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('gets a tool error at once: its JSON-RPC error answer (-32601, no handler) reaches the workflow in place of an answer', async () => {
    const client = await connectClient(server.url);
    try {
      const result = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
      expect(result).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: expect.stringContaining('could not answer (error -32601') }],
      });
    } finally {
      await client.close();
    }
  });
});

/** The one execution of the owner's task, as Step Functions describes it (found by its name, which names the task). */
async function executionOf(taskId: string, owner = 'alice'): Promise<DescribeExecutionCommandOutput> {
  const { executions = [] } = await backend.sfn.send(
    new ListExecutionsCommand({
      stateMachineArn: backend.servers[0].backend.tools.get('refund_order').stateMachineArn,
    }),
  );
  const mine = executions.filter((execution) => execution.name?.startsWith(`task-${taskKey(owner, taskId)}-`));
  expect(mine).toHaveLength(1);
  return backend.sfn.send(new DescribeExecutionCommand({ executionArn: mine[0]!.executionArn! }));
}

const approve = { action: 'accept', content: { approve: true, amount: 9 } };

describe('a task stopped while it waits for input', () => {
  it('SEP-1686 tasks/delete stops the execution, the task is gone, a later answer delivers nothing, and another owner can neither see nor delete it', async () => {
    const taskId = `refund-${randomUUID()}`;
    const sep = new Sep1686Client(first(), TOKENS.alice);
    const bob = new Sep1686Client(second(), TOKENS.bob);
    let asked: (question: JsonRpcMessage) => void = () => undefined;
    const question = new Promise<JsonRpcMessage>((resolve) => (asked = resolve));
    const call = sep.callToolAsTask(
      'refund_order',
      { orderId: 'D-1', approvalTimeoutSeconds: 600 },
      { taskId },
      { onMessage: (message) => message.method === 'elicitation/create' && asked(message) },
    );
    const { id } = await question;
    expect((await sep.taskRequest('tasks/get', taskId)).response?.result).toMatchObject({ status: 'input_required' });

    // Bob's delete of Alice's task is answered exactly like the delete of a task that does not exist.
    const bobs = (await bob.taskRequest('tasks/delete', taskId)).response?.error;
    const unknownId = `refund-${randomUUID()}`;
    const unknown = (await bob.taskRequest('tasks/delete', unknownId)).response?.error;
    expect(bobs).toBeDefined();
    expect({ ...bobs, message: bobs!.message.replace(taskId, 'X') }).toEqual({
      ...unknown,
      message: unknown!.message.replace(unknownId, 'X'),
    });
    expect((await executionOf(taskId)).status).toBe('RUNNING');

    const sent = backend.sendTaskSuccessCalls();
    expect((await sep.taskRequest('tasks/delete', taskId)).response?.result).toBeDefined();
    expect((await executionOf(taskId)).status).toBe('ABORTED');
    expect((await sep.taskRequest('tasks/get', taskId)).response?.error).toBeDefined();
    expect((await bob.taskRequest('tasks/get', taskId)).response?.error).toBeDefined();
    // The question's stream ends with the task's absence; an answer POSTed afterwards, to either instance, reaches no
    // execution.
    expect((await call).response?.error).toEqual({ code: -32602, message: expect.stringContaining('Task not found') });
    expect(await post(second(), { jsonrpc: '2.0', id, result: approve })).toEqual({ status: 202, body: '' });
    expect(await post(first(), { jsonrpc: '2.0', id, result: approve }, TOKENS.bob)).toEqual({ status: 202, body: '' });
    expect(backend.sendTaskSuccessCalls()).toBe(sent);
    expect((await executionOf(taskId)).status).toBe('ABORTED');
  });

  it('2025-11-25 tasks/cancel stops the execution, the task shows cancelled, and the answer sent afterwards delivers nothing', async () => {
    const seen: { statusBefore?: string; cancelled?: string; late?: { status: number; body: string } } = {};
    let taskId = '';
    let sent = 0;
    const session: { client?: Client } = {};
    // The handler's steps, awaited before the checks: the task/result stream may end (cancelled) while they still run.
    let handled: Promise<void> = Promise.reject(new Error('no question was asked'));
    handled.catch(() => undefined);
    const { client } = await connect(async (question) => {
      handled = (async () => {
        taskId = (question.params._meta?.[RELATED_TASK_META_KEY_2025] as { taskId: string }).taskId;
        seen.statusBefore = await taskStatus(session.client!, taskId);
        seen.cancelled = (await session.client!.experimental.tasks.cancelTask(taskId)).status;
        sent = backend.sendTaskSuccessCalls();
        seen.late = await post(second(), { jsonrpc: '2.0', id: question.id, result: approve });
      })();
      await handled;
      // What the handler returns is POSTed too, after the cancel: ignored as well.
      return approve as ElicitResult;
    });
    session.client = client;
    try {
      const outcome = await refundAsTask(client, { orderId: 'C-1', approvalTimeoutSeconds: 600 }).then(
        (value) => value.result,
        (error: unknown) => error,
      );
      await handled;
      expect(seen).toEqual({ statusBefore: 'input_required', cancelled: 'cancelled', late: { status: 202, body: '' } });
      // The cancel and a poll that saw the aborted execution race to record it; either wording names the cancel.
      expect(outcome).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: expect.stringMatching(/Cancelled by the client\.$/) }],
      });
      expect(await taskStatus(client, taskId)).toBe('cancelled');
      expect((await executionOf(taskId)).status).toBe('ABORTED');
      expect(backend.sendTaskSuccessCalls()).toBe(sent);
    } finally {
      await client.close();
    }
  });

  it('an answer claimed before a cancel and sent after it gets a clean 202: the stopped execution refuses it, and the cancel stands', async () => {
    const taskId = `refund-${randomUUID()}`;
    const callId = `call-${randomUUID()}`;
    const sep = new Sep1686Client(first(), TOKENS.alice);
    let asked: (question: JsonRpcMessage) => void = () => undefined;
    const question = new Promise<JsonRpcMessage>((resolve) => (asked = resolve));
    const call = sep.callToolAsTask(
      'refund_order',
      { orderId: 'R-1', approvalTimeoutSeconds: 600 },
      { taskId },
      { id: callId, onMessage: (message) => message.method === 'elicitation/create' && asked(message) },
    );
    const { id } = await question;
    // The SEP-1686 cancel lands between the answer's claim and its SendTaskSuccess: the worst order for the answer.
    let cancelStatus = 0;
    backend.beforeNextSendTaskSuccess(async () => {
      cancelStatus = await new Sep1686Client(first(), TOKENS.alice).notify('notifications/cancelled', {
        requestId: callId,
      });
    });
    const sent = backend.sendTaskSuccessCalls();
    expect(await post(second(), { jsonrpc: '2.0', id, result: approve })).toEqual({ status: 202, body: '' });
    expect(cancelStatus).toBe(202);
    // The one SendTaskSuccess reached the stopped execution, which refused it; nothing resumed, the cancel stands.
    expect(backend.sendTaskSuccessCalls() - sent).toBe(1);
    expect((await executionOf(taskId)).status).toBe('ABORTED');
    expect((await sep.taskRequest('tasks/get', taskId)).response?.result).toMatchObject({ status: 'cancelled' });
    // A second copy of the answer, now that the task is cancelled, is not sent at all.
    expect(await post(first(), { jsonrpc: '2.0', id, result: approve })).toEqual({ status: 202, body: '' });
    expect(backend.sendTaskSuccessCalls() - sent).toBe(1);
    // As for any SEP-1686 cancelled request, the call itself gets no response.
    expect((await call).response).toBeUndefined();
  });
});
