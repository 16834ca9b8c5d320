// The local stand-in for Step Functions' status-change events (EventBridge → the status-sync function in AWS): the
// emulator announces no status changes, so the local stack reads each unfinished task every `intervalMs`, as tasks/get
// does, and the read records what the execution did (a DescribeExecution on the emulator). The change then reaches
// the task table, its stream, and the task's events and webhooks, as a status event's would in AWS.
import { TaskExpiredError, TaskNotFoundError } from '../lambda/core/errors.js';
import { isTerminal, type TaskStatus } from '../lambda/core/task-status.js';

export interface ExecutionStatusWatcher {
  /** Starts following the task until it is finished or gone. */
  watch(owner: string, taskId: string): void;
  stop(): void;
}

export function startExecutionStatusWatcher(options: {
  /**
   * Reads the task, refreshing it from its execution; throws `TaskNotFoundError` or `TaskExpiredError` when it is
   * gone. Any other failure (the table unreachable for a while) is tried again next round.
   */
  readonly read: (owner: string, taskId: string) => Promise<{ readonly status: TaskStatus }>;
  readonly intervalMs: number;
}): ExecutionStatusWatcher {
  const watched = new Map<string, { owner: string; taskId: string }>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const round = async (): Promise<void> => {
    for (const [key, { owner, taskId }] of watched) {
      try {
        if (isTerminal((await options.read(owner, taskId)).status)) watched.delete(key);
      } catch (error) {
        // Only a task that is gone stops being watched: an outage must not leave a finished task to a client's poll.
        if (error instanceof TaskNotFoundError || error instanceof TaskExpiredError) watched.delete(key);
      }
    }
  };
  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => void round().finally(schedule), options.intervalMs).unref();
  };
  schedule();
  return {
    watch: (owner, taskId) => void watched.set(JSON.stringify([owner, taskId]), { owner, taskId }),
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
