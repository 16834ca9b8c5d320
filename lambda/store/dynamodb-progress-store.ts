// ProgressStore over the task table: one conditional UpdateItem per report on the task item itself, so a report
// costs no read, lands only on the live task of its own execution, and never takes the progress back.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TASK_ATTRIBUTE as A } from '../contract/task-item-attributes.js';
import { EXPIRY_MS_ATTRIBUTE, PARTITION_KEY } from '../contract/task-table-schema.js';
import { SYSTEM_CLOCK, type Clock } from '../core/clock.js';
import type { TaskProgress } from '../core/task-progress.js';
import { STATUS_IS_ACTIVE } from './dynamodb-conditions.js';
import type { ProgressReport, ProgressStore } from './progress-store.js';
import { progressFromItem } from './task-item-codec.js';

export interface DynamoDbProgressStoreOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  /** @default SYSTEM_CLOCK */
  readonly clock?: Pick<Clock, 'now'>;
}

export class DynamoDbProgressStore implements ProgressStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly clock: Pick<Clock, 'now'>;

  constructor(options: DynamoDbProgressStoreOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.clock = options.clock ?? SYSTEM_CLOCK;
  }

  async record(key: string, executionArn: string, report: ProgressReport): Promise<TaskProgress | null> {
    const names: Record<string, string> = {
      '#pk': PARTITION_KEY,
      '#status': A.status,
      '#executionArn': A.executionArn,
      '#lastUpdatedAt': A.lastUpdatedAt,
      '#expiresAtMs': EXPIRY_MS_ATTRIBUTE,
      '#message': A.progressMessage,
      '#count': A.progressCount,
      '#total': A.progressTotal,
      '#at': A.progressAt,
      '#deadline': A.progressDeadline,
    };
    const values: Record<string, unknown> = {
      ':executionArn': executionArn,
      ':nowMs': this.clock.now(),
      ':at': report.at,
      ...STATUS_IS_ACTIVE.values,
    };
    // lastUpdatedAt moves with the progress: it is news to anyone watching the task (tasks/get, subscriptions).
    const sets = ['#at = :at', '#lastUpdatedAt = :nowMs'];
    const adds: string[] = [];
    const conditions = [
      'attribute_exists(#pk)',
      // The task of this very execution: a task created anew under a reused ID has another one.
      '#executionArn = :executionArn',
      STATUS_IS_ACTIVE.expression,
      '(attribute_not_exists(#expiresAtMs) OR #expiresAtMs > :nowMs)',
    ];
    if (report.message !== undefined) {
      sets.push('#message = :message');
      values[':message'] = report.message;
    }
    if (report.total !== undefined) {
      sets.push('#total = :total');
      values[':total'] = report.total;
    }
    if (report.deadline !== undefined) {
      sets.push('#deadline = :deadline');
      values[':deadline'] = report.deadline;
    }
    if (report.increment !== undefined) {
      // Concurrent reporters each add their share; the order they land in does not matter.
      adds.push('#count :increment');
      values[':increment'] = report.increment;
    } else if (report.progress !== undefined) {
      sets.push('#count = :count');
      values[':count'] = report.progress;
      conditions.push(
        '(attribute_not_exists(#count) OR #count < :count OR (#count = :count AND ' +
          '(attribute_not_exists(#at) OR #at <= :at)))',
      );
    } else {
      conditions.push('(attribute_not_exists(#at) OR #at <= :at)');
    }
    // DynamoDB refuses attribute names that the expressions do not use.
    for (const name of Object.keys(names))
      if (!`${sets.join(' ')} ${adds.join(' ')} ${conditions.join(' ')}`.includes(name)) delete names[name];
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: key },
          UpdateExpression: `SET ${sets.join(', ')}${adds.length > 0 ? ` ADD ${adds.join(', ')}` : ''}`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes === undefined ? null : (progressFromItem(Attributes) ?? null);
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return null;
      throw error;
    }
  }
}
