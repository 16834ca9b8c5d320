// InputRequestStore in memory, for fast unit tests: the requests live on the task records of an InMemoryTaskStore, as
// DynamoDB keeps them on the task item, so a read of the task shows them (without token or claim). The same guarantees
// as the DynamoDB store, held by one contract suite (test/contract/input-request-store-contract.ts); each write is one
// atomic step of InMemoryTaskStore.mutate. Not for production.
import { DELIVERY_LEASE_MS, InputRequestState, openInputRequests, type InputRequest } from '../core/input-request.js';
import type { TaskRecord } from '../core/task.js';
import { isTerminal, TaskStatus } from '../core/task-status.js';
import { taskKey } from '../core/task-key.js';
import type { InMemoryTaskStore } from './in-memory-task-store.js';
import type { ClaimOutcome, InputRequestStore, NewInputRequest } from './input-request-store.js';

/** A request as the task record stores it: what a read shows, and the token and claim it never shows. */
type Entry = InputRequest & { readonly taskToken: string; readonly claimId?: string; readonly claimedAt?: number };

export class InMemoryInputRequests implements InputRequestStore {
  constructor(private readonly tasks: InMemoryTaskStore) {}

  async record(key: string, executionArn: string, request: NewInputRequest): Promise<boolean> {
    let recorded = false;
    this.tasks.mutate(key, (stored) => {
      if (stored === undefined || stored.executionArn !== executionArn || isTerminal(stored.status)) return undefined;
      recorded = true;
      if (entriesOf(stored)[request.key] !== undefined) return undefined; // a retried ask: recorded already
      const entry: Entry = {
        key: request.key,
        request: request.request,
        state: InputRequestState.Outstanding,
        askedAt: request.askedAt,
        taskToken: request.taskToken,
        ...(request.deadlineAt !== undefined ? { deadlineAt: request.deadlineAt } : {}),
      };
      return {
        ...stored,
        status: TaskStatus.InputRequired,
        lastUpdatedAt: request.askedAt,
        inputRequests: { ...stored.inputRequests, [request.key]: entry },
      };
    });
    return recorded;
  }

  async claim(task: TaskRecord, key: string, claimId: string, now: number): Promise<ClaimOutcome> {
    let outcome: ClaimOutcome = { kind: 'unknown' };
    this.tasks.mutate(taskKey(task.owner, task.taskId), (stored) => {
      const entry = stored?.executionArn === task.executionArn ? entriesOf(stored)[key] : undefined;
      if (stored === undefined || entry === undefined) return undefined;
      const active = !isTerminal(stored.status);
      const delivering = entry.state === InputRequestState.Delivering;
      const lapsed = delivering && (entry.claimedAt ?? 0) <= now - DELIVERY_LEASE_MS;
      if (!active || !(entry.state === InputRequestState.Outstanding || lapsed)) {
        outcome = delivering && active ? { kind: 'busy' } : { kind: 'settled' };
        return undefined;
      }
      outcome = { kind: 'claimed', taskToken: entry.taskToken };
      return withEntry(stored, { ...entry, state: InputRequestState.Delivering, claimId, claimedAt: now });
    });
    return outcome;
  }

  async release(task: TaskRecord, key: string, claimId: string): Promise<void> {
    this.ifClaimed(task, key, claimId, (stored, { claimId: _claim, claimedAt: _at, ...entry }) =>
      withEntry(stored, { ...entry, state: InputRequestState.Outstanding }),
    );
  }

  async settle(
    task: TaskRecord,
    key: string,
    claimId: string,
    state: 'answered' | 'expired',
    now: number,
  ): Promise<void> {
    this.ifClaimed(task, key, claimId, (stored, { claimId: _claim, ...entry }) => {
      // lastUpdatedAt moves, so a subscription (notifications/tasks) shows the shorter list of open requests.
      const settled = { ...withEntry(stored, { ...entry, state }), lastUpdatedAt: now };
      if (settled.status !== TaskStatus.InputRequired || openInputRequests(settled.inputRequests).length > 0)
        return settled;
      // Nothing is open any more: back to working.
      const { statusMessage: _message, ...rest } = settled;
      return { ...rest, status: TaskStatus.Working };
    });
  }

  /** Writes what `write` makes of the task while `claimId` holds the request; nothing when the claim was lost. */
  private ifClaimed(
    task: TaskRecord,
    key: string,
    claimId: string,
    write: (stored: TaskRecord, entry: Entry) => TaskRecord,
  ): void {
    this.tasks.mutate(taskKey(task.owner, task.taskId), (stored) => {
      const entry = stored?.executionArn === task.executionArn ? entriesOf(stored)[key] : undefined;
      if (stored === undefined || entry === undefined || entry.claimId !== claimId) return undefined;
      return write(stored, entry);
    });
  }
}

/** The stored entries of a task's requests, token and claim included (they are on every record `mutate` passes). */
function entriesOf(task: TaskRecord): Readonly<Record<string, Entry>> {
  return (task.inputRequests ?? {}) as Readonly<Record<string, Entry>>;
}

function withEntry(task: TaskRecord, entry: Entry): TaskRecord {
  return { ...task, inputRequests: { ...task.inputRequests, [entry.key]: entry } };
}
