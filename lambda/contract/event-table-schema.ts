// The events table's layout, in one place for the stores, the local stack and the CDK construct. It holds two kinds of
// item: a task's events (partition `task#<task key>`, sort key the event's number, zero-padded) and the webhook
// subscriptions (partition `subscriptions#<owner digest>`, sort key the subscription ID). Both expire by TTL: events
// with their task, subscriptions when their grant lapses.
import type { TableDescriptor } from './table-descriptor.js';

export const EVENT_PARTITION_KEY = 'pk';
export const EVENT_SORT_KEY = 'sk';
/** Epoch seconds; DynamoDB's TTL attribute. Absent means no expiry. */
export const EVENT_TTL_ATTRIBUTE = 'expiresAt';

export const EVENT_TABLE: TableDescriptor = {
  partitionKey: { name: EVENT_PARTITION_KEY, type: 'S' },
  sortKey: { name: EVENT_SORT_KEY, type: 'S' },
  ttlAttribute: EVENT_TTL_ATTRIBUTE,
  indexes: [],
};
