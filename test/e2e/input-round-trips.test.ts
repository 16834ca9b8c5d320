// End to end, modern era (MCP 2026-07-28): a plain tools/call whose workflow asks its client answers
// `input_required` with a signed requestState (SEP-2322); the retry with the answers resumes the SAME execution, on
// any server instance. Two servers on the table the emulator's ask step records on, serving the conformance fixtures.
import { DescribeExecutionCommand, ListExecutionsCommand } from '@aws-sdk/client-sfn';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskKey } from '../../lambda/core/task-key.js';
import {
  conformanceTools,
  localAwsClients,
  progressTable,
  startTestServer,
  TOKENS,
  type TestServer,
} from '../support/local-backend.js';
import {
  callModern,
  CLIENT_INFO,
  MODERN_VERSION,
  modernRequest,
  type JsonRpcMessage,
} from '../support/modern-client.js';

const ASKS_A_NAME = 'test_input_required_result_elicitation';
const ASKS_TWICE = 'test_input_required_result_multi_round';
/** A plain client that can answer forms, the client's model and roots; no Tasks extension. */
const CAN_ANSWER = { elicitation: {}, sampling: {}, roots: {} } as const;

let servers: [TestServer, TestServer];
const sfn = localAwsClients().stepFunctions;
let sendTaskSuccessCalls = 0;

beforeAll(async () => {
  // The servers' Step Functions client counts every SendTaskSuccess that reaches the emulator.
  const clients = localAwsClients();
  clients.stepFunctions.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'SendTaskSuccessCommand') sendTaskSuccessCalls += 1;
      return next(args);
    },
    { step: 'initialize', name: 'countSendTaskSuccess' },
  );
  const options = { tools: conformanceTools(), tableName: progressTable(), clients };
  servers = [await startTestServer({}, options), await startTestServer({}, options)];
});
afterAll(async () => {
  await Promise.allSettled((servers ?? []).map((server) => server.close()));
  sfn.destroy();
});

function call(
  url: string,
  name: string,
  extra: Record<string, unknown> = {},
  token: string = TOKENS.alice,
): Promise<JsonRpcMessage> {
  return callModern(url, modernRequest('tools/call', { name, arguments: {}, ...extra }, CAN_ANSWER), token);
}

/** Round 1: the call's questions, its signed state, and (read on the server side) the task and execution it runs. */
async function firstRound(name: string): Promise<{
  inputRequests: Record<string, { method: string }>;
  requestState: string;
  taskId: string;
  executionArn: string;
}> {
  const response = await call(servers[0].url, name);
  expect(response.result).toMatchObject({ resultType: 'input_required', requestState: expect.any(String) });
  expect(response.result).not.toHaveProperty('taskId');
  const { inputRequests, requestState } = response.result as {
    inputRequests: Record<string, { method: string }>;
    requestState: string;
  };
  // Signed, not encrypted: the payload names the task (nothing the owner may not see).
  const taskId = (
    JSON.parse(Buffer.from(requestState.split('.')[1]!, 'base64url').toString()) as { p: { taskId: string } }
  ).p.taskId;
  const task = await servers[0].backend.service.getTask('alice', taskId);
  return { inputRequests, requestState, taskId, executionArn: task.executionArn };
}

async function executionsOfTask(name: string, taskId: string): Promise<string[]> {
  const stateMachineArn = servers[0].backend.tools.get(name).stateMachineArn;
  const { executions = [] } = await sfn.send(new ListExecutionsCommand({ stateMachineArn, maxResults: 1000 }));
  return executions
    .map((execution) => execution.executionArn!)
    .filter((arn) => arn.includes(`:task-${taskKey('alice', taskId)}-`));
}

const NAME_ALICE = { action: 'accept', content: { name: 'Alice' } };

