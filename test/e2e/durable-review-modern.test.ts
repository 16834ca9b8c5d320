// End to end, modern era (MCP 2026-07-28 + the Tasks extension): the durable_review example tool, a Lambda durable
// function run by the local runner of durable functions, through the 2.x client's ext-tasks session and raw
// tasks/get, tasks/update and tasks/cancel. Two server instances share one table: the question shows in tasks/get on
// one, the answer goes to the other, which sends it to the execution's callback (SendDurableExecutionCallbackSuccess).
import type { ApplicationInputRequest } from '@modelcontextprotocol/ext-tasks/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { durableExecutionOf } from '../support/durable-executions.js';
import {
  durableTools,
  GENEROUS_WAIT,
  progressTable,
  startTestServer,
  TOKENS,
  type TestServer,
} from '../support/local-backend.js';
import { callModern, connectTaskSession, modernRequest } from '../support/modern-client.js';

const TOOL = 'durable_review';

let servers: [TestServer, TestServer];
const first = () => servers[0].url;
const second = () => servers[1].url;

beforeAll(async () => {
  const server = () => startTestServer({}, { tableName: progressTable(), tools: durableTools() });
  servers = [await server(), await server()];
});
afterAll(async () => {
  await Promise.allSettled(servers.map((server) => server.close()));
});

async function createReview(args: Record<string, unknown>): Promise<string> {
  const response = await callModern(first(), modernRequest('tools/call', { name: TOOL, arguments: args }));
  expect(response.result).toMatchObject({ resultType: 'task' });
  return response.result!['taskId'] as string;
}

async function getTask(url: string, taskId: string, token: string = TOKENS.alice): Promise<Record<string, unknown>> {
  const response = await callModern(url, modernRequest('tasks/get', { taskId }), token);
  if (response.error) throw new Error(`tasks/get failed: ${response.error.message}`);
  return response.result!;
}

const taskWhere = (taskId: string, holds: (task: Record<string, unknown>) => boolean) =>
  vi.waitUntil(async () => {
    const task = await getTask(first(), taskId);
    return holds(task) ? task : undefined;
  }, GENEROUS_WAIT);

describe('durable_review through an ext-tasks session (2.x client, answers sent to another instance)', () => {
  it('asks with a form and returns the review once the answer reaches the callback', async () => {
    const asked: ApplicationInputRequest[] = [];
    const alice = await connectTaskSession(first(), TOKENS.alice, {
      answerUrl: second(),
      onInputRequest: (async (request: ApplicationInputRequest) => {
        asked.push(request);
        return { action: 'accept', content: { approved: true, comment: 'Looks right.' } };
      }) as never,
    });
    try {
      const execution = await alice.session.callTool(TOOL, {
        documents: ['Durable functions checkpoint every step.'],
        reviewSeconds: 1,
      });
      if (execution.kind !== 'task') throw new Error('durable_review was answered inline');
      const { outcome } = await execution.settle();
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({
        kind: 'elicitation',
        params: { message: 'Approve the review of 1 document(s), 5 words?' },
      });
      expect(outcome.status).toBe('completed');
      expect(outcome.status === 'completed' && outcome.result).toMatchObject({
        content: [{ type: 'text', text: 'Reviewed 1 document(s), 5 words: approved.' }],
        structuredContent: { approved: true, comment: 'Looks right.', words: 5 },
      });
    } finally {
      await alice.close();
    }
  });
});

describe('durable_review with raw tasks/get, tasks/update and tasks/cancel', () => {
  it('shows the question under its key, takes the answer on another instance, and completes', async () => {
    const taskId = await createReview({ documents: ['One short text.'], reviewSeconds: 0 });
    const asking = await taskWhere(taskId, (task) => task['status'] === 'input_required');
    expect(asking['inputRequests']).toEqual({
      approval: {
        method: 'elicitation/create',
        params: expect.objectContaining({ message: 'Approve the review of 1 document(s), 3 words?' }),
      },
    });
    expect(JSON.stringify(asking)).not.toMatch(/token|callback/i);
    const answered = await callModern(
      second(),
      modernRequest('tasks/update', { taskId, inputResponses: { approval: { action: 'decline' } } }),
    );
    expect(answered.error).toBeUndefined();
    const done = await taskWhere(taskId, (task) => task['status'] === 'completed');
    expect(done).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'Reviewed 1 document(s), 3 words: not approved.' }] },
    });
    expect(await durableExecutionOf(taskId)).toMatchObject({ status: 'SUCCEEDED' });
  });

  it('shows the workflow’s progress while it reviews and waits', async () => {
    const taskId = await createReview({ documents: ['a b', 'c d'], reviewSeconds: 600 });
    const waiting = await taskWhere(taskId, (task) => String(task['statusMessage']).includes('Review window'));
    expect(waiting['status']).toBe('working');
    await callModern(first(), modernRequest('tasks/cancel', { taskId }));
  });

  it('fails cleanly when a document has no words: the task says why', async () => {
    const taskId = await createReview({ documents: ['?!'], askApproval: false });
    const failed = await taskWhere(taskId, (task) => task['status'] === 'failed');
    expect(failed['statusMessage']).toBe('Execution failed: DocumentRejectedError: Document 1 has no words to review.');
  });

  it('cancels while the question is open: the execution is stopped, and a later answer changes nothing', async () => {
    const taskId = await createReview({ documents: ['One short text.'], reviewSeconds: 0 });
    await taskWhere(taskId, (task) => task['status'] === 'input_required');
    expect(await callModern(second(), modernRequest('tasks/cancel', { taskId }))).toMatchObject({ result: {} });
    await vi.waitUntil(async () => (await durableExecutionOf(taskId))?.status === 'STOPPED', GENEROUS_WAIT);
    await callModern(
      first(),
      modernRequest('tasks/update', {
        taskId,
        inputResponses: { approval: { action: 'accept', content: { approved: true } } },
      }),
    );
    expect(await getTask(second(), taskId)).toMatchObject({ status: 'cancelled' });
    expect(await durableExecutionOf(taskId)).toMatchObject({ status: 'STOPPED' });
  });

  it('keeps the task from another owner, who cannot learn that it exists', async () => {
    const taskId = await createReview({ documents: ['One short text.'], reviewSeconds: 600 });
    const bob = await callModern(second(), modernRequest('tasks/get', { taskId }), TOKENS.bob);
    const unknown = await callModern(second(), modernRequest('tasks/get', { taskId: 'no-such-task' }), TOKENS.bob);
    expect(bob.error?.code).toBe(unknown.error?.code);
    expect(bob.error?.message.replace(taskId, 'ID')).toBe(unknown.error?.message.replace('no-such-task', 'ID'));
    await callModern(first(), modernRequest('tasks/cancel', { taskId }));
  });
});
