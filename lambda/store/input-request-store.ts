// The input-request store contract: the open questions of a task live on the task's own item, so a read of
// the task (one GetItem) shows them; these writes change one request each, conditionally, from any server instance.
import type { InputRequestMessage } from '../core/input-request.js';
import type { TaskRecord } from '../core/task.js';

export interface NewInputRequest {
  readonly key: string;
  readonly request: InputRequestMessage;
  /**
   * The `.waitForTaskToken` state's token. Stored with the request, read only by {@link InputRequestStore.claim}, never
   * shown.
   */
  readonly taskToken: string;
  readonly askedAt: number;
  readonly deadlineAt?: number;
}

/** What a claim on a request found. Only `claimed` hands out the token. */
export type ClaimOutcome =
  | { readonly kind: 'claimed'; readonly taskToken: string }
  /** Answered before (or its wait is over): a duplicate or late answer, to be ignored. */
  | { readonly kind: 'settled' }
  /** Another caller holds a live claim and is delivering an answer right now. */
  | { readonly kind: 'busy' }
  /** No such request on this task, or the task is gone, terminal or another execution's. */
  | { readonly kind: 'unknown' };

export interface InputRequestStore {
  /**
   * Records the request on the task stored under `taskKey` whose execution is `executionArn`, and moves the task to
   * `input_required`. Idempotent per key: a request already recorded (a retried ask) is left as it is. Returns false,
   * writing nothing, when the task is gone, terminal, or belongs to another execution.
   */
  record(taskKey: string, executionArn: string, request: NewInputRequest): Promise<boolean>;

  /**
   * Claims the right to deliver the answer to `key` for `claimId`: atomically, at most one live claim per request, and
   * none once it is settled. A claim older than the delivery lease may be taken over (its holder died mid-way).
   */
  claim(task: TaskRecord, key: string, claimId: string, now: number): Promise<ClaimOutcome>;

  /** Gives the claim up, leaving the request open (the delivery failed). A no-op when `claimId` no longer holds it. */
  release(task: TaskRecord, key: string, claimId: string): Promise<void>;

  /**
   * Settles the request `claimId` delivered (`answered`) or found no longer awaited (`expired`); when no request of
   * the task is open any more, moves it from `input_required` back to `working`. A no-op when `claimId` no longer holds
   * it.
   */
  settle(task: TaskRecord, key: string, claimId: string, state: 'answered' | 'expired', now: number): Promise<void>;
}
