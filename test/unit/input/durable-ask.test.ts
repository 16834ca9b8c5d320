// The ask helper of a durable function, run by the durable execution SDK itself (its testing library's local
// runner): the question is recorded on the task with the callback ID as its token, the answer sent to that callback
// ends the wait, an unanswered question fails the execution as a wait timeout, and a refused recording is not retried.
import { withDurableExecution, type DurableContext } from '@aws/durable-execution-sdk-js';
import { LocalDurableTestRunner, type DurableOperation } from '@aws/durable-execution-sdk-js-testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  inputNeverCameMessage,
  WAIT_TIMEOUT_ERRORS,
  type InputRequestMessage,
} from '../../../lambda/core/input-request.js';
import { TaskStatus } from '../../../lambda/core/task-status.js';
import type { DurableToolEvent } from '../../../lambda/contract/durable-tool-event.js';
import { createDurableAsk, type DurableQuestion } from '../../../lambda/input/durable-ask.js';
import { InMemoryInputRequests } from '../../../lambda/store/in-memory-input-requests.js';
import type { InputRequestStore } from '../../../lambda/store/input-request-store.js';
import { storedDurableTask } from '../../support/durable-test-task.js';

const APPROVAL: InputRequestMessage = {
  method: 'elicitation/create',
  params: {
    message: 'Approve the review?',
    requestedSchema: { type: 'object', properties: { approved: { type: 'boolean' } } },
  },
};

beforeAll(() => LocalDurableTestRunner.setupTestEnvironment());
afterAll(() => LocalDurableTestRunner.teardownTestEnvironment());

/** A durable function that asks one question and returns the answer. */
function asking(inputs: InputRequestStore, question: Partial<DurableQuestion> = {}) {
  const ask = createDurableAsk({ inputs });
  return new LocalDurableTestRunner({
    handlerFunction: withDurableExecution(async (event: DurableToolEvent, context: DurableContext) => ({
      answer: await ask(context, event, { request: APPROVAL, name: 'approval', ...question }),
    })),
  });
}

/** The callback inside the named waitForCallback, once its question has been submitted. */
async function submittedCallback(runner: LocalDurableTestRunner, name: string): Promise<DurableOperation> {
  const wait = await runner.getOperation(name).waitForData();
  for (;;) {
    const callback = wait.getChildOperations()?.find((each) => each.isCallback());
    if (callback?.getCallbackDetails()?.callbackId !== undefined) return callback;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('createDurableAsk', () => {
  it('records the question with the callback ID as its token, and returns the answer sent to that callback', async () => {
    const { store, event, read } = await storedDurableTask();
    const inputs = new InMemoryInputRequests(store);
    const runner = asking(inputs, { key: 'approval' });
    const running = runner.run({ payload: event });
    const callback = await submittedCallback(runner, 'approval');
    const task = (await read())!;
    expect(task.status).toBe(TaskStatus.InputRequired);
    expect(task.inputRequests?.['approval']).toMatchObject({ request: APPROVAL, state: 'outstanding' });
    const claim = await inputs.claim(task, 'approval', 'claim-1', Date.now());
    expect(claim).toEqual({ kind: 'claimed', taskToken: callback.getCallbackDetails()!.callbackId });
    await callback.sendCallbackSuccess(JSON.stringify({ action: 'accept', content: { approved: true } }));
    expect((await running).getResult()).toEqual({ answer: { action: 'accept', content: { approved: true } } });
  });

  it('keys an unnamed question by a digest of its callback ID and gives it the timeout as its deadline', async () => {
    const { store, event, read } = await storedDurableTask();
    const runner = asking(new InMemoryInputRequests(store), { timeoutSeconds: 600 });
    const running = runner.run({ payload: event });
    const callback = await submittedCallback(runner, 'approval');
    const [request] = Object.values((await read())!.inputRequests ?? {});
    expect(request!.key).toMatch(/^input-[0-9a-f]{32}$/);
    expect(request!.deadlineAt! - request!.askedAt).toBe(600_000);
    await callback.sendCallbackSuccess(JSON.stringify({ action: 'decline' }));
    expect((await running).getResult()).toEqual({ answer: { action: 'decline' } });
  });

  it('fails the execution with an error the task reads as the input never coming, when no answer comes in time', async () => {
    const { store, event, read } = await storedDurableTask();
    const result = await asking(new InMemoryInputRequests(store), { timeoutSeconds: 1 }).run({ payload: event });
    expect(result.getStatus()).toBe('FAILED');
    const { errorType, errorMessage } = result.getError();
    expect(WAIT_TIMEOUT_ERRORS).toContain(errorType);
    expect(inputNeverCameMessage((await read())!.inputRequests, errorMessage, errorType)).toMatch(
      /\("Approve the review\?"\) never came before its deadline/,
    );
  });

  it('fails the execution at once, without retrying, when the task is gone', async () => {
    const { store, event } = await storedDurableTask();
    let records = 0;
    const inputs = new InMemoryInputRequests(store);
    const counted: InputRequestStore = {
      claim: (...args) => inputs.claim(...args),
      release: (...args) => inputs.release(...args),
      settle: (...args) => inputs.settle(...args),
      record: async () => (records++, false),
    };
    const result = await asking(counted).run({ payload: event });
    expect(result.getStatus()).toBe('FAILED');
    expect(result.getError().errorMessage).toMatch(/gone or finished/);
    expect(records).toBe(1);
  });
});
