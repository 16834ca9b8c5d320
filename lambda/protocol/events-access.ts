// What the MCP endpoint needs to serve the Events extension (protocol/events-endpoint.ts); part of
// McpServerDependencies, absent when the endpoint has no event table.
import type { Clock } from '../core/clock.js';
import type { TaskEventFeed } from '../events/task-event-feed.js';
import type { WebhookSubscriptions } from '../events/webhook-subscriptions.js';

export interface TaskEventsAccess {
  readonly feed: TaskEventFeed;
  /** Absent when webhooks are turned off: events/subscribe then answers Unsupported. */
  readonly subscriptions?: WebhookSubscriptions;
  readonly clock: Clock;
  /** How often an open events/stream looks for new events. */
  readonly streamPollMs: number;
  /** How often an open events/stream sends a heartbeat (SEP-3415: at least every 30 s). */
  readonly heartbeatMs: number;
  /** How long one events/stream stays open; the client resumes from its cursor after. */
  readonly streamLifetimeMs: number;
}
