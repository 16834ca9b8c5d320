// End to end, MCP 2025-11-25 and the SEP-1686 dialect: the durable_review example tool, a Lambda durable function run
// by the local runner of durable functions (the durable execution SDK's own local runner behind Lambda's REST API),
// through the official 1.x MCP client over real HTTP. Two server instances share one table: the question is asked on
// one instance's stream and the answer is POSTed to the other, which sends it to the execution's callback.
import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateTaskResultSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RELATED_TASK_META_KEY_2025 } from '../../lambda/protocol/mcp-2025-11-25.js';
import {
  connectAnsweringElsewhere,
  post,
  runAsTask,
  taskStatus,
  type AskedQuestion,
} from '../support/legacy-input-client.js';
import {
  connectClient,
  durableTools,
  GENEROUS_WAIT,
  progressTable,
  startTestServer,
  TOKENS,
  type TestServer,
} from '../support/local-backend.js';
import { Sep1686Client } from '../support/sep-1686-client.js';
import { durableExecutionOf } from '../support/durable-executions.js';

const TOOL = 'durable_review';
const DOCUMENTS = ['Durable functions checkpoint every step.', 'Steps replay; waits pass.'];

let servers: [TestServer, TestServer];

beforeAll(async () => {
  const server = () => startTestServer({}, { tableName: progressTable(), tools: durableTools() });
  servers = [await server(), await server()];
});
afterAll(async () => {
  await Promise.allSettled(servers.map((server) => server.close()));
});

const approve = async (): Promise<ElicitResult> => ({
  action: 'accept',
  content: { approved: true, comment: 'Fine.' },
});

describe('durable_review as a task, SDK 1.x client', () => {
  it('reviews each document, asks on the tasks/result stream, and returns the review once the answer, POSTed to another instance, reaches the callback', async () => {
    const asked: AskedQuestion[] = [];
    const { client, routed } = await connectAnsweringElsewhere(servers[0].url, servers[1].url, async (question) => {
      asked.push(question);
      return approve();
    });
    try {
      const { taskId, result } = await runAsTask(client, { documents: DOCUMENTS, reviewSeconds: 1 }, TOOL);
      expect(asked).toHaveLength(1);
      expect(asked[0]!.params).toMatchObject({
        message: 'Approve the review of 2 document(s), 9 words?',
        _meta: { [RELATED_TASK_META_KEY_2025]: { taskId } },
      });
      expect(routed.count).toBe(1);
      expect(result).toMatchObject({
        content: [{ type: 'text', text: 'Reviewed 2 document(s), 9 words: approved.' }],
        structuredContent: {
          words: 9,
          approved: true,
          comment: 'Fine.',
          reviews: [
            { document: 1, words: 5, topWords: ['checkpoint', 'durable', 'every'] },
            { document: 2, words: 4, topWords: ['pass', 'replay', 'steps'] },
          ],
        },
      });
      expect(await taskStatus(client, taskId)).toBe('completed');
      expect(await durableExecutionOf(taskId)).toMatchObject({ status: 'SUCCEEDED' });
    } finally {
      await client.close();
    }
  });

  it('returns the reviewer’s refusal as the result when the answer declines', async () => {
    const { client } = await connectAnsweringElsewhere(servers[0].url, servers[1].url, async () => ({
      action: 'decline',
    }));
    try {
      const { result } = await runAsTask(client, { documents: ['One short text.'], reviewSeconds: 0 }, TOOL);
      expect(result).toMatchObject({
        content: [{ type: 'text', text: 'Reviewed 1 document(s), 3 words: not approved.' }],
        structuredContent: { approved: false },
      });
    } finally {
      await client.close();
    }
  });
});

