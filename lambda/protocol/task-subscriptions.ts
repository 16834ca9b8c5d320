// `subscriptions/listen` for task IDs (Tasks extension): a server-sent event stream that pushes the full detailed
// task whenever a subscribed task changes. Changes are read from the task store, not from process memory, so a
// stream on any instance sees what any other instance (or a status event) wrote. The SDK's own listen router
// serves list-changed subscriptions only; it never acknowledges task IDs, so these requests are answered here.
import {
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  type ClientCapabilities,
  type JSONRPCRequest,
} from '@modelcontextprotocol/server';
import { TaskExpiredError, TaskNotFoundError } from '../core/errors.js';
import { type TaskRecord } from '../core/task.js';
import { isTerminal } from '../core/task-status.js';
import { activityChanged } from '../core/task-progress.js';
import type { TaskService } from '../service/task-service.js';
import { missingCapabilities } from './client-capabilities.js';
import { serveListenStream, type ListenStreamOptions } from './listen-stream.js';
import { TASKS_EXTENSION, TASKS_EXTENSION_CAPABILITY, toDetailedTask } from './tasks-extension.js';

export interface TaskSubscriptionOptions extends ListenStreamOptions {
  readonly service: TaskService;
}

/** The task IDs a listen request's filter names, without repeats; `undefined` when it names none. */
export function taskIdsOf(filter: Record<string, unknown>): string[] | undefined {
  const taskIds = filter['taskIds'];
  if (!Array.isArray(taskIds) || taskIds.length === 0 || !taskIds.every((id) => typeof id === 'string'))
    return undefined;
  return [...new Set(taskIds as string[])];
}

/** What the listen request's `_meta` declared of the Tasks extension; `undefined` when nothing is missing. */
function missingTasksCapability(message: JSONRPCRequest): Record<string, object> | undefined {
  const meta = (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  return missingCapabilities(
    TASKS_EXTENSION_CAPABILITY,
    (meta?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? {},
  );
}

/**
 * Serves one task subscription for `owner`: the acknowledgement names the subscribed tasks this owner can see
 * (others are left out, exactly as if they did not exist), then each task's current state, then every change
 * until all are terminal or the stream's lifetime ends; it then ends with the listen request's result.
 */
export function serveTaskSubscription(
  subscription: { message: JSONRPCRequest; taskIds: string[] },
  owner: string,
  signal: AbortSignal,
  options: TaskSubscriptionOptions,
): Response {
  const { message } = subscription;
  const missing = missingTasksCapability(message);
  if (missing !== undefined) {
    const { code, data } = new MissingRequiredClientCapabilityError({ requiredCapabilities: missing });
    const error = {
      code,
      message: `Missing required client capability: declare the ${TASKS_EXTENSION} extension to subscribe to tasks`,
      data,
    };
    return Response.json({ jsonrpc: '2.0', id: message.id, error }, { status: 400 });
  }
  const { service } = options;
  return serveListenStream(message, signal, options, async (stream) => {
    const { clock, until } = stream;
    const notifyTask = async (task: TaskRecord): Promise<void> => {
      const detailed = toDetailedTask(task, await service.resultOf(task));
      // The task's own `_meta` (its progress) stays beside the subscription's.
      stream.notify('notifications/tasks', detailed);
    };
    const watched = new Map<string, TaskRecord>();
    for (const taskId of subscription.taskIds) {
      const task = await currentTask(service, owner, taskId);
      if (task !== null) watched.set(taskId, task);
    }
    stream.notify('notifications/subscriptions/acknowledged', { notifications: { taskIds: [...watched.keys()] } });
    for (const task of watched.values()) await notifyTask(task);
    for (const [taskId, task] of watched) if (isTerminal(task.status)) watched.delete(taskId);
    while (watched.size > 0 && clock.now() < until && !stream.signal.aborted) {
      await clock.sleep(Math.min(options.pollIntervalMs, until - clock.now()), stream.signal);
      for (const [taskId, seen] of [...watched]) {
        const task = await currentTask(service, owner, taskId);
        // Progress the workflow reports moves lastUpdatedAt too; compared itself as well, for two writes in one
        // millisecond.
        // A new current step leaves lastUpdatedAt alone, but changes the statusMessage shown.
        const changed =
          task !== null &&
          (task.status !== seen.status || task.lastUpdatedAt !== seen.lastUpdatedAt || activityChanged(seen, task));
        if (changed) await notifyTask(task);
        // Gone (deleted or expired) ends that task's story as surely as a terminal status: nothing more will
        // change.
        if (task === null || isTerminal(task.status)) watched.delete(taskId);
        else watched.set(taskId, task);
      }
    }
  });
}

/** The task as the owner may see it now, or `null` when it is not (or no longer) visible to them. */
async function currentTask(service: TaskService, owner: string, taskId: string): Promise<TaskRecord | null> {
  try {
    return await service.getTask(owner, taskId);
  } catch (error) {
    if (error instanceof TaskNotFoundError || error instanceof TaskExpiredError) return null;
    throw error;
  }
}
