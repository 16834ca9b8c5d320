// The conditional-write pieces the DynamoDB stores share: a write whose lost condition is an answer, not an error,
// and the "status is one of these" condition.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ACTIVE_STATUSES, type TaskStatus } from '../core/task-status.js';

/** Sends a conditional update: true when it was made, false when its condition refused it. */
export async function updateIfAllowed(client: DynamoDBDocumentClient, update: UpdateCommand): Promise<boolean> {
  try {
    await client.send(update);
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/**
 * `#status IN (...)` over `statuses`, with its values named `:<prefix>0`, `:<prefix>1`…; the caller maps `#status` to
 * the status attribute.
 */
export function statusIn(
  statuses: readonly TaskStatus[],
  prefix: string,
): { expression: string; values: Record<string, TaskStatus> } {
  const values = Object.fromEntries(statuses.map((status, i) => [`:${prefix}${i}`, status]));
  return { expression: `#status IN (${Object.keys(values).join(', ')})`, values };
}

/** The task is still active: not terminal. */
export const STATUS_IS_ACTIVE = statusIn(ACTIVE_STATUSES, 'active');
