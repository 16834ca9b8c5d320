// The task model: one record per task, whatever dialect created it. Pure: no AWS, no MCP.
import type { TaskProgress } from './task-progress.js';
import type { InputRequest } from './input-request.js';
import { isTerminal, TaskStatus } from './task-status.js';
import { textResult, toolResultFromExecutionOutput, type ToolResult } from './tool-result.js';

/**
 * Which clock a task's retention runs on: 2025-11-25 counts `ttl` from creation, SEP-1686 counts `keepAlive` from
 * completion.
 */
export const RetentionClock = { FromCreation: 'creation', FromCompletion: 'completion' } as const;
export type RetentionClock = (typeof RetentionClock)[keyof typeof RetentionClock];

export interface Retention {
  /** Milliseconds the task stays retrievable; `null` means until deleted. */
  readonly ms: number | null;
  readonly clock: RetentionClock;
}

/** How the caller asked for the task; decides the wire shape the task answers in. */
export const TaskOrigin = {
  /** `params.task` on tools/call (MCP 2025-11-25). */
  Mcp20251125: 'mcp-2025-11-25',
  /** `_meta["modelcontextprotocol.io/task"]` with a client-made task ID (SEP-1686). */
  Sep1686: 'sep-1686',
  /** A tools/call the server chose to run as a task for a client declaring the Tasks extension (MCP 2026-07-28). */
  TasksExtension: 'tasks-extension',
  /** A plain tools/call the server runs as a task internally; never listed. */
  Direct: 'direct',
  /**
   * A plain tools/call whose wait ended before its result: handed off to its caller as an ordinary task (listed,
   * retained, cancellable), which a client without tasks follows with the status tools.
   */
  Handoff: 'handoff',
} as const;
export type TaskOrigin = (typeof TaskOrigin)[keyof typeof TaskOrigin];

export interface TaskRecord {
  readonly taskId: string;
  /** The authenticated principal the task belongs to. */
  readonly owner: string;
  readonly toolName: string;
  readonly origin: TaskOrigin;
  readonly executionArn: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  /** When the reconciler last described the execution. */
  readonly lastCheckedAt?: number;
  /**
   * While the task is active: when the reconciler describes its execution next, should no status event have ended the
   * task by then (see {@link nextCheckAt}). Absent on a terminal task, and on tasks stored before it existed.
   */
  readonly nextCheckAt?: number;
  /** Set when the task reached a terminal status. */
  readonly completedAt?: number;
  readonly retention: Retention;
  readonly pollIntervalMs: number;
  /**
   * A completed task's raw execution output (JSON text, at most Step Functions' 256 KB). Stored once; the
   * tool result is derived from it by {@link toolResultOf}. List pages leave it out.
   */
  readonly output?: string;
  /** The completed task's output marks a tool-level error (`isError: true`). */
  readonly toolError?: boolean;
  /**
   * The JSON-RPC ID of the request that created the task, as JSON text (so `1` and `"1"` differ), for
   * SEP-1686 cancellation by `notifications/cancelled`.
   */
  readonly requestId?: string;
  /**
   * sha256 of the tool name and its input: tells a retry of the same call from a different call under the same task ID.
   */
  readonly inputDigest: string;
  /** What the workflow last reported with the progress step; shown as statusMessage while the task is active. */
  readonly progress?: TaskProgress;
  /**
   * The state the execution was last seen in (its history, read on a refresh); shown when the workflow reports no
   * progress.
   */
  readonly currentStep?: string;
  /** What the workflow asked the client for, by key: open and answered ones alike (see core/input-request). */
  readonly inputRequests?: Readonly<Record<string, InputRequest>>;
}

/**
 * A task as a listing shows it: what the store's owner index holds of each task (contract/task-table-schema.ts,
 * OWNER_INDEX_PROJECTED_ATTRIBUTES). A full read has the rest: the output, the input digest, the request ID and what
 * the workflow reported (progress, current step, input requests); a listing has none of them.
 */
export type TaskSummary = Pick<
  TaskRecord,
  | 'taskId'
  | 'owner'
  | 'toolName'
  | 'origin'
  | 'executionArn'
  | 'status'
  | 'statusMessage'
  | 'createdAt'
  | 'lastUpdatedAt'
  | 'lastCheckedAt'
  | 'completedAt'
  | 'retention'
  | 'pollIntervalMs'
  | 'toolError'
>;

/** Epoch ms after which the task is gone, or `null` if it has no end (yet). */
export function expiresAt(task: Pick<TaskRecord, 'retention' | 'createdAt' | 'completedAt'>): number | null {
  const { ms, clock } = task.retention;
  if (ms === null) return null;
  if (clock === RetentionClock.FromCreation) return task.createdAt + ms;
  return task.completedAt === undefined ? null : task.completedAt + ms;
}

/**
 * How long after creation the task expires, in ms: what MCP's `ttl`/`ttlMs` report. A task whose retention
 * counts from completion has none (`null`) until it completes; `null` also means kept until deleted.
 */
