// ExpirySweepStore over the task table: a query per shard of the sparse active-expiry index, and two conditional
// updates. Apart from DynamoDbTaskStore because its writes deliberately touch expired tasks, which that store's
// writes refuse (to a client an expired task is gone).
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ACTIVE_STATUSES, type TaskStatus } from '../core/task-status.js';
import { taskKey } from '../core/task-key.js';
import type { ExpiredTask, ExpirySweepStore } from './expiry-sweep-store.js';
import {
  ACTIVE_EXPIRY_INDEX,
  ACTIVE_EXPIRY_PARTITION_KEY,
  EXPIRY_MS_ATTRIBUTE,
  PARTITION_KEY,
  TTL_ATTRIBUTE,
} from '../contract/task-table-schema.js';
import { activeExpiryShards } from './task-table-keys.js';

export interface DynamoDbExpirySweepStoreOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
}

/** Until when a sweep holds a task; absent, or in the past, when no sweep does. */
const CLAIM_ATTRIBUTE = 'sweepClaimedUntil';

type Item = Record<string, unknown>;

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
    let startKey: Item | undefined;
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
      found.push(...(page.Items ?? []).map(fromIndexItem));
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined && found.length < limit);
    return found;
  }

  async claim(task: ExpiredTask, now: number, until: number): Promise<boolean> {
    return this.conditionally({
      task,
      update: `SET #claim = :until`,
      condition: `(attribute_not_exists(#claim) OR #claim <= :now) AND #expiresAtMs <= :now`,
      names: { '#claim': CLAIM_ATTRIBUTE, '#expiresAtMs': EXPIRY_MS_ATTRIBUTE },
      values: { ':until': until, ':now': now },
    });
  }

  async finish(task: ExpiredTask, change: { status: TaskStatus; statusMessage: string; at: number }): Promise<boolean> {
    // The TTL comes back from the grace an active task gets (ACTIVE_EXPIRY_TTL_GRACE_MS) to the task's end: nothing is
    // left to stop, so DynamoDB may delete the item as it would any expired task.
    return this.conditionally({
      task,
      update:
        'SET #status = :status, statusMessage = :statusMessage, completedAt = :at, lastUpdatedAt = :at, #ttl = :ttl ' +
        'REMOVE #shard, #claim',
      condition: 'attribute_exists(#shard)',
      names: { '#shard': ACTIVE_EXPIRY_PARTITION_KEY, '#claim': CLAIM_ATTRIBUTE, '#ttl': TTL_ATTRIBUTE },
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
  private async conditionally(write: {
    task: ExpiredTask;
    update: string;
    condition: string;
    names: Record<string, string>;
    values: Item;
  }): Promise<boolean> {
    const active = Object.fromEntries(ACTIVE_STATUSES.map((status, index) => [`:active${index}`, status]));
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: taskKey(write.task.owner, write.task.taskId) },
          UpdateExpression: write.update,
          // executionArn pins the very task found: a task created anew under the same ID is another task.
          ConditionExpression:
            'attribute_exists(#pk) AND executionArn = :executionArn AND ' +
            `#status IN (${Object.keys(active).join(', ')}) AND ${write.condition}`,
          ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#status': 'status', ...write.names },
          ExpressionAttributeValues: { ':executionArn': write.task.executionArn, ...active, ...write.values },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}

function fromIndexItem(item: Item): ExpiredTask {
  return {
    owner: item['owner'] as string,
    taskId: item['taskId'] as string,
    toolName: item['toolName'] as string,
    executionArn: item['executionArn'] as string,
    status: item['status'] as TaskStatus,
    ...(typeof item['requestId'] === 'string' ? { requestId: item['requestId'] } : {}),
    expiredAt: item[EXPIRY_MS_ATTRIBUTE] as number,
  };
}
