// End to end, 2025-11-25 era and SEP-1686: a refund_order task stopped (deleted or cancelled) while it waits for a
// person's answer. The execution stops, the task shows it, and an answer sent afterwards, to either server instance,
// resumes nothing.
import { randomUUID } from 'node:crypto';
import {
  DescribeExecutionCommand,
  ListExecutionsCommand,
  type DescribeExecutionCommandOutput,
} from '@aws-sdk/client-sfn';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { taskKey } from '../../lambda/core/task-key.js';
import { RELATED_TASK_META_KEY_2025 } from '../../lambda/protocol/mcp-2025-11-25.js';
import { post, runAsTask, taskStatus, useLegacyInputBackend } from '../support/legacy-input-client.js';
import { TOKENS } from '../support/local-backend.js';
import { Sep1686Client, type JsonRpcMessage } from '../support/sep-1686-client.js';

const { backend, first, second, connect } = useLegacyInputBackend();

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
    // The question's stream ends without a result, in one of two ways depending on which its wait sees first: the
    // stopped execution (the seed answers a cancelled task with no response) or the task's absence (-32602). An answer
    // POSTed afterwards, to either instance, reaches no execution.
    const ended = (await call).response;
    if (ended !== undefined)
      expect(ended.error).toEqual({ code: -32602, message: expect.stringContaining('Task not found') });
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
      const outcome = await runAsTask(client, { orderId: 'C-1', approvalTimeoutSeconds: 600 }).then(
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
