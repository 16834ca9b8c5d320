// The local stand-in for Step Functions' status events (EventBridge → the status-sync function in AWS), which the
// emulator does not send: the task table's stream (DynamoDB Local's, read by its own poller) names every unfinished
// task, and the execution of each is looked at every `intervalMs` and recorded as a status event would record it,
// until the task is finished or gone. Polls and waits read only the table, on the local stack as in AWS.
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { TASK_ATTRIBUTE as A } from '../lambda/contract/task-item-attributes.js';
import type { TaskRecord } from '../lambda/core/task.js';
import { isTerminal, type TaskStatus } from '../lambda/core/task-status.js';
import type { TaskService } from '../lambda/service/task-service.js';
import { startStreamPoller } from './dynamodb-stream-poller.js';
import { startExecutionStatusWatcher } from './execution-status-watcher.js';

export interface LocalStatusEventsOptions {
  readonly dynamoDb: DynamoDBClient;
  readonly dynamoDbEndpoint: string;
  readonly taskTableName: string;
  /** The status-sync function's use case: a task service on the same table (it needs no tools). */
  readonly service: Pick<TaskService, 'getTask' | 'recordExecutionEvent'>;
  /** @default 200 */
  readonly intervalMs?: number;
  /**
   * Where the emulator runs in this process: its news of each execution that ends (LocalInfrastructure's
   * onExecutionEnded), recorded at once, as EventBridge pushes it in AWS; the look every `intervalMs` stays for what
   * this does not see (an emulator in another process, a step's progress).
   */
  readonly executionEnded?: (listener: (executionArn: string) => void) => () => void;
  readonly onError?: (error: unknown) => void;
}

export interface LocalStatusEvents {
  stop(): Promise<void>;
}

/** How often an unfinished task's execution is looked at locally; in AWS its status events come at once. */
const EXECUTION_WATCH_INTERVAL_MS = 200;

/** The table's stream, which the table must have (TASK_TABLE declares it). */
export async function streamArnOf(dynamoDb: DynamoDBClient, tableName: string): Promise<string> {
  const { Table } = await dynamoDb.send(new DescribeTableCommand({ TableName: tableName }));
  const arn = Table?.LatestStreamArn;
  if (arn === undefined) throw new Error(`Table ${tableName} has no stream: create it from TASK_TABLE`);
  return arn;
}

/**
 * One look at the task's execution, recorded as a status event would record it (the execution as it is now and, while
 * it runs, its current step); the task as it then stands. Throws `TaskNotFoundError` or `TaskExpiredError` when the
 * task is gone.
 */
export function statusEventRecorder(
  service: LocalStatusEventsOptions['service'],
): (owner: string, taskId: string) => Promise<TaskRecord> {
  return async (owner, taskId) => {
    const task = await service.getTask(owner, taskId);
    if (isTerminal(task.status)) return task;
    return (await service.recordExecutionEvent(task.executionArn, 'describe')) ?? task;
  };
}

export async function startLocalStatusEvents(options: LocalStatusEventsOptions): Promise<LocalStatusEvents> {
  const watcher = startExecutionStatusWatcher({
    read: statusEventRecorder(options.service),
    intervalMs: options.intervalMs ?? EXECUTION_WATCH_INTERVAL_MS,
  });
  const poller = startStreamPoller({
    endpoint: options.dynamoDbEndpoint,
    streamArn: await streamArnOf(options.dynamoDb, options.taskTableName),
    handle: async (event) => {
      for (const record of event.Records) {
        const image = record.dynamodb?.NewImage;
        const status = image?.[A.status]?.S;
        const [owner, taskId] = [image?.[A.owner]?.S, image?.[A.taskId]?.S];
        if (owner && taskId && status && !isTerminal(status as TaskStatus)) watcher.watch(owner, taskId);
      }
      return { batchItemFailures: [] };
    },
    ...(options.onError ? { onError: options.onError } : {}),
  });
  const stopPush = options.executionEnded?.((executionArn) => {
    // Not this backend's execution (another machine's, an EXPRESS child): the record finds no task and does nothing.
    options.service.recordExecutionEvent(executionArn, 'describe').catch((error: unknown) => options.onError?.(error));
  });
  return {
    stop: async () => {
      stopPush?.();
      watcher.stop();
      await poller.stop();
    },
  };
}
