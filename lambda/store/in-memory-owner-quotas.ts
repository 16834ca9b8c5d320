// OwnerQuotas in memory, for fast unit tests: the same guarantees as the DynamoDB quotas, held by one contract suite
// (test/contract/owner-quotas-contract.ts). Each check and its write run in one synchronous step, so no two callers can
// both take the last place. Not for production: the limits hold within one process only.
import { isTerminal } from '../core/task-status.js';
import { taskKey } from '../core/task-key.js';
import type { OwnerQuotas } from './owner-quotas.js';
import type { TaskStore } from './task-store.js';

export interface InMemoryOwnerQuotasOptions {
  /** Reads the tasks a slot names, to repair slots whose task is no longer active. */
  readonly tasks: Pick<TaskStore, 'getByKey'>;
}

export class InMemoryOwnerQuotas implements OwnerQuotas {
  private readonly tasks: Pick<TaskStore, 'getByKey'>;
  /** Per owner, the creations counted in each window, by window start (epoch ms). */
  private readonly creations = new Map<string, Map<number, { count: number; end: number }>>();
  /** Per owner, the keys of the tasks holding an active-task slot. */
  private readonly slots = new Map<string, Set<string>>();

  constructor(options: InMemoryOwnerQuotasOptions) {
    this.tasks = options.tasks;
  }

  async countCreation(owner: string, window: { start: number; ms: number }, max: number): Promise<boolean> {
    const windows = this.creations.get(owner) ?? new Map<number, { count: number; end: number }>();
    this.creations.set(owner, windows);
    // Nothing reads a window once a later one has begun: drop those that are over, as DynamoDB's TTL does.
    for (const [start, { end }] of windows) if (end <= window.start) windows.delete(start);
    const counted = windows.get(window.start) ?? { count: 0, end: window.start + window.ms };
    if (counted.count >= max) return false;
    windows.set(window.start, { ...counted, count: counted.count + 1 });
    return true;
  }

  async holdActiveSlot(owner: string, taskId: string, max: number): Promise<boolean> {
    const key = taskKey(owner, taskId);
    const held = this.slots.get(owner) ?? new Set<string>();
    if (!held.has(key) && held.size >= max) return false;
    this.slots.set(owner, held.add(key));
    return true;
  }

  async releaseActiveSlot(owner: string, taskId: string): Promise<void> {
    this.removeSlots(owner, [taskKey(owner, taskId)]);
  }

  async reconcileActiveSlots(owner: string): Promise<number> {
    const keys = [...(this.slots.get(owner) ?? [])];
    // A slot is held only after its task is stored, so a key whose task is absent is a leftover.
    const tasks = await Promise.all(keys.map((key) => this.tasks.getByKey(key)));
    const stale = keys.filter((_, index) => {
      const task = tasks[index];
      return task === null || task === undefined || isTerminal(task.status);
    });
    this.removeSlots(owner, stale);
    return stale.length;
  }

  private removeSlots(owner: string, keys: readonly string[]): void {
    const held = this.slots.get(owner);
    if (held === undefined) return;
    for (const key of keys) held.delete(key);
    if (held.size === 0) this.slots.delete(owner);
  }
}