describe('plain tools/call with input_required rounds (SEP-2322)', () => {
  it('asks, and the retry on another instance resumes the same execution with the answer', async () => {
    const round = await firstRound(ASKS_A_NAME);
    expect(round.inputRequests).toEqual({ user_name: expect.objectContaining({ method: 'elicitation/create' }) });
    const retry = await call(servers[1].url, ASKS_A_NAME, {
      inputResponses: { user_name: NAME_ALICE },
      requestState: round.requestState,
    });
    expect(retry.result).toMatchObject({ content: [{ type: 'text', text: 'Hello, Alice!' }] });
    const execution = await sfn.send(new DescribeExecutionCommand({ executionArn: round.executionArn }));
    expect(execution.status).toBe('SUCCEEDED');
    expect(execution.output).toContain('Hello, Alice!');
    expect(await executionsOfTask(ASKS_A_NAME, round.taskId)).toEqual([round.executionArn]);
  });

  it('delivers an answer sent twice once: one SendTaskSuccess, and both retries get the result', async () => {
    const round = await firstRound(ASKS_A_NAME);
    const before = sendTaskSuccessCalls;
    const retry = { inputResponses: { user_name: NAME_ALICE }, requestState: round.requestState };
    const [one, two] = [await call(servers[0].url, ASKS_A_NAME, retry), await call(servers[1].url, ASKS_A_NAME, retry)];
    expect(one.result).toMatchObject({ content: [{ text: 'Hello, Alice!' }] });
    expect(two.result).toMatchObject({ content: [{ text: 'Hello, Alice!' }] });
    expect(sendTaskSuccessCalls - before).toBe(1);
  });

  it('refuses a tampered requestState (-32602) and delivers nothing', async () => {
    const round = await firstRound(ASKS_A_NAME);
    const before = sendTaskSuccessCalls;
    const [head, body, mac] = round.requestState.split('.') as [string, string, string];
    const forged = Buffer.from(body, 'base64url')
      .toString()
      .replace(
        round.taskId,
        round.taskId.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')),
      );
    for (const requestState of [
      `${round.requestState}x`,
      `${head}.${Buffer.from(forged).toString('base64url')}.${mac}`,
    ]) {
      const response = await call(servers[1].url, ASKS_A_NAME, {
        inputResponses: { user_name: NAME_ALICE },
        requestState,
      });
      expect(response.error).toMatchObject({ code: -32602, message: expect.stringMatching(/requestState/) });
    }
    expect(sendTaskSuccessCalls).toBe(before);
    expect((await servers[0].backend.service.getTask('alice', round.taskId)).status).toBe('input_required');
  });

  it("refuses another owner's requestState (-32602); its owner can still answer", async () => {
    const round = await firstRound(ASKS_A_NAME);
    const retry = {
      inputResponses: { user_name: { action: 'accept', content: { name: 'Mallory' } } },
      requestState: round.requestState,
    };
    const foreign = await call(servers[1].url, ASKS_A_NAME, retry, TOKENS.bob);
    expect(foreign.error).toMatchObject({ code: -32602 });
    const own = await call(servers[1].url, ASKS_A_NAME, {
      inputResponses: { user_name: NAME_ALICE },
      requestState: round.requestState,
    });
    expect(own.result).toMatchObject({ content: [{ text: 'Hello, Alice!' }] });
  });

  it('asks again for an answer the retry left out, with a fresh state for the same execution', async () => {
    const round = await firstRound(ASKS_A_NAME);
    const again = await call(servers[1].url, ASKS_A_NAME, {
      inputResponses: { wrong_key: NAME_ALICE },
      requestState: round.requestState,
    });
    expect(again.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { user_name: expect.anything() },
    });
    const done = await call(servers[0].url, ASKS_A_NAME, {
      inputResponses: { user_name: NAME_ALICE },
      requestState: again.result!['requestState'],
    });
    expect(done.result).toMatchObject({ content: [{ text: 'Hello, Alice!' }] });
    expect(await executionsOfTask(ASKS_A_NAME, round.taskId)).toEqual([round.executionArn]);
  });

  it('refuses an answer that does not fit the requested schema (-32602); the question stays open', async () => {
    const round = await firstRound(ASKS_A_NAME);
    const response = await call(servers[0].url, ASKS_A_NAME, {
      inputResponses: { user_name: { action: 'accept', content: { name: 42 } } },
      requestState: round.requestState,
    });
    expect(response.error).toMatchObject({ code: -32602 });
    expect((await servers[0].backend.service.getTask('alice', round.taskId)).status).toBe('input_required');
  });

  it('runs two rounds inside one callTool of the official 2.x client, which answers through its elicitation handler', async () => {
    const client = new Client(
      { ...CLIENT_INFO },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: MODERN_VERSION } } },
    );
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      const message = (request.params as { message: string }).message;
      asked.push(message);
      const content: Record<string, string> = message.includes('color') ? { color: 'blue' } : { name: 'Alice' };
      return { action: 'accept', content };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(servers[0].url), {
        requestInit: { headers: { authorization: `Bearer ${TOKENS.alice}` } },
      }),
    );
    try {
      const result = await client.callTool({ name: ASKS_TWICE, arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'Alice likes blue.' }]);
      expect(asked).toEqual(['Step 1: What is your name?', 'Step 2: What is your favorite color?']);
    } finally {
      await client.close();
    }
  });
});
