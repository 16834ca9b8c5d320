// Tunable limits of the task service, with their defaults in one place.

export interface TaskServiceSettings {
  /** The poll interval suggested to clients. */
  readonly pollIntervalMs: number;
  /** Retention when the client asks for none. */
  readonly defaultTtlMs: number;
  /** The most retention a client may ask for. */
  readonly maxTtlMs: number;
  /** The least retention a task gets, whatever the client asks for (a task must live long enough to be polled). */
  readonly minTtlMs: number;
  /**
   * How long a plain (non-task) tools/call waits for its result; then the call is handed off as a task (see
   * {@link handOffPlainCalls}). Also how long the task_result status tool waits.
   */
  readonly directCallTimeoutMs: number;
  /**
   * When a plain call's wait ends first: true answers a handle to the task, whose execution goes on (a client without
   * tasks follows it with the status tools); false stops the execution and answers a tool error.
   */
  readonly handOffPlainCalls: boolean;
  /** How long a blocking tasks/result may wait within one request. */
  readonly resultWaitMs: number;
  /** How long after creation a missing execution is taken for Step Functions' eventual consistency, not a failure. */
  readonly startGraceMs: number;
  readonly listPageSize: number;
  /**
   * The most active tasks (submitted, working, input_required) one owner may have at once, plain calls included;
   * at most MAX_ACTIVE_TASKS_LIMIT (contract/active-tasks-limit.ts: the owner's active tasks are tracked in one
   * DynamoDB item).
   */
  readonly maxActiveTasksPerOwner: number;
  /** The most tasks one owner may create per clock minute, plain calls included. */
  readonly maxTaskCreationsPerMinute: number;
}

export const DEFAULT_SETTINGS: TaskServiceSettings = {
  pollIntervalMs: 2_000,
  defaultTtlMs: 24 * 60 * 60 * 1000,
  maxTtlMs: 7 * 24 * 60 * 60 * 1000,
  minTtlMs: 1_000,
  directCallTimeoutMs: 25_000,
  handOffPlainCalls: true,
  resultWaitMs: 14 * 60 * 1000,
  startGraceMs: 30_000,
  listPageSize: 20,
  maxActiveTasksPerOwner: 100,
  maxTaskCreationsPerMinute: 60,
};
