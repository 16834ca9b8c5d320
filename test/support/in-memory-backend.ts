// The task service on in-memory parts, for unit tests: in-memory store, quotas and input requests, an executor the
// test drives by hand, two small tools, and a logger that keeps what it is told. Every part reads the time through
// SYSTEM_CLOCK, so vi.useFakeTimers() moves all of them at once and no test waits on the real clock.
import { afterEach, beforeEach, vi } from 'vitest';
import { SYSTEM_CLOCK } from '../../lambda/core/clock.js';
import type { Logger } from '../../lambda/core/logger.js';
import type { TaskMetrics } from '../../lambda/core/task-metrics.js';
import type { InputRequestMessage } from '../../lambda/core/input-request.js';
import { TaskOrigin, type TaskRecord } from '../../lambda/core/task.js';
import { executionNameOf, taskKeyFromExecutionName } from '../../lambda/core/task-key.js';
import type { ToolDefinition } from '../../lambda/contract/tool-definition.js';
import { InMemoryExecutor, type InMemoryExecutorOptions } from '../../lambda/executor/in-memory-executor.js';
import { createMcpHttpApp, type McpHttpApp, type McpHttpAppOptions } from '../../lambda/protocol/http-app.js';
import type { SyncExecutor } from '../../lambda/executor/sync-executor.js';
import type { TaskExecutor } from '../../lambda/executor/task-executor.js';
import { InputService } from '../../lambda/service/input-service.js';
import type { AuditRecord } from '../../lambda/service/audit.js';
import { DEFAULT_SETTINGS, type TaskServiceSettings } from '../../lambda/service/settings.js';
import type { CreateTaskRequest } from '../../lambda/service/task-creation.js';
import { TaskService } from '../../lambda/service/task-service.js';
import type { PlainOutcome } from '../../lambda/service/direct-calls.js';
import type { ToolResult } from '../../lambda/core/tool-result.js';
import { InMemoryInputRequests } from '../../lambda/store/in-memory-input-requests.js';
import { InMemoryOwnerQuotas } from '../../lambda/store/in-memory-owner-quotas.js';
import { InMemoryTaskStore } from '../../lambda/store/in-memory-task-store.js';
import type { InputRequestStore } from '../../lambda/store/input-request-store.js';
import type { OwnerQuotas } from '../../lambda/store/owner-quotas.js';
import type { TaskStore } from '../../lambda/store/task-store.js';
import { ToolRegistry } from '../../lambda/tools/tool-registry.js';

const machine = (name: string): string => `arn:aws:states:us-east-1:123456789012:stateMachine:${name}`;

/**
 * Three tools shaped like the examples: a quick one and a slow one, each on its own (pretend) state machine, and an
 * EXPRESS one, whose plain calls run its EXPRESS machine synchronously and whose tasks run its STANDARD wrapper.
 */
export const TEST_TOOLS: readonly ToolDefinition[] = [
  {
    name: 'text_stats',
    description: 'Counts the words of a text.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
      additionalProperties: false,
    },
    stateMachineArn: machine('text-stats'),
  },
  {
    name: 'analyze_documents',
    description: 'Analyses documents, then waits out a review window.',
    inputSchema: {
      type: 'object',
      properties: {
        documents: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 },
        reviewSeconds: { type: 'integer', minimum: 0 },
      },
      required: ['documents'],
      additionalProperties: false,
    },
    stateMachineArn: machine('analyze-documents'),
  },
  {
    name: 'extract_keywords',
    description: 'Picks the keywords of a text.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', minLength: 1 } },
      required: ['text'],
      additionalProperties: false,
    },
    stateMachineArn: machine('extract-keywords-wrapper'),
    expressStateMachineArn: machine('extract-keywords'),
  },
];

/** A log record as the recording logger keeps it. */
export interface LogRecord {
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
  readonly extra: Record<string, unknown>;
}

/** A Logger that keeps every record, so a test can read the audit trail and the warnings. */
export class RecordingLogger implements Logger {
  readonly records: LogRecord[] = [];

  info(message: string, extra: Record<string, unknown>): void {
    this.records.push({ level: 'info', message, extra });
  }

  warn(message: string, extra: Record<string, unknown>): void {
    this.records.push({ level: 'warn', message, extra });
  }

