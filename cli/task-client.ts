// The one interface the commands speak: a task-capable MCP connection, whichever protocol generation the server
// speaks underneath. Two adapters fill it in (2025-11-25 tasks through the 1.x SDK, the 2026-07-28 Tasks
// extension through the 2.x client and ext-tasks); connect.ts picks one per server at connect time.

/** The task states both generations share. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** What a task looks like to the commands, whatever the wire shape. */
export interface TaskInfo {
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  readonly createdAt?: string;
  readonly lastUpdatedAt?: string;
  /** How long the server keeps the task after it ends, in ms; `null` for unlimited. */
  readonly ttl?: number | null;
  /** How often the server suggests polling, in ms. */
  readonly pollInterval?: number;
  /** How far the task has got, when the server says so in the task itself (not every server or protocol does). */
  readonly progress?: ProgressUpdate;
}

export interface ToolInfo {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  /**
   * Whether the tool may (`optional`), must (`required`) or cannot (`forbidden`) run as a task. The Tasks
   * extension declares nothing per tool (the server decides per call): its tools show as `optional`.
   */
  readonly taskSupport: 'forbidden' | 'optional' | 'required';
}

/** A tool result as MCP defines it (content blocks, maybe structured content, maybe an error flag). */
export interface ToolResult {
  readonly content?: readonly { readonly type: string; readonly text?: string; readonly [key: string]: unknown }[];
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: boolean;
  readonly [key: string]: unknown;
}

/** How a task ended: its result, the error it failed with, or nothing when it was cancelled. */
export type TaskOutcome =
  | { readonly status: 'completed'; readonly result: ToolResult }
  | { readonly status: 'failed'; readonly error: string; readonly result?: ToolResult }
  | { readonly status: 'cancelled' };

/** What a task-augmented call produced: a task to follow, or, when the server chose to answer at once, the result. */
export type Started =
  { readonly kind: 'task'; readonly task: TaskInfo } | { readonly kind: 'immediate'; readonly result: ToolResult };

/** One `notifications/progress` the server sent about a task. */
export interface ProgressUpdate {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

export interface StartOptions {
  /** Asks the server to keep the task this long after it ends (ms); the server may choose otherwise. */
  readonly ttlMs?: number;
  /** Called for each progress notification about the task, for as long as this connection lives. */
  readonly onProgress?: (update: ProgressUpdate) => void;
}

/**
 * A connection that can run tools as tasks. Every method MUST reject with `UnknownTaskError` when the server does
 * not know the task (never existed, expired, or someone else's) and MAY reject with `ServerError` otherwise.
 */
export interface TaskClient {
  /** The protocol spoken, for messages and `--json` output: `2025-11-25` or `2026-07-28+tasks`. */
  readonly protocol: string;
  listTools(): Promise<ToolInfo[]>;
  /**
   * Calls `name` as a task and resolves as soon as the server has created it (the call-now half). A server MAY
   * answer a task-augmented call at once instead (the Tasks extension lets it): then the result comes back.
   */
  startTask(name: string, args: Record<string, unknown>, options?: StartOptions): Promise<Started>;
  /** Calls a tool that cannot run as a task, and waits for its result. */
  callDirect(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  getTask(taskId: string): Promise<TaskInfo>;
  /** Waits until the task ends and says how (the fetch-later half). */
  outcome(taskId: string): Promise<TaskOutcome>;
  /** Every task the server lists for this caller, all pages. */
  listTasks(): Promise<TaskInfo[]>;
  /** Asks the server to cancel; resolves with the task as it stands afterwards. */
  cancelTask(taskId: string): Promise<TaskInfo>;
  close(): Promise<void>;
}

const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/** Whether a task has ended (its status can no longer change). */
export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL.has(status);
}
