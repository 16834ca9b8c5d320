// The ask helper of a durable function (written with @aws/durable-execution-sdk-js): the ask step's counterpart for a
// workflow written as code. It waits on a callback (`context.waitForCallback`) whose submitter records the question on
// the task, with the callback ID as the request's token, exactly as the ask step records a `.waitForTaskToken` state's
// token; the server answers with SendDurableExecutionCallbackSuccess, which ends the wait with the client's answer.
import type { DurableContext, RetryDecision } from '@aws/durable-execution-sdk-js';
import { SYSTEM_CLOCK, type Clock } from '../core/clock.js';
import type { InputAnswer, InputRequestMessage } from '../core/input-request.js';
import type { DurableToolEvent } from '../contract/durable-tool-event.js';
import type { InputRequestStore } from '../store/input-request-store.js';
import { AskStepError, recordInputRequest } from './input-request-recording.js';

export interface DurableAskOptions {
  readonly inputs: InputRequestStore;
  /** @default SYSTEM_CLOCK */
  readonly clock?: Pick<Clock, 'now'>;
}

/** One question, as a durable function asks it. */
export interface DurableQuestion {
  readonly request: InputRequestMessage;
  /**
   * How long the client has to answer. Past it the wait fails with the SDK's `CallbackTimeoutError`, which fails the
   * execution unless the workflow catches it; the task then says the input never came. @default no limit
   */
  readonly timeoutSeconds?: number;
  /** The request's key, when the workflow names it (see NAMED_INPUT_KEY); by default a digest of the callback ID. */
  readonly key?: string;
  /** The operation's name in the execution's history (what the task shows as its current step). @default 'ask' */
  readonly name?: string;
}

/** Asks the client and waits for the answer: the parsed JSON the server sends (for elicitation, an InputAnswer). */
export type DurableAsk = <Answer = InputAnswer>(
  context: Pick<DurableContext, 'waitForCallback'>,
  event: Pick<DurableToolEvent, 'execution'>,
  question: DurableQuestion,
) => Promise<Answer>;

/** How often recording the question is tried when DynamoDB fails (a refusal is never retried: it cannot pass). */
const RECORD_ATTEMPTS = 3;

/**
 * Retries a failed recording (a throttle, an outage) a few times, a second apart; an {@link AskStepError} (a
 * malformed question, a foreign execution, a task gone) at once fails the wait, and with it the execution.
 */
export function recordRetryDecision(error: Error, attemptCount: number): RetryDecision {
  const refused = error instanceof AskStepError || error.name === 'AskStepError';
  return refused || attemptCount >= RECORD_ATTEMPTS
    ? { shouldRetry: false }
    : { shouldRetry: true, delay: { seconds: 1 } };
}

/** The ask helper over `options.inputs`; a durable function's composition root builds it once. */
export function createDurableAsk(options: DurableAskOptions): DurableAsk {
  const clock = options.clock ?? SYSTEM_CLOCK;
  return async <Answer>(
    context: Pick<DurableContext, 'waitForCallback'>,
    event: Pick<DurableToolEvent, 'execution'>,
    question: DurableQuestion,
  ): Promise<Answer> => {
    const timeout = question.timeoutSeconds;
    const answer = await context.waitForCallback<string | undefined>(
      question.name ?? 'ask',
      async (callbackId) => {
        await recordInputRequest(
          options.inputs,
          {
            taskToken: callbackId,
            executionArn: event.execution,
            request: question.request,
            ...(timeout !== undefined ? { timeoutSeconds: timeout } : {}),
            ...(question.key !== undefined ? { key: question.key } : {}),
          },
          clock.now(),
        );
      },
      {
        ...(typeof timeout === 'number' && timeout > 0 ? { timeout: { seconds: timeout } } : {}),
        retryStrategy: recordRetryDecision,
      },
    );
    // The server sends the answer as JSON text; a callback completed with no result (not by this backend) is no answer.
    return (answer === undefined || answer === '' ? undefined : JSON.parse(answer)) as Answer;
  };
}
