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
  /**
   * The forms among the questions the task waits on, whenever it waits and the protocol carries them in the task (the
   * Tasks extension does); absent when the protocol does not say.
   */
  readonly inputRequests?: readonly InputRequest[];
}

/** A form the task's workflow asks a person to fill in (an MCP elicitation), open until answered. */
export interface InputRequest {
  /** The key its answer goes back under. */
  readonly key: string;
  readonly message: string;
  /** MCP elicitation's restricted JSON Schema: an object of flat properties. */
  readonly requestedSchema: {
    readonly properties?: Readonly<Record<string, FormField>>;
    readonly required?: readonly string[];
  };
}

/** One property of an elicitation form (MCP's primitive schema definitions). */
export interface FormField {
  readonly type?: string;
  readonly title?: string;
  readonly description?: string;
  readonly enum?: readonly string[];
  /** Labels for `enum`'s values, in order (the legacy titled enum). */
  readonly enumNames?: readonly string[];
  /** A titled enum: one `{ const, title }` per choice. */
  readonly oneOf?: readonly { readonly const?: unknown; readonly title?: string }[];
  readonly anyOf?: readonly { readonly const?: unknown; readonly title?: string }[];
  /** A multi-select's choices (`type: "array"`). */
  readonly items?: FormField;
  readonly minItems?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  /** A string's format, of those an elicitation schema may name: email, uri, date, date-time. */
  readonly format?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly default?: string | number | boolean | readonly string[];
}

/** An answer to one input request, as MCP's ElicitResult. */
export type InputAnswer =
  | { readonly action: 'accept'; readonly content: Readonly<Record<string, string | number | boolean | string[]>> }
  | { readonly action: 'decline' | 'cancel' };

export interface ToolInfo {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  /**
   * Whether the tool may (`optional`), must (`required`) or cannot (`forbidden`) run as a task, as tools/list
   * gives it. In 2025-11-25 an absent `execution.taskSupport` means `forbidden`, as the spec says; the Tasks
   * extension's tools/list declares nothing per tool (the server decides at each call), so there it is absent.
   */
  readonly taskSupport?: 'forbidden' | 'optional' | 'required';
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
  /** Sends answers to the task's input requests, by key; absent when the protocol gives this client no way to. */
  answerInput?(taskId: string, answers: Readonly<Record<string, InputAnswer>>): Promise<void>;
  /**
   * The server's events (the MCP Events extension), when it advertises them; `undefined` for a server without them,
   * which is followed by polling.
   */
  readonly events?: TaskEvents;
  close(): Promise<void>;
}

/** What a watcher sees of a task right after a change, as the Events extension's `task.events` carries it. */
export interface TaskEventSnapshot {
  readonly taskId: string;
  readonly toolName: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  readonly progress?: { readonly progress?: number; readonly total?: number };
  readonly currentStep?: string;
  /** Keys of the input requests still waiting for an answer. */
  readonly openInputRequests?: readonly string[];
}

/** One event of a task's log (`notifications/events/event` params): the change, numbered, with the task after it. */
export interface TaskEventOccurrence {
  /** `evt_<taskId>_<seq>`. */
  readonly eventId: string;
  readonly name: string;
  /** When the change happened (ISO 8601). */
  readonly timestamp: string;
  readonly data: {
    readonly taskId: string;
    /** The position in the task's log: 1, 2, 3, … */
    readonly seq: number;
    /** What changed: `status`, `statusMessage`, `progress`, `currentStep`, `inputRequests`. */
    readonly changes: readonly string[];
    readonly task: TaskEventSnapshot;
  };
  /** Where to resume after this event (the seq as a decimal string). */
  readonly cursor: string | null;
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** What following a task's events produces: its events in order, and word of what the connection went through. */
export type FollowItem =
  | { readonly kind: 'event'; readonly occurrence: TaskEventOccurrence }
  /** The connection dropped; the follower reconnects from `cursor` (attempt 1, 2, … of the tries it makes). */
  | { readonly kind: 'reconnecting'; readonly cursor: string; readonly attempt: number; readonly reason: string }
  /** The server no longer holds the log from the cursor asked for: events before its oldest are gone. */
  | { readonly kind: 'truncated'; readonly cursor: string };

export interface FollowOptions {
  /** Where to start: `"0"` (the default) for the whole log, or the cursor of the last event already seen. */
  readonly cursor?: string;
  readonly signal?: AbortSignal;
  /**
   * Asked when the server ends a stream without a terminal event (its own time limit, or a log that lacks the end):
   * true when the task has ended, and the follower stops; false, and it reconnects.
   */
  isEnded(): Promise<boolean>;
}

/** A webhook subscription request (`events/subscribe` with webhook delivery). */
export interface WebhookSubscribeRequest {
  /** The event type: `tasks.updated` (every task of yours) or `task.events` (one task's log). */
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** Where the server POSTs deliveries. */
  readonly url: string;
  /** The Standard Webhooks secret (`whsec_…`) the server signs every delivery with. */
  readonly secret: string;
  /**
   * For `task.events`: the position to replay after, `"0"` for the task's whole log. Absent starts from now, so a
   * receiver misses what the task did before the subscription was made.
   */
  readonly cursor?: string;
  /** How long the subscription lives unless renewed, in ms; the server clamps it and defaults to 24 h. */
  readonly ttlMs?: number;
}

/** The server's answer to `events/subscribe`. */
export interface WebhookSubscriptionInfo {
  readonly id: string;
  /** When the subscription lapses unless renewed by subscribing again (ISO 8601). */
  readonly refreshBefore: string;
  readonly [key: string]: unknown;
}

/** The Events extension: a task's sequenced event stream, and webhook subscriptions. */
export interface TaskEvents {
  /**
   * Follows `taskId`'s events until a terminal one, resuming after a dropped connection from the last cursor seen
   * (each event once, in order). Rejects with `UnknownTaskError` for a task the server does not know, and with
   * `EventStreamUnavailableError` when the stream cannot be had or resumed (the caller then polls).
   */
  follow(taskId: string, options: FollowOptions): AsyncIterable<FollowItem>;
  subscribe(request: WebhookSubscribeRequest): Promise<WebhookSubscriptionInfo>;
}

const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/** Whether a task has ended (its status can no longer change). */
export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL.has(status);
}