  error(message: string, extra: Record<string, unknown>): void {
    this.records.push({ level: 'error', message, extra });
  }

  /** The audit records (`audit` messages), in order. */
  audits(): AuditRecord[] {
    return this.records
      .filter((record) => record.message === 'audit')
      .map((record) => record.extra['audit'] as AuditRecord);
  }

  /** The messages of the warnings, in order. */
  warnings(): string[] {
    return this.records.filter((record) => record.level === 'warn').map((record) => record.message);
  }
}

/** Parts that a test may swap for one service (a wrapped store that fails, another executor, other settings). */
export interface ServiceParts {
  readonly store?: TaskStore;
  readonly quotas?: OwnerQuotas;
  readonly executor?: TaskExecutor;
  /** @default the in-memory executor */
  readonly syncExecutor?: SyncExecutor;
  readonly settings?: Partial<TaskServiceSettings>;
  readonly logger?: Logger;
  readonly metrics?: TaskMetrics;
}

export interface InMemoryBackend {
  readonly store: InMemoryTaskStore;
  readonly quotas: InMemoryOwnerQuotas;
  readonly inputs: InMemoryInputRequests;
  readonly executor: InMemoryExecutor;
  readonly tools: ToolRegistry;
  readonly logger: RecordingLogger;
  readonly settings: TaskServiceSettings;
  /** A task service on these parts (a new one per call: separate Lambda instances sharing the same storage). */
  service(parts?: ServiceParts): TaskService;
  /**
   * What EventBridge and the status-sync function do when the task's execution changes: records the execution as it
   * is now on the task (a poll reads only the table).
   */
  statusEvent(task: Pick<TaskRecord, 'executionArn'>): Promise<TaskRecord | null>;
  /** An input service over `service` (default: a fresh one on these parts). */
  inputService(parts?: {
    service?: TaskService;
    inputs?: InputRequestStore;
    executor?: TaskExecutor;
    metrics?: TaskMetrics;
  }): InputService;
  /** The MCP HTTP app on a fresh service and input service of these parts; `options` adds to them or replaces them. */
  httpApp(options?: Partial<McpHttpAppOptions>): McpHttpApp;
}

/** One registry for every backend: it holds nothing but compiled schemas, and compiling them is the slow part. */
let registry: ToolRegistry | undefined;

/** Builds the parts; `settings` are applied over DEFAULT_SETTINGS. */
export function inMemoryBackend(
  options: { settings?: Partial<TaskServiceSettings>; executor?: InMemoryExecutorOptions } = {},
): InMemoryBackend {
  const store = new InMemoryTaskStore({ clock: SYSTEM_CLOCK });
  const quotas = new InMemoryOwnerQuotas({ tasks: store });
  const inputs = new InMemoryInputRequests(store);
  const executor = new InMemoryExecutor(options.executor);
  const tools = (registry ??= new ToolRegistry(TEST_TOOLS));
  const logger = new RecordingLogger();
  const settings: TaskServiceSettings = { ...DEFAULT_SETTINGS, ...options.settings };
  const service = (parts: ServiceParts = {}): TaskService =>
    new TaskService({
      store: parts.store ?? store,
      quotas: parts.quotas ?? quotas,
      executor: parts.executor ?? executor,
      syncExecutor: parts.syncExecutor ?? executor,
      tools,
      settings: { ...settings, ...parts.settings },
      logger: parts.logger ?? logger,
      ...(parts.metrics !== undefined ? { metrics: parts.metrics } : {}),
      clock: SYSTEM_CLOCK,
    });
  const inputService: InMemoryBackend['inputService'] = (parts = {}) =>
    new InputService({
      service: parts.service ?? service(),
      inputs: parts.inputs ?? inputs,
      executor: parts.executor ?? executor,
      logger,
      ...(parts.metrics !== undefined ? { metrics: parts.metrics } : {}),
      clock: SYSTEM_CLOCK,
    });
  const statusEvent = (task: Pick<TaskRecord, 'executionArn'>) =>
    service().recordExecutionEvent(task.executionArn, 'describe');
  const httpApp = (options: Partial<McpHttpAppOptions> = {}): McpHttpApp =>
    createMcpHttpApp({ service: service(), inputs: inputService(), tools, settings, logger, ...options });
  return { store, quotas, inputs, executor, tools, logger, settings, service, statusEvent, inputService, httpApp };
}

