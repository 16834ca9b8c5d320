// Task records written straight into the bench's table through the project's own store: many tasks for one owner
// (to show that a tasks/list page costs the same however many there are), and a stored task's execution ARN.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { RetentionClock, TaskOrigin, type TaskRecord } from '../lambda/core/task.js';
import { TaskStatus } from '../lambda/core/task-status.js';
import { DynamoDbTaskStore } from '../lambda/store/dynamodb-task-store.js';

const storeOf = (client: DynamoDBClient, tableName: string) =>
  new DynamoDbTaskStore({
    client: DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }),
    tableName,
  });

export async function storedTask(
  client: DynamoDBClient,
  tableName: string,
  owner: string,
  taskId: string,
): Promise<TaskRecord> {
  const task = await storeOf(client, tableName).get(owner, taskId);
  if (task === null) throw new Error(`no task ${taskId}`);
  return task;
}

/** `count` finished tasks of `owner`, all older than any task the bench makes, written 50 at a time. */
export async function seedTasks(
  client: DynamoDBClient,
  tableName: string,
  owner: string,
  count: number,
): Promise<void> {
  const store = storeOf(client, tableName);
  const oldest = Date.now() - 3_600_000 - count;
  const seed = (index: number): TaskRecord => ({
    taskId: `seed-${index}`,
    owner,
    toolName: 'text_stats',
    origin: TaskOrigin.Mcp20251125,
    executionArn: `arn:aws:states:us-east-1:000000000000:execution:seed:seed-${index}`,
    status: TaskStatus.Completed,
    createdAt: oldest + index,
    lastUpdatedAt: oldest + index,
    completedAt: oldest + index,
    retention: { ms: 7 * 86_400_000, clock: RetentionClock.FromCreation },
    pollIntervalMs: 2_000,
    inputDigest: 'seed',
  });
  for (let start = 0; start < count; start += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - start) }, (_, offset) => store.create(seed(start + offset))),
    );
  }
}
