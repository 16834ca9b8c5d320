// End to end, modern era (MCP 2026-07-28 + Tasks extension): the example refund_order workflow asks a person
// to approve a refund. The question shows in tasks/get (`inputRequests`), the answer goes back with tasks/update
// (`inputResponses`) to another server instance on the same store, and resumes the execution, which branches on it.
import { ListExecutionsCommand } from '@aws-sdk/client-sfn';
import type { ApplicationInputRequest } from '@modelcontextprotocol/ext-tasks/client';
import { describe, expect, it, vi } from 'vitest';
import { taskKey } from '../../lambda/core/task-key.js';
import { GENEROUS_WAIT, TOKENS } from '../support/local-backend.js';
import { useInputBackend } from '../support/input-backend.js';
import { callModern, connectTaskSession, modernRequest, type JsonRpcMessage } from '../support/modern-client.js';

const backend = useInputBackend();
const first = () => backend.servers[0].url;
const second = () => backend.servers[1].url;

async function createRefund(args: Record<string, unknown>, token: string = TOKENS.alice): Promise<string> {
  const response = await callModern(
    first(),
    modernRequest('tools/call', { name: 'refund_order', arguments: args }),
    token,
  );
  expect(response.result).toMatchObject({ resultType: 'task' });
  return response.result!['taskId'] as string;
}

async function getTask(url: string, taskId: string, token: string = TOKENS.alice): Promise<Record<string, unknown>> {
  const response = await callModern(url, modernRequest('tasks/get', { taskId }), token);
  if (response.error) throw new Error(`tasks/get failed: ${response.error.message}`);
  return response.result!;
}

/** The task once it asks for input: its one input request's key and request. */
async function question(
  taskId: string,
): Promise<{ key: string; request: { method: string; params: Record<string, unknown> } }> {
  const task = await vi.waitUntil(async () => {
    const current = await getTask(first(), taskId);
    return current['status'] === 'input_required' ? current : undefined;
  }, GENEROUS_WAIT);
  const entries = Object.entries(
    task['inputRequests'] as Record<string, { method: string; params: Record<string, unknown> }>,
  );
  expect(entries).toHaveLength(1);
  return { key: entries[0]![0], request: entries[0]![1] };
}

function answer(
  url: string,
  taskId: string,
  inputResponses: Record<string, unknown>,
  token: string = TOKENS.alice,
): Promise<JsonRpcMessage> {
  return callModern(url, modernRequest('tasks/update', { taskId, inputResponses }), token);
}

async function settled(taskId: string): Promise<Record<string, unknown>> {
  return vi.waitUntil(async () => {
    const task = await getTask(first(), taskId);
    return ['completed', 'failed', 'cancelled'].includes(task['status'] as string) ? task : undefined;
  }, GENEROUS_WAIT);
}

describe('refund_order through an ext-tasks session (2.x client, answers POSTed to another server)', () => {
  const settle = async (
    answerWith: (request: ApplicationInputRequest) => {
      action: 'accept' | 'decline' | 'cancel';
      content?: Record<string, string | number | boolean>;
    },
  ) => {
    const asked: ApplicationInputRequest[] = [];
    const alice = await connectTaskSession(first(), TOKENS.alice, {
      answerUrl: second(),
      onInputRequest: (async (request: ApplicationInputRequest) => {
        asked.push(request);
        return answerWith(request);
      }) as never,
    });
    try {
      const execution = await alice.session.callTool('refund_order', { orderId: 'A-1001', reason: 'arrived broken' });
      if (execution.kind !== 'task') throw new Error('refund_order was answered inline');
      return { asked, outcome: (await execution.settle()).outcome };
    } finally {
      await alice.close();
    }
  };

  it('asks with a form and applies the refund when the answer accepts', async () => {
    const { asked, outcome } = await settle(() => ({
      action: 'accept',
      content: { approve: true, amount: 5, note: 'Sorry!' },
    }));
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      kind: 'elicitation',
      params: { mode: 'form', message: expect.stringContaining('order A-1001') },
    });
    expect((asked[0]!.params as { requestedSchema: { required: string[] } }).requestedSchema.required).toEqual([
      'approve',
    ]);
    expect(outcome.status).toBe('completed');
    expect(outcome.status === 'completed' && outcome.result).toMatchObject({
      structuredContent: { orderId: 'A-1001', refunded: true, outcome: 'refunded', amount: 5, note: 'Sorry!' },
    });
  });

  it('declines the refund when the answer declines', async () => {
    const { outcome } = await settle(() => ({ action: 'decline' }));
    expect(outcome.status).toBe('completed');
    expect(outcome.status === 'completed' && outcome.result).toMatchObject({
      structuredContent: { orderId: 'A-1001', refunded: false, outcome: 'declined', answer: 'decline' },
    });
  });
});

