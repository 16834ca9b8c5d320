// What the rest of the endpoint knows of the Events extension without loading it: its name and capability, which
// requests are its, and the webhook status tasks/get shows. The extension's methods (events-endpoint.ts) load on the
// first events/* request, so a cold start that serves none pays nothing for them.
import type { McpServerDependencies } from './mcp-dependencies.js';

export const EVENTS_EXTENSION = 'io.modelcontextprotocol/events';
/** How a server advertises the extension, in either era's capabilities. */
export const EVENTS_EXTENSION_CAPABILITY = { [EVENTS_EXTENSION]: {} } as const;

/** Whether a parsed JSON-RPC body is an events/* request (or notification) this endpoint answers. */
export function isEventsMessage(body: unknown): boolean {
  const method = (body as { method?: unknown } | null)?.method;
  return typeof method === 'string' && method.startsWith('events/');
}

/**
 * tasks/get's answer with how the task's webhook deliveries go, in `_meta` under the extension's name, for the
 * owner's subscriptions that follow this task: so the owner learns of a suspended subscription where they already
 * look. Unchanged when there are none, or when they cannot be read.
 */
export async function withWebhookStatus<T extends { _meta?: Record<string, unknown> }>(
  deps: McpServerDependencies,
  owner: string,
  taskId: string,
  answer: T,
): Promise<T> {
  const subscriptions = deps.events?.subscriptions;
  if (subscriptions === undefined) return answer;
  let following;
  try {
    following = await subscriptions.forTask(owner, taskId);
  } catch (error) {
    // A decoration: the task's own answer stands without it.
    deps.logger.warn('Could not read the webhook status of a task', { taskId, error: String(error) });
    return answer;
  }
  if (following.length === 0) return answer;
  const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
  const webhooks = following.map(({ id, name, delivery }) => ({
    id,
    name,
    active: delivery.active,
    ...(delivery.lastDeliveryAt !== undefined ? { lastDeliveryAt: iso(delivery.lastDeliveryAt) } : {}),
    ...(delivery.lastError !== undefined ? { lastError: delivery.lastError } : {}),
    ...(delivery.failedSince !== undefined ? { failedSince: iso(delivery.failedSince) } : {}),
  }));
  return { ...answer, _meta: { ...answer._meta, [EVENTS_EXTENSION]: { webhooks } } };
}

/**
 * A webhook to attach to the task a tools/call creates: `params._meta["io.modelcontextprotocol/events"]` =
 * `{ "delivery": { "mode": "webhook", "url", "secret" } }`. The task's `task.events` are delivered to it from its
 * first event, as an events/subscribe with the task's ID and cursor "0" would, for as long as the task is kept.
 */
export interface WebhookAtCreation {
  readonly delivery: unknown;
}

export function webhookAtCreationOf(meta: unknown): WebhookAtCreation | undefined {
  const entry = (meta as Record<string, unknown> | undefined)?.[EVENTS_EXTENSION];
  if (typeof entry !== 'object' || entry === null || !('delivery' in entry)) return undefined;
  return { delivery: (entry as { delivery: unknown }).delivery };
}

/**
 * Checks the webhook before the task is created, so a refused one starts nothing: the refusal is the call's answer.
 * Webhooks turned off (or no events at all) refuse it as Unsupported.
 */
export async function checkWebhookAtCreation(deps: McpServerDependencies, webhook: WebhookAtCreation): Promise<void> {
  const subscriptions = deps.events?.subscriptions;
  if (subscriptions === undefined) {
    const { DeliveryModeUnsupportedError } = await import('../events/event-errors.js');
    throw new DeliveryModeUnsupportedError(
      'webhook',
      'Webhooks are turned off on this endpoint: poll the task instead',
    );
  }
  await subscriptions.check({ name: TASK_EVENTS_NAME, delivery: webhook.delivery });
}

/**
 * Subscribes the webhook to the created task's events, and says how it went in the CreateTaskResult's `_meta`: the
 * subscription (its ID and grant), or why the endpoint was not subscribed (a refused handshake, a private address). The
 * task runs either way; its handle is never lost to a webhook's failure.
 */
export async function attachWebhookAtCreation<T extends { _meta?: Record<string, unknown> }>(
  deps: McpServerDependencies,
  owner: string,
  task: { readonly taskId: string; readonly retention: { readonly ms: number | null } },
  webhook: WebhookAtCreation,
  answer: T,
): Promise<T> {
  const subscriptions = deps.events?.subscriptions;
  if (subscriptions === undefined) return answer;
  let outcome: Record<string, unknown>;
  try {
    const granted = await subscriptions.subscribe(owner, {
      name: TASK_EVENTS_NAME,
      arguments: { taskId: task.taskId },
      delivery: webhook.delivery,
      cursor: '0',
      ...(task.retention.ms !== null ? { ttlMs: task.retention.ms } : {}),
    });
    outcome = { subscription: { id: granted.id, refreshBefore: new Date(granted.refreshBefore).toISOString() } };
  } catch (error) {
    const { toMcpError } = await import('./protocol-errors.js');
    const { code, message, data } = toMcpError(error, deps.logger);
    outcome = { subscriptionError: { code, message, ...(data !== undefined ? { data } : {}) } };
  }
  return { ...answer, _meta: { ...answer._meta, [EVENTS_EXTENSION]: outcome } };
}

/** The event type a webhook attached at creation follows (events/event-catalog.ts TASK_EVENTS). */
const TASK_EVENTS_NAME = 'task.events';
