// `notifications/progress` for a request that waits on a task: a plain tools/call, a 2025-11-25
// tasks/result, a SEP-1686 call while its response is pending. Sent only when the request carried a progressToken
// (MCP 2025-11-25 basic/utilities/progress), from the progress the workflow stores on its task or, when it reports
// none, the state a refresh found its execution in.
import { activityText } from '../core/task-progress.js';
import type { TaskRecord } from '../core/task.js';

export type ProgressToken = string | number;

/** The request's progress token, when its `_meta` carries a usable one. */
export function progressTokenOf(meta: Record<string, unknown> | undefined): ProgressToken | undefined {
  const token = meta?.['progressToken'];
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

export interface ProgressNotification {
  readonly method: 'notifications/progress';
  readonly params: {
    progressToken: ProgressToken;
    progress: number;
    total?: number;
    message?: string;
    _meta?: Record<string, unknown>;
  };
}

/**
 * What to pass to a wait as its `onProgress`: turns each new progress, or new current step, into a notification whose
 * message is what the task's statusMessage says of it ("Analysed 2 of 5 documents", "Running Compute"). The spec
 * requires `progress` to increase with every notification, so it is the workflow's count when it reports one (a new
 * message at an unchanged count is left for tasks/get), else the number of distinct messages so far.
 */
export function progressNotifier(
  token: ProgressToken,
  send: (notification: ProgressNotification) => Promise<void>,
  meta?: Record<string, unknown>,
): (task: TaskRecord) => Promise<void> {
  let last: number | undefined;
  let messages = 0;
  let lastMessage: string | undefined;
  return async (task) => {
    const reported = task.progress;
    const message = activityText(task);
    let progress: number;
    if (reported?.progress !== undefined) progress = reported.progress;
    else if (message !== undefined && message !== lastMessage) progress = ++messages;
    else return;
    if (last !== undefined && progress <= last) return;
    last = progress;
    lastMessage = message;
    const params = {
      progressToken: token,
      progress,
      ...(reported?.total !== undefined ? { total: reported.total } : {}),
      ...(message !== undefined ? { message } : {}),
      ...(meta !== undefined ? { _meta: meta } : {}),
    };
    // A client gone mid-wait must not fail the call: its abort signal ends the wait anyway.
    await send({ method: 'notifications/progress', params }).catch(() => undefined);
  };
}

/** The `onProgress` for a request whose `_meta` may carry a progress token: none when it carries none. */
export function progressNotifierFor(
  requestMeta: Record<string, unknown> | undefined,
  send: (notification: ProgressNotification) => Promise<void>,
  meta?: Record<string, unknown>,
): ((task: TaskRecord) => Promise<void>) | undefined {
  const token = progressTokenOf(requestMeta);
  return token === undefined ? undefined : progressNotifier(token, send, meta);
}