describe('answering an input request (raw tasks/get and tasks/update)', () => {
  it('shows the question as an elicitation/create request, never the task token', async () => {
    const taskId = await createRefund({ orderId: 'B-1', approvalTimeoutSeconds: 600 });
    const { key, request } = await question(taskId);
    expect(key).toMatch(/^input-[0-9a-f]{32}$/);
    expect(request).toEqual({
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: expect.any(String),
        requestedSchema: expect.objectContaining({ type: 'object' }),
      },
    });
    expect(JSON.stringify(await getTask(second(), taskId))).not.toMatch(/token/i);
    await callModern(first(), modernRequest('tasks/cancel', { taskId }));
  });

  it('refuses an answer that does not match the requested schema, and the request stays open', async () => {
    const taskId = await createRefund({ orderId: 'C-1', approvalTimeoutSeconds: 600 });
    const { key } = await question(taskId);
    const refused = await answer(second(), taskId, { [key]: { action: 'accept', content: { amount: 3 } } });
    expect(refused.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining("must have required property 'approve'"),
    });
    const tooMuch = await answer(second(), taskId, {
      [key]: { action: 'accept', content: { approve: true, amount: 1_000_000 } },
    });
    expect(tooMuch.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('content.amount must be <='),
    });
    expect(await getTask(first(), taskId)).toMatchObject({
      status: 'input_required',
      inputRequests: { [key]: expect.anything() },
    });
    expect(await answer(second(), taskId, { [key]: { action: 'accept', content: { approve: true } } })).toMatchObject({
      result: {},
    });
    expect(await settled(taskId)).toMatchObject({
      status: 'completed',
      result: { structuredContent: { refunded: true } },
    });
  });

  it('ignores answers to unknown keys and answers of another owner cannot reach the task', async () => {
    const taskId = await createRefund({ orderId: 'D-1', approvalTimeoutSeconds: 600 });
    const { key } = await question(taskId);
    expect(
      await answer(second(), taskId, { 'no-such-key': { action: 'accept', content: { approve: true } } }),
    ).toMatchObject({ result: {} });
    expect(
      (await answer(second(), taskId, { [key]: { action: 'accept', content: { approve: true } } }, TOKENS.bob)).error,
    ).toMatchObject({ code: -32602 });
    expect(await getTask(first(), taskId)).toMatchObject({ status: 'input_required' });
    await callModern(first(), modernRequest('tasks/cancel', { taskId }));
  });

  it('delivers an answer sent twice once: the second is ignored', async () => {
    const taskId = await createRefund({ orderId: 'E-1', approvalTimeoutSeconds: 600 });
    const { key } = await question(taskId);
    const before = backend.sendTaskSuccessCalls();
    const response = { [key]: { action: 'accept', content: { approve: true, amount: 7 } } };
    const [one, two] = await Promise.all([answer(first(), taskId, response), answer(second(), taskId, response)]);
    expect([one, two]).toMatchObject([{ result: { resultType: 'complete' } }, { result: { resultType: 'complete' } }]);
    expect(await answer(second(), taskId, response)).toMatchObject({ result: {} });
    expect(await settled(taskId)).toMatchObject({
      status: 'completed',
      result: { structuredContent: { refunded: true, amount: 7 } },
    });
    expect(backend.sendTaskSuccessCalls() - before).toBe(1);
  });

  it('keeps an answer that Step Functions did not take open, so sending it again delivers it', async () => {
    const taskId = await createRefund({ orderId: 'F-1', approvalTimeoutSeconds: 600 });
    const { key } = await question(taskId);
    const before = backend.sendTaskSuccessCalls();
    backend.failSendTaskSuccess(1);
    const response = { [key]: { action: 'decline' } };
    const failed = await answer(second(), taskId, response);
    expect(failed.error).toMatchObject({ code: -32603, data: { retryable: true, inputKey: key } });
    expect(await getTask(first(), taskId)).toMatchObject({
      status: 'input_required',
      inputRequests: { [key]: expect.anything() },
    });
    expect(await answer(first(), taskId, response)).toMatchObject({ result: {} });
    expect(await settled(taskId)).toMatchObject({
      status: 'completed',
      result: { structuredContent: { refunded: false, outcome: 'declined' } },
    });
    expect(backend.sendTaskSuccessCalls() - before).toBe(1);
  });

  it('fails the task saying the input never came when the deadline passes, and ignores a late answer', async () => {
    const taskId = await createRefund({ orderId: 'G-1', approvalTimeoutSeconds: 1 });
    const { key } = await question(taskId);
    // Step Functions times the waiting state out; the task then fails with the reason.
    const failed = await settled(taskId);
    expect(failed).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: expect.stringContaining('never came') },
    });
    expect((failed['error'] as { message: string }).message).toContain('Approve a refund');
    expect(await answer(second(), taskId, { [key]: { action: 'accept', content: { approve: true } } })).toMatchObject({
      result: {},
    });
    expect(await getTask(first(), taskId)).toMatchObject({ status: 'failed' });
  });

  it('stops the execution when the task is cancelled while it waits for input', async () => {
    const taskId = await createRefund({ orderId: 'H-1', approvalTimeoutSeconds: 600 });
    const { key } = await question(taskId);
    expect(await callModern(second(), modernRequest('tasks/cancel', { taskId }))).toMatchObject({ result: {} });
    expect(await getTask(first(), taskId)).toMatchObject({ status: 'cancelled' });
    const { executions = [] } = await backend.sfn.send(
      new ListExecutionsCommand({
        stateMachineArn: backend.servers[0].backend.tools.get('refund_order').stateMachineArn,
      }),
    );
    const mine = executions.filter((execution) => execution.name?.startsWith(`task-${taskKey('alice', taskId)}-`));
    expect(mine.map((execution) => execution.status)).toEqual(['ABORTED']);
    // An answer after the cancel changes nothing.
    expect(await answer(first(), taskId, { [key]: { action: 'accept', content: { approve: true } } })).toMatchObject({
      result: {},
    });
    expect(await getTask(second(), taskId)).toMatchObject({ status: 'cancelled' });
  });
});

