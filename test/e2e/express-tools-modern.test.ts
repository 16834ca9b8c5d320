// End to end, modern era (MCP 2026-07-28, the Tasks extension): the EXPRESS example tool (extract_keywords) through the
// official 2.x client with an ext-tasks session, and raw requests, over real HTTP against the local stack. A call that
// does not declare the extension runs the EXPRESS machine synchronously; one that does becomes a task run by the
// STANDARD wrapper, which settles to the EXPRESS execution's result and can be cancelled.
import { ListExecutionsCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { taskKey, taskKeyFromExecutionName } from '../../lambda/core/task-key.js';
import {
  expressTools,
  GENEROUS_WAIT,
  localAwsClients,
  startTestServer,
  TOKENS,
  type TestServer,
} from '../support/local-backend.js';
import { callModern, connectTaskSession, modernRequest, type ModernTaskClient } from '../support/modern-client.js';

const TOOL = 'extract_keywords';
const TEXT = 'Keywords come from text: the keywords repeat, the text repeats, and keywords win.';
const RESULT = {
  keywords: [
    { keyword: 'keywords', count: 3 },
    { keyword: 'text', count: 2 },
  ],
  words: 13,
};
const NO_KEYWORDS = 'Execution failed: NoKeywords: The text has no words of 4 letters or more to pick keywords from.';

let server: TestServer;
let alice: ModernTaskClient;

beforeAll(async () => {
  server = await startTestServer({ directCallTimeoutMs: 60_000 }, { tools: expressTools() });
  alice = await connectTaskSession(server.url, TOKENS.alice);
});
afterAll(async () => {
  await alice?.close();
  await server?.close();
});

/** A raw tools/call of the EXPRESS tool; `capabilities` {} declares no Tasks extension. */
const callTool = (args: Record<string, unknown>, capabilities?: Record<string, unknown>) =>
  callModern(server.url, modernRequest('tools/call', { name: TOOL, arguments: args }, capabilities));

/** The wrapper execution of alice's task, as Step Functions lists it. */
async function wrapperExecutionOf(taskId: string) {
  const { stepFunctions } = localAwsClients();
  const stateMachineArn = expressTools().find((tool) => tool.name === TOOL)!.stateMachineArn;
  const { executions = [] } = await stepFunctions.send(
    new ListExecutionsCommand({ stateMachineArn, maxResults: 1000 }),
  );
  stepFunctions.destroy();
  return executions.find((execution) => taskKeyFromExecutionName(execution.name ?? '') === taskKey('alice', taskId));
}

describe('the EXPRESS example tool in the modern era', () => {
  it('answers a call without the extension with the EXPRESS execution’s result', async () => {
    const { result } = await callTool({ text: TEXT, maxKeywords: 2 }, {});
    expect(result).toMatchObject({ resultType: 'complete', structuredContent: RESULT });
    expect(result).not.toHaveProperty('taskId');
  });

  it('answers a failed EXPRESS execution with a tool error carrying its error and cause', async () => {
    const { result, error } = await callTool({ text: 'a an of it' }, {});
    expect(error).toBeUndefined();
    expect(result).toMatchObject({ resultType: 'complete', isError: true, content: [{ text: NO_KEYWORDS }] });
  });

  it('settles a task to the EXPRESS execution’s output, not the startExecution.sync envelope', async () => {
    const execution = await alice.session.callTool(TOOL, { text: TEXT, maxKeywords: 2 } as never);
    if (execution.kind !== 'task') throw new Error(`${TOOL} was answered inline, not as a task`);
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe('completed');
    expect(outcome.status === 'completed' && outcome.result).toMatchObject({ structuredContent: RESULT });
    expect((await wrapperExecutionOf(execution.handle.taskId))?.status).toBe('SUCCEEDED');
  });

  it('settles a task whose EXPRESS execution failed as failed, with its error', async () => {
    const execution = await alice.session.callTool(TOOL, { text: 'a an of it' } as never);
    if (execution.kind !== 'task') throw new Error(`${TOOL} was answered inline, not as a task`);
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe('failed');
    expect(outcome.status === 'failed' && outcome.error).toMatchObject({ message: NO_KEYWORDS });
  });

  it('cancels a task while its EXPRESS execution runs: the task ends cancelled and the wrapper is aborted', async () => {
    const { result } = await callTool({ text: TEXT, waitSeconds: 120 });
    expect(result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = result!['taskId'] as string;
    await vi.waitUntil(async () => (await wrapperExecutionOf(taskId))?.status === 'RUNNING', GENEROUS_WAIT);
    expect((await callModern(server.url, modernRequest('tasks/cancel', { taskId }))).error).toBeUndefined();
    const { result: task } = await callModern(server.url, modernRequest('tasks/get', { taskId }));
    expect(task).toMatchObject({ status: 'cancelled' });
    // StopExecution of the wrapper; its EXPRESS child cannot be stopped and runs on to its end (docs/deploy.md).
    expect((await wrapperExecutionOf(taskId))?.status).toBe('ABORTED');
  });
});
