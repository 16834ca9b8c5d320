// The conditional UpdateItems on a task item, each pinned to the very task read (same execution: a task created anew
// under the same ID is another task). One records a TaskChange while the task is live and its status may move that
// way; the others SET what the reconciler, the progress step and a plain call's hand-off write on an active task.
// The store sends them and says what a lost condition means.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TASK_ATTRIBUTE as A } from '../contract/task-item-attributes.js';
import {
  EXPIRY_MS_ATTRIBUTE,
  OWNER_INDEX_PARTITION_KEY,
  PARTITION_KEY,
  TTL_ATTRIBUTE,
} from '../contract/task-table-schema.js';
import { TaskOrigin, type TaskRecord } from '../core/task.js';
import { statusesExecutionNewsMayMove } from '../core/task-status.js';
import { taskKey } from '../core/task-key.js';
import { STATUS_IS_ACTIVE, statusIn } from './dynamodb-conditions.js';
import { taskChangeUpdate } from './task-change-update.js';
import type { TaskChange } from './task-store.js';

/** The names every conditional write on a task item uses: it exists, it is the same execution's, its status. */
const PINNED_NAMES = { '#pk': PARTITION_KEY, '#executionArn': A.executionArn, '#status': A.status };

/**
 * Records `change` on `task` if it still exists as read, has not expired at `now` and its status may move to the
 * change's. Returns the new item; on a lost condition, the item as it was.
 */
export function taskChangeCommand(tableName: string, task: TaskRecord, change: TaskChange, now: number): UpdateCommand {
  const { updateExpression, names, values } = taskChangeUpdate(task, change);
  // Execution news never takes a task out of input_required: only the answer path does (store/dynamodb-input-requests).
  const allowed = statusIn(statusesExecutionNewsMayMove(change.status), 'from');
  return new UpdateCommand({
    TableName: tableName,
    Key: { [PARTITION_KEY]: taskKey(task.owner, task.taskId) },
    UpdateExpression: updateExpression,
    ConditionExpression:
      `attribute_exists(#pk) AND #executionArn = :executionArn AND ` +
      `(attribute_not_exists(#ttl) OR #ttl > :nowSeconds) AND (attribute_not_exists(#expiresAtMs) OR ` +
      `#expiresAtMs > :nowMs) AND ${allowed.expression}`,
    ExpressionAttributeNames: { ...names, ...PINNED_NAMES, '#ttl': TTL_ATTRIBUTE, '#expiresAtMs': EXPIRY_MS_ATTRIBUTE },
    ExpressionAttributeValues: {
      ...values,
      ...allowed.values,
      ':executionArn': task.executionArn,
      ':nowSeconds': Math.floor(now / 1000),
      ':nowMs': now,
    },
    ReturnValues: 'ALL_NEW',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  });
}

/** What one SET on an active task writes, and what else it requires beyond the task being the one read and active. */
export interface ActiveTaskWrite {
  readonly set: string;
  readonly condition?: string;
  readonly names: Record<string, string>;
  readonly values: Record<string, unknown>;
}

/** The reconciler's claim of a due check: only if no other run moved the task's next check since it was read. */
export function checkClaim(task: TaskRecord, now: number, next: number): ActiveTaskWrite {
  return {
    set: `#${A.lastCheckedAt} = :now, #${A.nextCheckAt} = :next`,
    condition:
      task.nextCheckAt === undefined ? `attribute_not_exists(#${A.nextCheckAt})` : `#${A.nextCheckAt} = :dueAt`,
    names: { [`#${A.lastCheckedAt}`]: A.lastCheckedAt, [`#${A.nextCheckAt}`]: A.nextCheckAt },
    values: { ':now': now, ':next': next, ...(task.nextCheckAt === undefined ? {} : { ':dueAt': task.nextCheckAt }) },
  };
}

/** The step the task's workflow reports it is in. */
export function currentStepWrite(step: string): ActiveTaskWrite {
  return {
    set: `#${A.currentStep} = :step`,
    names: { [`#${A.currentStep}`]: A.currentStep },
    values: { ':step': step },
  };
}

/**
 * A plain call becoming an ordinary task: into the owner index (listed), which the item codec keeps plain calls out
 * of; only once, from a plain call.
 */
export function handOffWrite(task: TaskRecord): ActiveTaskWrite {
  return {
    set: `#origin = :handoff, #listOwner = :owner`,
    condition: '#origin = :direct',
    names: { '#origin': A.origin, '#listOwner': OWNER_INDEX_PARTITION_KEY },
    values: { ':handoff': TaskOrigin.Handoff, ':direct': TaskOrigin.Direct, ':owner': task.owner },
  };
}

/** `write` on the very task read (same execution) while it is active. */
export function activeTaskUpdate(tableName: string, task: TaskRecord, write: ActiveTaskWrite): UpdateCommand {
  return new UpdateCommand({
    TableName: tableName,
    Key: { [PARTITION_KEY]: taskKey(task.owner, task.taskId) },
    UpdateExpression: `SET ${write.set}`,
    ConditionExpression:
      `attribute_exists(#pk) AND #executionArn = :executionArn AND ${STATUS_IS_ACTIVE.expression}` +
      (write.condition === undefined ? '' : ` AND ${write.condition}`),
    ExpressionAttributeNames: { ...write.names, ...PINNED_NAMES },
    ExpressionAttributeValues: { ...write.values, ...STATUS_IS_ACTIVE.values, ':executionArn': task.executionArn },
  });
}
