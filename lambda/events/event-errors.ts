// What the Events extension's use cases refuse, as domain errors; protocol/events-endpoint.ts alone turns them into
// JSON-RPC codes. Every message says what to change.
import type { DeliveryErrorCategory } from '../core/webhook-subscription.js';

export type DeliveryMode = 'poll' | 'push' | 'webhook';

export class EventsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** No event type by this name. */
export class EventTypeNotFoundError extends EventsError {
  constructor(readonly eventName: string) {
    super(`Unknown event type '${eventName}': events/list names the event types this server offers`);
  }
}

/** The task the arguments name is not one of the caller's (or no longer exists): said the same either way. */
export class EventTaskNotFoundError extends EventsError {
  constructor(readonly taskId: string) {
    super(`Task not found: ${taskId}`);
  }
}

/** No subscription with this key (principal, URL, name, arguments). */
export class SubscriptionNotFoundError extends EventsError {
  constructor() {
    super('No webhook subscription with this name, arguments and delivery URL');
  }
}

/** The event type does not offer this delivery mode (or webhooks are turned off on this endpoint). */
export class DeliveryModeUnsupportedError extends EventsError {
  constructor(
    readonly mode: DeliveryMode,
    reason: string,
  ) {
    super(reason);
  }
}

/** Params the request must carry differently. */
export class InvalidEventParamsError extends EventsError {}

/** The principal holds as many live subscriptions as it may. */
export class SubscriptionLimitError extends EventsError {
  constructor(readonly max: number) {
    super(
      `At most ${max} webhook subscriptions may be live at once: unsubscribe one (events/unsubscribe) or let one lapse`,
    );
  }
}

/** The callback endpoint did not confirm it wants deliveries; `category` says how, never in the endpoint's words. */
export class CallbackEndpointError extends EventsError {
  constructor(readonly category: DeliveryErrorCategory) {
    super(
      category === 'challenge_failed'
        ? 'The callback URL did not echo the verification challenge: answer a {"type":"verification"} POST with 200 ' +
            'and {"challenge": <the challenge>}'
        : `The callback URL could not be reached to verify it (${category})`,
    );
  }
}