describe('durable_review, its failures and cancels (2025-11-25)', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connectClient(servers[0].url);
  });
  afterAll(async () => client?.close());

  async function startTask(args: Record<string, unknown>): Promise<string> {
    const created = await client.request(
      { method: 'tools/call', params: { name: TOOL, arguments: args, task: { ttl: 600_000 } } },
      CreateTaskResultSchema,
    );
    return created.task.taskId;
  }

  it('fails the task with the workflow’s error when a document has no words, and the execution with it', async () => {
    const taskId = await startTask({ documents: ['Fine words here.', ' ... '], askApproval: false });
    const task = await vi.waitUntil(async () => {
      const current = await client.experimental.tasks.getTask(taskId);
      return current.status === 'failed' ? current : undefined;
    }, GENEROUS_WAIT);
    expect(task.statusMessage).toBe('Execution failed: DocumentRejectedError: Document 2 has no words to review.');
    expect(await durableExecutionOf(taskId)).toMatchObject({ status: 'FAILED' });
  });

  it('cancels a task in its review window: the task ends cancelled and the durable execution is stopped', async () => {
    const taskId = await startTask({ documents: DOCUMENTS, reviewSeconds: 600 });
    await vi.waitUntil(async () => {
      const current = await client.experimental.tasks.getTask(taskId);
      return current.statusMessage?.includes('Review window') ?? false;
    }, GENEROUS_WAIT);
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    expect(cancelled.status).toBe('cancelled');
    await vi.waitUntil(async () => (await durableExecutionOf(taskId))?.status === 'STOPPED', GENEROUS_WAIT);
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe('cancelled');
  });

  it('shows progress from the workflow’s reports in statusMessage while it runs', async () => {
    const taskId = await startTask({ documents: DOCUMENTS, reviewSeconds: 600 });
    const task = await vi.waitUntil(async () => {
      const current = await client.experimental.tasks.getTask(taskId);
      return current.statusMessage?.includes('Review window') ? current : undefined;
    }, GENEROUS_WAIT);
    expect(task.status).toBe('working');
    await client.experimental.tasks.cancelTask(taskId);
  });

  it('is refused to another owner, who cannot learn that the task exists', async () => {
    const taskId = await startTask({ documents: DOCUMENTS, reviewSeconds: 600 });
    const bob = await connectClient(servers[1].url, TOKENS.bob);
    try {
      await expect(bob.experimental.tasks.getTask(taskId)).rejects.toThrow(/not found/i);
    } finally {
      await bob.close();
      await client.experimental.tasks.cancelTask(taskId);
    }
  });
});

describe('durable_review in the SEP-1686 dialect', () => {
  it('asks on the task-augmented call’s stream; the answer, POSTed to another instance, resumes the execution to its result', async () => {
    const taskId = `review-${randomUUID()}`;
    const sep = new Sep1686Client(servers[0].url, TOKENS.alice);
    const answered: Promise<{ status: number; body: string }>[] = [];
    const exchange = await sep.callToolAsTask(
      TOOL,
      { documents: ['One short text.'], reviewSeconds: 0 },
      { taskId },
      {
        onMessage: (message) => {
          if (message.method !== 'elicitation/create') return;
          answered.push(
            post(servers[1].url, {
              jsonrpc: '2.0',
              id: message.id,
              result: { action: 'accept', content: { approved: true } },
            }),
          );
        },
      },
    );
    expect(await Promise.all(answered)).toEqual([{ status: 202, body: '' }]);
    expect(exchange.response?.result).toMatchObject({
      content: [{ type: 'text', text: 'Reviewed 1 document(s), 3 words: approved.' }],
    });
  });

  it('fails the task when a document has no words: tasks/get says why in its error', async () => {
    const taskId = `review-${randomUUID()}`;
    const sep = new Sep1686Client(servers[0].url, TOKENS.alice);
    await sep.callToolAsTask(TOOL, { documents: ['--'], askApproval: false }, { taskId });
    const task = await vi.waitUntil(async () => {
      const result = (await sep.taskRequest('tasks/get', taskId)).response?.result;
      return result?.['status'] === 'failed' ? result : undefined;
    }, GENEROUS_WAIT);
    expect(task['error']).toBe('Execution failed: DocumentRejectedError: Document 1 has no words to review.');
  });

  it('deletes a task while it waits: the durable execution is stopped and the task is gone', async () => {
    const taskId = `review-${randomUUID()}`;
    const sep = new Sep1686Client(servers[0].url, TOKENS.alice);
    const call = new AbortController();
    const streaming = sep
      .callToolAsTask(TOOL, { documents: DOCUMENTS, reviewSeconds: 600 }, { taskId }, { signal: call.signal })
      .catch(() => undefined);
    await vi.waitUntil(async () => (await durableExecutionOf(taskId)) !== undefined, GENEROUS_WAIT);
    const deleted = await sep.taskRequest('tasks/delete', taskId);
    expect(deleted.response?.error).toBeUndefined();
    await vi.waitUntil(async () => (await durableExecutionOf(taskId))?.status === 'STOPPED', GENEROUS_WAIT);
    expect((await sep.taskRequest('tasks/get', taskId)).response?.error?.code).toBeDefined();
    call.abort();
    await streaming;
  });
});
