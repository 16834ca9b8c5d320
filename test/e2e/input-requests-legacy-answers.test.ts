// End to end, 2025-11-25 era: the example refund_order workflow asks a person to approve a refund. The SDK 1.x
// client (with an elicitation handler) receives the question as an elicitation/create request on the stream of its
// tasks/result (or of a plain tools/call) from one server instance, and its JSON-RPC response is POSTed to ANOTHER
// instance on the same store, which resumes the execution; the execution then branches on the answer.
// Other clients: input-requests-legacy-clients.test.ts; tasks stopped while they wait for the answer:
// input-requests-legacy-stopped.test.ts.
import { describe, expect, it } from 'vitest';
import { RELATED_TASK_META_KEY_2025 } from '../../lambda/protocol/mcp-2025-11-25.js';
import {
  post,
  runAsTask,
  taskStatus,
  useLegacyInputBackend,
  type AskedQuestion,
} from '../support/legacy-input-client.js';
import { TOKENS } from '../support/local-backend.js';

const { backend, second, connect } = useLegacyInputBackend();

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
      const { taskId, result } = await runAsTask(client, { orderId: 'L-1', reason: 'arrived broken' });
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
      const { result } = await runAsTask(client, { orderId: 'L-2' });
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
      const { result } = await runAsTask(client, { orderId: 'L-3' });
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
      const { result } = await runAsTask(client, { orderId: 'L-4' });
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
      const { result } = await runAsTask(client, { orderId: 'L-5' });
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
