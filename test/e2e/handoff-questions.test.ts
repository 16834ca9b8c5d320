// End to end: refund_order called plainly, with a plain-call wait shorter than the workflow's, is handed off, and its
// approval form reaches the client on task_result: on 2025-11-25 as an elicitation on task_result's stream, naming the
// task; on 2026-07-28 as input_required rounds (SEP-2322). The answer moves the workflow to its end. The question is
// never the model's to answer.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { RELATED_TASK_META_KEY_2025 } from '../../lambda/protocol/mcp-2025-11-25.js';
import { useLegacyInputBackend, type AskedQuestion } from '../support/legacy-input-client.js';
import { callModern, modernRequest } from '../support/modern-client.js';

const CAN_ANSWER_FORMS = { elicitation: {} } as const;
const refund = (orderId: string) => ({ name: 'refund_order', arguments: { orderId } });
const resultOf = (taskId: string) => ({ name: 'task_result', arguments: { taskId } });

const { connect, first, second } = useLegacyInputBackend({ directCallTimeoutMs: 1_500 });

const textOf = (result: CallToolResult): string =>
  result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');

describe('refund_order handed off to a client that declared elicitation', () => {
  it('asks on task_result with the task named, and the answer moves the workflow to its end', async () => {
    const asked: AskedQuestion[] = [];
    const { client } = await connect(async (question) => {
      asked.push(question);
      // Asked on the plain call's own stream (the workflow asked within the wait): left unanswered, so the call is
      // handed off whichever comes first, the question or the wait's end.
      if (question.params._meta === undefined) return new Promise<never>(() => {});
      return { action: 'accept', content: { approve: true, amount: 3 } };
    });
    try {
      const handoff = (await client.callTool({
        name: 'refund_order',
        arguments: { orderId: 'H-1' },
      })) as CallToolResult;
      const taskId = /as task ([0-9a-f]{32})\./.exec(textOf(handoff))?.[1];
      expect(taskId, textOf(handoff)).toBeDefined();
      let result: CallToolResult | undefined;
      for (let round = 0; round < 60 && result?.structuredContent === undefined; round++)
        result = (await client.callTool({ name: 'task_result', arguments: { taskId } })) as CallToolResult;
      expect(result?.structuredContent).toMatchObject({ orderId: 'H-1', refunded: true, amount: 3 });
      const onTaskResult = asked.filter((question) => question.params._meta !== undefined);
      expect(onTaskResult.length).toBeGreaterThan(0);
      expect(onTaskResult[0]!.params).toMatchObject({
        message: expect.stringContaining('order H-1'),
        _meta: { [RELATED_TASK_META_KEY_2025]: { taskId } },
      });
    } finally {
      await client.close();
    }
  });
});

describe('refund_order handed off on 2026-07-28, followed by a client that can answer forms', () => {
  it('is handed off to a client that cannot answer, and task_result asks in rounds until the refund is made', async () => {
    const plain = await callModern(first(), modernRequest('tools/call', refund('H-2'), {}));
    const text = (plain.result!['content'] as Array<{ text: string }>)[0]!.text;
    const taskId = /as task ([0-9a-f]{32})\./.exec(text)?.[1];
    expect(taskId, text).toBeDefined();
    const follow = (extra: Record<string, unknown> = {}) =>
      callModern(second(), modernRequest('tools/call', { ...resultOf(taskId!), ...extra }, CAN_ANSWER_FORMS));
    // Until the workflow has asked: a wait ends as a "still running" answer, called again as a model would.
    let round = await follow();
    for (let attempt = 0; attempt < 20 && round.result?.['resultType'] !== 'input_required'; attempt++)
      round = await follow();
    expect(round.result).toMatchObject({ resultType: 'input_required', requestState: expect.any(String) });
    const asked = Object.entries(round.result!['inputRequests'] as Record<string, { params: { message: string } }>);
    expect(asked).toHaveLength(1);
    expect(asked[0]![1].params.message).toContain('order H-2');
    let answered = await follow({
      inputResponses: { [asked[0]![0]]: { action: 'accept', content: { approve: true, amount: 4 } } },
      requestState: round.result!['requestState'],
    });
    for (let attempt = 0; attempt < 20 && answered.result?.['structuredContent'] === undefined; attempt++)
      answered = await follow();
    expect(answered.result).toMatchObject({ structuredContent: { orderId: 'H-2', refunded: true, amount: 4 } });
  });
});
