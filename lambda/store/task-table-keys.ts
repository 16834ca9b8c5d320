// The partition keys of the task table's items other than tasks, and the active-expiry shard of a task: built from
// core/task-key, so an owner's items can never collide with another owner's. The layout itself (attribute and index
// names) is in contract/task-table-schema.ts.
import { ACTIVE_EXPIRY_SHARDS } from '../contract/task-table-schema.js';
import { taskKey } from '../core/task-key.js';

/**
 * Key of the item mapping (owner, JSON-RPC request ID) to a SEP-1686 task; its prefix keeps it apart from task keys.
 */
export function requestKey(owner: string, requestId: string): string {
  return `request#${taskKey(owner, requestId)}`;
}

/**
 * Key of one of the items holding the keys of an owner's active tasks (per-owner limit, see dynamodb-owner-quotas.ts);
 * `active#` keeps it apart from task keys. Shard 0 is the item of the days before shards, so its slots still count.
 */
export function activeTasksKey(owner: string, shard = 0): string {
  const key = `active#${taskKey(owner, '')}`;
  return shard === 0 ? key : `${key}#${shard}`;
}

/** Key of the one item holding the tools discovered among the account's state machines. */
export function discoveredCatalogKey(): string {
  return 'catalog#discovered';
}

/** Key of the item holding the last refresh's decision on each machine it looked at (operator information). */
export function discoveryReportKey(): string {
  return 'catalog#discovered#report';
}

/** Key of the item counting an owner's task creations in the minute window starting at `windowStart` (epoch ms). */
export function creationsKey(owner: string, windowStart: number): string {
  return `creations#${taskKey(owner, String(windowStart))}`;
}

/** The shard of the task stored under `key` (a hex sha256, see core/task-key): spreads tasks evenly and stays put. */
export function activeExpiryShard(key: string): string {
  return `shard-${Number.parseInt(key.slice(0, 8), 16) % ACTIVE_EXPIRY_SHARDS}`;
}

/** Every shard value, for the sweep's queries. */
export function activeExpiryShards(): string[] {
  return Array.from({ length: ACTIVE_EXPIRY_SHARDS }, (_, index) => `shard-${index}`);
}
