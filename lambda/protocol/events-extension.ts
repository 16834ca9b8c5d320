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
 * look. Unchanged when there are none.
 */
export async function withWebhookStatus<T extends { _meta?: Record<string, unknown> }>(
  deps: McpServerDependencies,
  owner: string,
  taskId: string,
  answer: T,
): Promise<T> {
  const subscriptions = deps.events?.subscriptions;
  if (subscriptions === undefined) return answer;
  const following = await subscriptions.forTask(owner, taskId);
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