describe('a cancel after the answer won', () => {
  it('once the resumed execution has finished, leaves the task completed, not cancelled', async () => {
    const taskId = await createRefund({ orderId: 'H-2', approvalTimeoutSeconds: 600 });
    const { key } = await question(taskId);
    expect(await answer(second(), taskId, { [key]: { action: 'accept', content: { approve: true } } })).toMatchObject({
      result: {},
    });
    // Read the execution itself, not the task: no tasks/get brings the task's stored status up to date meanwhile.
    const stateMachineArn = backend.servers[0].backend.tools.get('refund_order').stateMachineArn;
    await vi.waitUntil(async () => {
      const { executions = [] } = await backend.sfn.send(new ListExecutionsCommand({ stateMachineArn }));
      const mine = executions.find((execution) => execution.name?.startsWith(`task-${taskKey('alice', taskId)}-`));
      return mine?.status === 'SUCCEEDED';
    }, GENEROUS_WAIT);
    const cancelled = await callModern(second(), modernRequest('tasks/cancel', { taskId }));
    // The extension acknowledges a cancel of a finished task like any other (the ack promises nothing); what counts is
    // that the answer's outcome stands instead of a cancellation of an execution that succeeded.
    expect(cancelled).toMatchObject({ result: {} });
    expect(await settled(taskId)).toMatchObject({ status: 'completed' });
  });
});
