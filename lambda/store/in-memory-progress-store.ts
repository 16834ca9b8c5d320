// ProgressStore in memory, for fast unit tests: progress lives on the task records of an InMemoryTaskStore, as DynamoDB
// keeps it on the task item, so a read of the task shows it. The same guarantees as the DynamoDB store, held by one
// contract suite (test/contract/progress-store-contract.ts); each report is one atomic step of
// InMemoryTaskStore.mutate. Not for production.
import { isExpired } from '../core/task.js';
import { isTerminal } from '../core/task-status.js';
import type { TaskProgress } from '../core/task-progress.js';
import type { InMemoryTaskStore } from './in-memory-task-store.js';
import type { ProgressReport, ProgressStore } from './progress-store.js';

export class InMemoryProgressStore implements ProgressStore {
  constructor(private readonly tasks: InMemoryTaskStore) {}

  async record(key: string, executionArn: string, report: ProgressReport): Promise<TaskProgress | null> {
    const written = this.tasks.mutate(key, (stored, now) => {
      // The live task of this very execution: a task created anew under a reused ID has another one.
      if (stored === undefined || stored.executionArn !== executionArn) return undefined;
      if (isTerminal(stored.status) || isExpired(stored, now)) return undefined;
      const before = stored.progress;
      if (report.increment === undefined && takesBack(before, report)) return undefined;
      // Concurrent reporters each add their share; the order they land in does not matter.
      const count = report.increment !== undefined ? (before?.progress ?? 0) + report.increment : report.progress;
      const progress: TaskProgress = {
        ...before,
        at: report.at,
        ...(report.message !== undefined ? { message: report.message } : {}),
        ...(count !== undefined ? { progress: count } : {}),
        ...(report.total !== undefined ? { total: report.total } : {}),
        ...(report.deadline !== undefined ? { deadline: report.deadline } : {}),
      };
      // lastUpdatedAt moves with the progress: it is news to anyone watching the task.
      return { ...stored, progress, lastUpdatedAt: now };
    });
    return written?.progress ?? null;
  }
}

/**
 * Whether an absolute report would take the stored progress back: a lower count, the same count reported earlier, or
 * (with no count) a message older than the stored one.
 */
function takesBack(before: TaskProgress | undefined, report: ProgressReport): boolean {
  if (before === undefined) return false;
  if (report.progress === undefined) return before.at > report.at;
  if (before.progress === undefined) return false;
  return before.progress > report.progress || (before.progress === report.progress && before.at > report.at);
}