/** The fake clock's start: half-way through a clock minute, so the per-minute limit's window is not at its edge. */
export const T0 = Date.UTC(2026, 0, 1, 12, 0, 30);

/** Registers hooks that put every test of the file on fake timers starting at `start`, and back on real ones after. */
export function useFakeTime(start = T0): void {
  beforeEach(() => {
    vi.useFakeTimers({ now: start });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}

/** A call of the slow tool as a 2025-11-25 task. */
export function analyze(owner: string, extra: Partial<CreateTaskRequest> = {}): CreateTaskRequest {
  return {
    owner,
    toolName: 'analyze_documents',
    arguments: { documents: ['one two three'], reviewSeconds: 60 },
    origin: TaskOrigin.Mcp20251125,
    ...extra,
  };
}

/** A call of the quick tool as a 2025-11-25 task. */
export function textStats(owner: string, text = 'a b c', extra: Partial<CreateTaskRequest> = {}): CreateTaskRequest {
  return { owner, toolName: 'text_stats', arguments: { text }, origin: TaskOrigin.Mcp20251125, ...extra };
}

/** Documents the tools' schemas allow whose JSON is over Step Functions' 256 KiB input limit. */
export function hugeDocuments(): string[] {
  return Array.from({ length: 4 }, () => 'x'.repeat(80_000));
}

/** The tool result of a plain call that ended with one; throws for a call handed off as a task. */
export function plainResult(outcome: PlainOutcome): ToolResult {
  if (outcome.kind !== 'result') throw new Error(`expected a result, got a ${outcome.kind}`);
  return outcome.result;
}

/**
 * Moves fake time on in `stepMs` steps until `promise` settles, at most `withinMs`, and returns its outcome. Fails the
 * test when it is still pending then (a wait that never ends), instead of hanging.
 */
export async function settle<T>(promise: Promise<T>, withinMs = 60 * 60_000, stepMs = 100): Promise<T> {
  let done = false;
  const tracked = promise.finally(() => {
    done = true;
  });
  tracked.catch(() => undefined);
  await vi.advanceTimersByTimeAsync(0);
  for (let waited = 0; !done && waited < withinMs; waited += stepMs) await vi.advanceTimersByTimeAsync(stepMs);
  if (!done) throw new Error(`Still pending after ${withinMs} ms of fake time`);
  return tracked;
}

/** The task's execution as the in-memory executor holds it. */
export function executionOf(backend: InMemoryBackend, task: Pick<TaskRecord, 'executionArn'>) {
  return backend.executor.execution(task.executionArn);
}

/** The newest execution started (a plain call's, whose task the caller never sees). */
export function lastExecution(backend: InMemoryBackend) {
  const executions = backend.executor.executions();
  const last = executions[executions.length - 1];
  if (last === undefined) throw new Error('No execution was started');
  return last;
}

/** An elicitation form asking for `approve` (a boolean) and, optionally, an `amount` of at most 10. */
export function approvalForm(message = 'Refund?'): InputRequestMessage {
  return {
    method: 'elicitation/create',
    params: {
      message,
      requestedSchema: {
        type: 'object',
        properties: { approve: { type: 'boolean' }, amount: { type: 'number', maximum: 10 } },
        required: ['approve'],
      },
    },
  };
}

/**
 * What an ask step does: the execution waits on a new task token and the question is recorded on its task under
 * `key`. Returns the token.
 */
export async function ask(
  backend: InMemoryBackend,
  executionArn: string,
  key: string,
  request: InputRequestMessage = approvalForm(),
  deadlineAt?: number,
): Promise<string> {
  const taskToken = backend.executor.waitForToken(executionArn);
  const taskKey = taskKeyFromExecutionName(executionNameOf(executionArn));
  const recorded =
    taskKey !== null &&
    (await backend.inputs.record(taskKey, executionArn, {
      key,
      request,
      taskToken,
      askedAt: Date.now(),
      ...(deadlineAt !== undefined ? { deadlineAt } : {}),
    }));
  if (!recorded) throw new Error(`No live task of execution ${executionArn} to record ${key} on`);
  return taskToken;
}
