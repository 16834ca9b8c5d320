// End to end, 2025-11-25 era: the example refund_order workflow asks a person to approve a refund, of clients other
// than the SDK 1.x client with an elicitation handler: one without the elicitation capability (its error answer
// reaches the workflow in place of an answer), and a SEP-1686 client, whose answer is POSTed to another instance.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, runAsTask, taskStatus, useLegacyInputBackend } from '../support/legacy-input-client.js';
import {
  conformanceTools,
  connectClient,
  progressTable,
  startTestServer,
  TOKENS,
  type TestServer,
} from '../support/local-backend.js';
import { RELATED_TASK, Sep1686Client, type JsonRpcMessage } from '../support/sep-1686-client.js';

const { first, second } = useLegacyInputBackend();

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
      const { taskId, result } = await runAsTask(client, { orderId: 'N-1' });
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
