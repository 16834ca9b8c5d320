// Input requests: what a running workflow asks the client for. Pure: no AWS, no MCP SDK.
// A request lives on its task's record under a key unique over the task's lifetime; it is answered at most once, and
// answered requests stay (marked, not deleted) so that a late duplicate answer is recognised and ignored.
import { createHash } from 'node:crypto';
import { TaskStatus } from './task-status.js';

/**
 * The MCP requests a workflow may ask the client to answer, with their params as the 2026-07-28 schema has them
 * (contract/input-request-problems.ts checks an ask step's request against this shape).
 */
export type InputRequestMessage =
  | {
      readonly method: 'elicitation/create';
      readonly params: {
        readonly mode?: 'form';
        readonly message: string;
        readonly requestedSchema: Record<string, unknown>;
      };
    }
  | { readonly method: 'sampling/createMessage'; readonly params: Record<string, unknown> }
  | { readonly method: 'roots/list'; readonly params?: Record<string, unknown> };

/**
 * Where a request stands. `delivering`: one server holds a claim on it and is resuming the execution
 * (SendTaskSuccess); the claim ends in `answered`, or back in `outstanding` when the delivery failed, or lapses
 * after {@link DELIVERY_LEASE_MS} if that server died mid-way.
 */
export const InputRequestState = {
  Outstanding: 'outstanding',
  Delivering: 'delivering',
  Answered: 'answered',
  Expired: 'expired',
} as const;
export type InputRequestState = (typeof InputRequestState)[keyof typeof InputRequestState];

/** An input request as the task shows it: the task token is not part of it (it never leaves the store's internals). */
export interface InputRequest {
  readonly key: string;
  readonly request: InputRequestMessage;
  readonly state: InputRequestState;
  /** Epoch ms when it was asked. */
  readonly askedAt: number;
  /** Epoch ms after which the engine no longer waits for the answer (the ask's timeout), if bounded. */
  readonly deadlineAt?: number;
}

/**
 * Longer than a SendTaskSuccess can take with the SDK's bounded retries (see handlers/aws-clients AWS_CLIENT_BOUNDS,
 * about 10 s at worst), so a live claim never lapses while its delivery may still land.
 */
export const DELIVERY_LEASE_MS = 30_000;

/** What the state machine receives as the ask state's output: it branches on `action`. */
export interface InputAnswer {
  readonly action: 'accept' | 'decline' | 'cancel';
  readonly content?: Record<string, unknown>;
}

/**
 * The key of the request made with this task token: a digest, so the same ask retried by Lambda gets the same key
 * (idempotent), a new ask (a loop, a Map iteration) a new one, and the token cannot be read back from it.
 */
export function inputKeyFor(taskToken: string): string {
  return `input-${createHash('sha256').update(taskToken).digest('hex').slice(0, 32)}`;
}

/** Whether the request still waits for its answer (a delivery in flight counts: it may yet fail). */
export function isOpen(request: Pick<InputRequest, 'state'>): boolean {
  return request.state === InputRequestState.Outstanding || request.state === InputRequestState.Delivering;
}

/** The task's requests that still wait for an answer, by key. */
export function openInputRequests(requests: Readonly<Record<string, InputRequest>> | undefined): InputRequest[] {
  return Object.values(requests ?? {}).filter(isOpen);
}

/** Whether the task waits on its client: `input_required` with at least one request still open. */
export function awaitsAnswers(task: {
  readonly status: TaskStatus;
  readonly inputRequests?: Readonly<Record<string, InputRequest>>;
}): boolean {
  return task.status === TaskStatus.InputRequired && openInputRequests(task.inputRequests).length > 0;
}

/** The client capability (MCP ClientCapabilities key) answering each input method takes. */
export const CAPABILITY_OF_METHOD = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
} as const satisfies Record<InputRequestMessage['method'], string>;

/**
 * A key an ask step names itself (rather than the digest of its task token): letters, digits, `_`, `-` and `.`, at
 * most 64. A named key is the client's handle on a known question (SEP-2322 `user_name`), so it must be unique over
 * the task's lifetime: a second ask under an answered key is left answered and never reaches the client.
 */
export const NAMED_INPUT_KEY = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * The errors an execution fails with when a wait for an answer passes its deadline: Step Functions' for a
 * `.waitForTaskToken` state's TimeoutSeconds / HeartbeatSeconds, and the durable execution SDK's for a
 * `waitForCallback` timeout or heartbeat timeout left uncaught (its `errorType`, which Lambda reports as the
 * execution's ErrorType).
 */
export const WAIT_TIMEOUT_ERRORS = ['States.Timeout', 'States.HeartbeatTimeout', 'CallbackTimeoutError'] as const;

/**
 * The failure message of a task whose execution failed while input was still asked for: the input never came. It
 * applies while a request is open, or when the execution timed out and a request's answer was refused as too late
 * (`expired`); an `expired` request alone proves nothing (a repeated delivery is refused the same way). `undefined`
 * when neither holds.
 */
export function inputNeverCameMessage(
  requests: Readonly<Record<string, InputRequest>> | undefined,
  executionMessage: string | undefined,
  executionError?: string,
): string | undefined {
  const timedOut = WAIT_TIMEOUT_ERRORS.includes(executionError as never);
  const unanswered = Object.values(requests ?? {}).filter(
    (request) => isOpen(request) || (timedOut && request.state === InputRequestState.Expired),
  );
  if (unanswered.length === 0) return undefined;
  const asked = unanswered
    .map((request) =>
      request.request.method === 'elicitation/create' ? `"${request.request.params.message}"` : request.request.method,
    )
    .join(', ');
  return (
    `The input requested (${asked}) never came before its ` +
    `deadline${executionMessage ? ` (${executionMessage})` : ''}.`
  );
}
