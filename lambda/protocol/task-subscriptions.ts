// `subscriptions/listen` for task IDs (Tasks extension): a server-sent event stream that pushes the full detailed
// task whenever a subscribed task changes. Changes are read from the task store, not from process memory, so a
// stream on any instance sees what any other instance (or a status event) wrote. The SDK's own listen router
// serves list-changed subscriptions only; it never acknowledges task IDs, so these requests are answered here.
import {
  CLIENT_CAPABILITIES_META_KEY,
  classifyInboundRequest,
  MissingRequiredClientCapabilityError,
  SERVER_INFO_META_KEY,
  SUBSCRIPTION_ID_META_KEY,
  type ClientCapabilities,
  type JSONRPCRequest,
} from '@modelcontextprotocol/server';
import { TaskExpiredError, TaskNotFoundError } from '../core/errors.js';
import { type TaskRecord } from '../core/task.js';
import { isTerminal } from '../core/task-status.js';
import { activityChanged } from '../core/task-progress.js';
import type { TaskService } from '../service/task-service.js';
import { SYSTEM_CLOCK, type Clock } from '../core/clock.js';
import { missingCapabilities } from './client-capabilities.js';
import { SERVER_INFO } from './mcp-dependencies.js';
import { TASKS_EXTENSION, TASKS_EXTENSION_CAPABILITY, toDetailedTask } from './tasks-extension.js';

export interface TaskSubscriptionOptions {
  readonly service: TaskService;
  /** How often each subscribed task is read from the store. */
  readonly pollIntervalMs: number;
  /**
   * How long one stream stays open before it ends cleanly and the client listens again (Lambda and API Gateway bound
   * it).
   */
  readonly maxLifetimeMs: number;
  /** SSE comment frames this often keep proxies from closing a quiet stream. */
  readonly keepAliveMs: number;
  /** @default SYSTEM_CLOCK */
  readonly clock?: Clock;
}

/** A validated modern-era `subscriptions/listen` request that names task IDs, or `undefined` for anything else. */
export function taskSubscriptionRequestOf(
  request: Request,
  body: unknown,
): { message: JSONRPCRequest; taskIds: string[] } | undefined {
  if (request.method !== 'POST' || (body as { method?: unknown } | null)?.method !== 'subscriptions/listen')
    return undefined;
  const outcome = classifyInboundRequest({
    httpMethod: request.method,
    body,
    ...headerValue(request, 'mcp-protocol-version', 'protocolVersionHeader'),
    ...headerValue(request, 'mcp-method', 'mcpMethodHeader'),
    ...headerValue(request, 'mcp-name', 'mcpNameHeader'),
  });
  // Anything the SDK's ladder rejects, or that names no task, goes to the SDK, which answers it.
  if (outcome.kind !== 'modern' || outcome.messageKind !== 'request') return undefined;
  const taskIds = (outcome.message.params as { notifications?: { taskIds?: unknown } } | undefined)?.notifications
    ?.taskIds;
  if (!Array.isArray(taskIds) || taskIds.length === 0 || !taskIds.every((id) => typeof id === 'string'))
    return undefined;
  return { message: outcome.message, taskIds: [...new Set(taskIds as string[])] };
}

function headerValue<K extends string>(request: Request, name: string, key: K): Partial<Record<K, string>> {
  const value = request.headers.get(name);
  return value === null ? {} : ({ [key]: value } as Record<K, string>);
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
  const subscriptionMeta = { [SUBSCRIPTION_ID_META_KEY]: message.id };
  const encoder = new TextEncoder();
  const stopped = new AbortController();
  signal.addEventListener('abort', () => stopped.abort(), { once: true });

  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const write = (frame: string): void => {
        if (!stopped.signal.aborted) controller.enqueue(encoder.encode(frame));
      };
      const send = (payload: Record<string, unknown>): void =>
        write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', ...payload })}\n\n`);
      const notifyTask = async (task: TaskRecord): Promise<void> => {
        const detailed = toDetailedTask(task, await service.resultOf(task));
        // The task's own `_meta` (its progress) stays beside the subscription's.
        send({
          method: 'notifications/tasks',
          params: {
            ...detailed,
            _meta: { ...(detailed['_meta'] as Record<string, unknown> | undefined), ...subscriptionMeta },
          },
        });
      };
      const keepAlive = setInterval(() => write(': keepalive\n\n'), options.keepAliveMs);
      try {
        const watched = new Map<string, TaskRecord>();
        for (const taskId of subscription.taskIds) {
          const task = await currentTask(service, owner, taskId);
          if (task !== null) watched.set(taskId, task);
        }
        send({
          method: 'notifications/subscriptions/acknowledged',
          params: { notifications: { taskIds: [...watched.keys()] }, _meta: subscriptionMeta },
        });
        for (const task of watched.values()) await notifyTask(task);
        const clock = options.clock ?? SYSTEM_CLOCK;
        const deadline = clock.now() + options.maxLifetimeMs;
        for (const [taskId, task] of watched) if (isTerminal(task.status)) watched.delete(taskId);
        while (watched.size > 0 && clock.now() < deadline && !stopped.signal.aborted) {
          await clock.sleep(Math.min(options.pollIntervalMs, deadline - clock.now()), stopped.signal);
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
        send({
          id: message.id,
          result: { resultType: 'complete', _meta: { ...subscriptionMeta, [SERVER_INFO_META_KEY]: SERVER_INFO } },
        });
      } catch {
        // The store or Step Functions failed mid-stream: end it; the client listens again or polls.
      } finally {
        clearInterval(keepAlive);
        if (!stopped.signal.aborted) controller.close();
        stopped.abort();
      }
    },
    cancel() {
      stopped.abort();
    },
  });
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    },
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