export function retentionFromCreationMs(
  task: Pick<TaskRecord, 'retention' | 'createdAt' | 'completedAt'>,
): number | null {
  if (task.retention.clock === RetentionClock.FromCreation) return task.retention.ms;
  const end = expiresAt(task);
  return end === null ? null : end - task.createdAt;
}

/** A task past its retention is treated as gone at once, whatever the storage's own sweeper has done. */
export function isExpired(task: Pick<TaskRecord, 'retention' | 'createdAt' | 'completedAt'>, now: number): boolean {
  const end = expiresAt(task);
  return end !== null && now >= end;
}

/**
 * How long after its creation a task's execution is first described by the reconciler. Its status events come within
 * seconds, so a task that ends sooner is never described at all.
 */
export const FIRST_CHECK_AFTER_MS = 60_000;
/** The longest pause between two reconciler checks of one execution. */
export const MAX_CHECK_INTERVAL_MS = 60 * 60_000;

/**
 * When the reconciler describes an active task's execution again after looking at it at `now`: half the task's age
 * later, from a minute to an hour. A task is then checked about ten times in its first hour and hourly after, so the
 * checks of many long tasks cost a bounded, shrinking share of Step Functions' throttle, and a lost status event is
 * still seen within half the time the task had run.
 */
export function nextCheckAt(task: Pick<TaskRecord, 'createdAt'>, now: number): number {
  const pause = Math.min(MAX_CHECK_INTERVAL_MS, Math.max(FIRST_CHECK_AFTER_MS, Math.ceil((now - task.createdAt) / 2)));
  return now + pause;
}

/** The longest poll interval hinted to a client: however long a task has run, its end is seen within half a minute. */
export const MAX_POLL_HINT_MS = 30_000;
/**
 * The shortest poll interval hinted to a client: a task created a moment ago (most fast tools end within a few hundred
 * milliseconds) is polled again this soon, so its result is not held back by the stored interval.
 */
export const MIN_POLL_HINT_MS = 100;
/**
 * A young task is hinted to be polled at half its age, so the hint doubles from {@link MIN_POLL_HINT_MS} to the stored
 * interval in a few polls: a fast tool's end is seen within half its run time, and a long task pays about seven polls
 * more than it would at the stored interval from the start.
 */
const YOUNG_POLL_HINT_AGE_DIVISOR = 2;
/**
 * Past its first moments, a task is hinted to be polled at this fraction of its age: a client that polls as hinted
 * makes about as many polls over a task's second hour as over its second minute, not thirty times as many.
 */
const POLL_HINT_AGE_DIVISOR = 20;

/**
 * The poll interval to hint to a client about an active task, growing with the task's age: half its age from
 * {@link MIN_POLL_HINT_MS} up to the stored interval (at the default 2 s, its first 4 s), then the stored interval (to
 * 40 s), then a twentieth of its age, at most {@link MAX_POLL_HINT_MS}. A client that sleeps the hint before each poll
 * (the SDKs' task streams do, and the 2026-07-28 client before its first) sees a fast tool's end at once, not seconds
 * later.
 */
export function pollHintMs(task: Pick<TaskRecord, 'status' | 'createdAt' | 'pollIntervalMs'>, now: number): number {
  if (isTerminal(task.status)) return task.pollIntervalMs;
  const age = now - task.createdAt;
  const young = Math.min(
    task.pollIntervalMs,
    Math.max(MIN_POLL_HINT_MS, Math.floor(age / YOUNG_POLL_HINT_AGE_DIVISOR)),
  );
  const grown = Math.min(Math.floor(age / POLL_HINT_AGE_DIVISOR), MAX_POLL_HINT_MS);
  return Math.max(young, grown);
}

/**
 * The first pause of a caller waiting for a task to finish (tasks/result, a plain tools/call): a fast tool's result
 * comes back at once.
 */
export const FIRST_WAIT_STEP_MS = 25;
/**
 * Each pause of such a wait is this much longer than the one before, up to the refresh interval, so Step Functions'
 * throttle sees few calls.
 */
export const WAIT_STEP_GROWTH = 1.5;

/** The pause after `step` in a wait for a terminal status: geometric growth, capped at `maxMs`. */
export function nextWaitStepMs(step: number, maxMs: number): number {
  return Math.min(Math.ceil(step * WAIT_STEP_GROWTH), Math.max(maxMs, FIRST_WAIT_STEP_MS));
}

/**
 * What the tool call returns for a terminal task: the tool's result for a completed one (needs `output`),
 * otherwise an error result carrying the status message. `undefined` while the task is active.
 */
export function toolResultOf(task: Pick<TaskRecord, 'status' | 'statusMessage' | 'output'>): ToolResult | undefined {
  if (!isTerminal(task.status)) return undefined;
  if (task.status === TaskStatus.Completed) return toolResultFromExecutionOutput(task.output);
  return textResult(task.statusMessage ?? `The task ended as ${task.status}.`, true);
}
