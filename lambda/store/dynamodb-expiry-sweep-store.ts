// ExpirySweepStore over the task table: a query per shard of the sparse active-expiry index, and two conditional
// updates. Apart from DynamoDbTaskStore because its writes deliberately touch expired tasks, which that store's
// writes refuse (to a client an expired task is gone).
import { QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TASK_ATTRIBUTE as A } from '../contract/task-item-attributes.js';
import type { TaskStatus } from '../core/task-status.js';
import { taskKey } from '../core/task-key.js';
import type { ExpiredTask, ExpirySweepStore } from './expiry-sweep-store.js';
import {
  ACTIVE_EXPIRY_INDEX,
  ACTIVE_EXPIRY_PARTITION_KEY,
  CHECK_DUE_PARTITION_KEY,
  EXPIRY_MS_ATTRIBUTE,
  PARTITION_KEY,
  TTL_ATTRIBUTE,
} from '../contract/task-table-schema.js';
import { STATUS_IS_ACTIVE, updateIfAllowed } from './dynamodb-conditions.js';
import { expiredTaskFromItem } from './task-item-codec.js';
import { activeExpiryShards } from './task-table-keys.js';

export interface DynamoDbExpirySweepStoreOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
}

export class DynamoDbExpirySweepStore implements ExpirySweepStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(options: DynamoDbExpirySweepStoreOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
  }

  async findExpiredActive(now: number, limit: number): Promise<ExpiredTask[]> {
    // Each shard's oldest `limit`, merged: the oldest `limit` overall, whichever shards they sit in.
    const perShard = await Promise.all(activeExpiryShards().map((shard) => this.expiredIn(shard, now, limit)));
    return perShard
      .flat()
      .sort((a, b) => a.expiredAt - b.expiredAt)
      .slice(0, limit);
  }

  private async expiredIn(shard: string, now: number, limit: number): Promise<ExpiredTask[]> {
    const found: ExpiredTask[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: ACTIVE_EXPIRY_INDEX,
          KeyConditionExpression: '#shard = :shard AND #expiresAtMs <= :now',
          ExpressionAttributeNames: { '#shard': ACTIVE_EXPIRY_PARTITION_KEY, '#expiresAtMs': EXPIRY_MS_ATTRIBUTE },
          ExpressionAttributeValues: { ':shard': shard, ':now': now },
          Limit: limit - found.length,
          ExclusiveStartKey: startKey,
        }),
      );
      found.push(...(page.Items ?? []).map(expiredTaskFromItem));
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined && found.length < limit);
    return found;
  }

  async claim(task: ExpiredTask, now: number, until: number): Promise<boolean> {
    return this.conditionally({
      task,
      update: `SET #claim = :until`,
      condition: `(attribute_not_exists(#claim) OR #claim <= :now) AND #expiresAtMs <= :now`,
      names: { '#claim': A.sweepClaimedUntil, '#expiresAtMs': EXPIRY_MS_ATTRIBUTE },
      values: { ':until': until, ':now': now },
    });
  }

  async finish(task: ExpiredTask, change: { status: TaskStatus; statusMessage: string; at: number }): Promise<boolean> {
    // The TTL comes back from the grace an active task gets (ACTIVE_EXPIRY_TTL_GRACE_MS) to the task's end: nothing is
    // left to stop, so DynamoDB may delete the item as it would any expired task.
    return this.conditionally({
      task,
      update:
        'SET #status = :status, #statusMessage = :statusMessage, #completedAt = :at, #lastUpdatedAt = :at, ' +
        '#ttl = :ttl REMOVE #shard, #claim, #checkShard, #nextCheckAt',
      condition: 'attribute_exists(#shard)',
      names: {
        '#statusMessage': A.statusMessage,
        '#completedAt': A.completedAt,
        '#lastUpdatedAt': A.lastUpdatedAt,
        '#shard': ACTIVE_EXPIRY_PARTITION_KEY,
        '#claim': A.sweepClaimedUntil,
        '#ttl': TTL_ATTRIBUTE,
        '#checkShard': CHECK_DUE_PARTITION_KEY,
        '#nextCheckAt': A.nextCheckAt,
      },
      values: {
        ':status': change.status,
        ':statusMessage': change.statusMessage,
        ':at': change.at,
        ':ttl': Math.ceil(task.expiredAt / 1000),
      },
    });
  }

  /**
   * An update of `task`'s item on the condition that it is still the same active task, and `condition`; false when not.
   */
  private conditionally(write: {
    task: ExpiredTask;
    update: string;
    condition: string;
    names: Record<string, string>;
    values: Record<string, unknown>;
  }): Promise<boolean> {
    return updateIfAllowed(
      this.client,
      new UpdateCommand({
        TableName: this.tableName,
        Key: { [PARTITION_KEY]: taskKey(write.task.owner, write.task.taskId) },
        UpdateExpression: write.update,
        // executionArn pins the very task found: a task created anew under the same ID is another task.
        ConditionExpression:
          `attribute_exists(#pk) AND #executionArn = :executionArn AND ${STATUS_IS_ACTIVE.expression} AND ` +
          write.condition,
        ExpressionAttributeNames: {
          '#pk': PARTITION_KEY,
          '#executionArn': A.executionArn,
          '#status': A.status,
          ...write.names,
        },
        ExpressionAttributeValues: {
          ':executionArn': write.task.executionArn,
          ...STATUS_IS_ACTIVE.values,
          ...write.values,
        },
      }),
    );
  }
}
