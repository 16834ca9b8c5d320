// `watch` over the server's event stream: the task's events become the live view's updates, each with a plain line of
// its own, and each handed to the command (which prints it as a JSON line under --json). When the stream cannot be had
// or resumed (the follower gives up after a few reconnections), the view carries on polling tasks/get, so a watcher
// always reaches the task's end.
import { UnknownTaskError } from './cli-errors.js';
import { pollingUpdates, type TaskUpdate, type TaskUpdates } from './live-view.js';
import { renderTaskEvent } from './render.js';
import {
  isTerminal,
  type FollowItem,
  type TaskClient,
  type TaskEventOccurrence,
  type TaskEvents,
  type TaskInfo,
} from './task-client.js';

export interface EventWatchHooks {
  /** Each event, once, in order (before the view shows it). */
  onEvent?(occurrence: TaskEventOccurrence): void;
  /** Word for the person watching: a reconnection, a truncated log, a fallback to polling. */
  onNote?(text: string): void;
}

/** The task as an event shows it, in the shape the live view draws. */
export function taskInfoOfEvent(occurrence: TaskEventOccurrence): TaskInfo {
  const { task } = occurrence.data;
  const count = task.progress;
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
    ...(occurrence.timestamp ? { lastUpdatedAt: occurrence.timestamp } : {}),
    ...(count?.progress !== undefined
      ? { progress: { progress: count.progress, ...(count.total !== undefined ? { total: count.total } : {}) } }
      : {}),
  };
}

function noteOf(item: Exclude<FollowItem, { kind: 'event' }>): string {
  if (item.kind === 'truncated')
    return `The server no longer holds this task's events after cursor ${item.cursor}; following from its oldest.`;
  return (
    `The event stream dropped (${item.reason}); resuming after cursor ${item.cursor} ` +
    `(reconnection ${item.attempt}).`
  );
}

/** The live view's updates from `events.follow`, starting at `cursor` ("0": the task's whole log). */
export function eventUpdates(
  client: TaskClient,
  events: TaskEvents,
  taskId: string,
  initial: TaskInfo,
  hooks: EventWatchHooks = {},
  cursor = '0',
): TaskUpdates {
  const stop = new AbortController();
  const items = events
    .follow(taskId, {
      cursor,
      signal: stop.signal,
      isEnded: async () => isTerminal((await client.getTask(taskId)).status),
    })
    [Symbol.asyncIterator]();
  let polling: TaskUpdates | undefined;

  const pollFrom = async (reason?: string): Promise<TaskUpdate> => {
    if (reason !== undefined) hooks.onNote?.(`${reason} Polling instead.`);
    const task = await client.getTask(taskId);
    polling = pollingUpdates(client, taskId, { ...initial, ...task });
    return { task };
  };

  return {
    replaysHistory: cursor === '0',
    async next(): Promise<TaskUpdate> {
      if (polling) return polling.next();
      for (;;) {
        let step: IteratorResult<FollowItem>;
        try {
          step = await items.next();
        } catch (error) {
          if (error instanceof UnknownTaskError || stop.signal.aborted) throw error;
          return pollFrom(error instanceof Error ? error.message : String(error));
        }
        // The follower stops after a terminal event, which ends the watch; or when the task ended without one.
        if (step.done) return pollFrom();
        const item = step.value;
        if (item.kind !== 'event') {
          hooks.onNote?.(noteOf(item));
          continue;
        }
        hooks.onEvent?.(item.occurrence);
        return { task: taskInfoOfEvent(item.occurrence), line: renderTaskEvent(item.occurrence) };
      }
    },
    close() {
      stop.abort();
      void items.return?.().catch(() => {});
      polling?.close();
    },
  };
}
