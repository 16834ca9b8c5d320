// End to end, 2025-11-25 era: refund_order called plainly by the SDK 1.x client that declared elicitation, with a
// plain-call wait shorter than the workflow's: the call is handed off, and the approval form is asked on task_result's
// stream, naming the task; the answer moves the workflow to its end. The question is never the model's to answer.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { RELATED_TASK_META_KEY_2025 } from '../../lambda/protocol/mcp-2025-11-25.js';
import { useLegacyInputBackend, type AskedQuestion } from '../support/legacy-input-client.js';

const { connect } = useLegacyInputBackend({ directCallTimeoutMs: 1_500 });

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
