// The contract of the task event log's storage: events appended in the order a task's changes were written, numbered
// 1, 2, 3, … per task, read back after a position. DynamoDB implements it (dynamodb-task-event-store.ts); so does
// memory (in-memory-task-event-store.ts); test/contract/task-event-store-contract.ts holds both to it.
import type { NewTaskEvent, TaskEvent } from '../core/task-event.js';

export interface TaskEventStore {
  /**
   * Appends the event one change of a task made, numbered one past the task's newest. `source` is the change's
   * position in the table's change stream (a string of digits that grows with each change of the task): a change
   * appended before (a redelivered stream record) is not appended again, and its event comes back as it was stored.
   */
  append(event: NewTaskEvent, source: string): Promise<TaskEvent>;
  /**
   * Up to `limit` of the task's events numbered after `afterSeq`, oldest first. A task of another owner, an unknown
   * task and a task with no events all read as none.
   */
  readAfter(owner: string, taskId: string, afterSeq: number, limit: number): Promise<TaskEvent[]>;
  /** The number of the task's newest event; 0 when it has none. */
  lastSeq(owner: string, taskId: string): Promise<number>;
}
