// Answers to input requests: checks each answer, then resumes the waiting execution with it, crash-safely.
//
// Order per request: claim (a conditional store write: `delivering`) -> SendTaskSuccess -> settle (`answered`).
// - Never two SendTaskSuccess for one key: only the claim holder sends, and the claim is atomic. A claim whose holder
//   died lapses after DELIVERY_LEASE_MS; the next holder's send can then only repeat one that already landed, which
//   Step Functions refuses (the token is spent), and that is recorded as settled.
// - Never an acknowledged answer that was not delivered: the client's tasks/update is acknowledged only after
//   SendTaskSuccess succeeded (or Step Functions said it waits no more); when the send fails the claim is released,
//   the request stays open and the client gets a retryable error.
import { randomUUID } from 'node:crypto';
import { InputDeliveryError, InvalidInputResponseError } from '../core/errors.js';
import { isOpen, type InputRequest } from '../core/input-request.js';
import { type TaskRecord } from '../core/task.js';
import { isTerminal } from '../core/task-status.js';
import type { TaskExecutor } from '../executor/task-executor.js';
import { SYSTEM_CLOCK, type Clock } from '../core/clock.js';
import { NO_TASK_METRICS, type TaskMetrics } from '../core/task-metrics.js';
import type { Logger } from '../core/logger.js';
import type { TaskService } from './task-service.js';
import type { InputRequestStore } from '../store/input-request-store.js';
import { answerProblems } from '../input/answer-validation.js';

/** Pauses while another caller delivers the same answer (a duplicate arriving at once): about 3 s in all. */
const BUSY_BACKOFF_MS = [50, 100, 200, 400, 800, 1_600] as const;

export interface InputServiceOptions {
  readonly service: TaskService;
  readonly inputs: InputRequestStore;
  readonly executor: TaskExecutor;
  readonly logger: Logger;
  /** Where each delivered answer's wait is recorded (TaskMetrics.inputAnswered). @default NO_TASK_METRICS */
  readonly metrics?: TaskMetrics;
  /** @default SYSTEM_CLOCK */
  readonly clock?: Clock;
}

export class InputService {
  private readonly service: TaskService;
  private readonly inputs: InputRequestStore;
  private readonly executor: TaskExecutor;
  private readonly logger: Logger;
  private readonly metrics: TaskMetrics;
  private readonly clock: Clock;

  constructor(options: InputServiceOptions) {
    this.service = options.service;
    this.inputs = options.inputs;
    this.executor = options.executor;
    this.logger = options.logger;
    this.metrics = options.metrics ?? NO_TASK_METRICS;
    this.clock = options.clock ?? SYSTEM_CLOCK;
  }

  /**
   * Delivers the owner's answers to the task's open input requests, by key. Answers to unknown, answered or no
   * longer awaited keys are ignored, as are all answers to a finished task. Every answer to an open request is checked
   * first: one that does not fit its request throws `InvalidInputResponseError` and none is delivered. An answer that
   * could not be delivered throws `InputDeliveryError` after the others were tried; its request stays open.
   * Throws `TaskNotFoundError` / `TaskExpiredError` for a task the owner cannot see.
   */
  async answer(owner: string, taskId: string, responses: Readonly<Record<string, unknown>>): Promise<void> {
    const task = await this.service.getTask(owner, taskId);
    if (isTerminal(task.status)) return;
    const open = Object.entries(responses)
      .map(([key, response]) => ({ key, response, request: task.inputRequests?.[key] }))
      .filter(
        (entry): entry is { key: string; response: unknown; request: InputRequest } =>
          entry.request !== undefined && isOpen(entry.request),
      );
    for (const { key, response, request } of open) {
      const problems = await answerProblems(request.request, response);
      if (problems.length > 0) throw new InvalidInputResponseError(taskId, key, problems);
    }
    let failure: InputDeliveryError | undefined;
    for (const { key, response } of open) {
      try {
        await this.deliver(task, key, response);
      } catch (error) {
        this.logger.warn('Could not deliver an input response', { taskId, key, error: String(error) });
        failure ??= new InputDeliveryError(taskId, key, { cause: error });
      }
    }
    if (failure !== undefined) throw failure;
  }

  /**
   * Delivers a client's JSON-RPC error in place of an answer (a 2025-era client that cannot answer, e.g. one without
   * the elicitation or sampling capability, answers -32601): the waiting state receives `{ error: { code, message } }`
   * and can branch on it, instead of waiting out its deadline for an answer that will not come. Ignored like
   * {@link answer} for unknown, answered or finished requests; throws `InputDeliveryError` when it could not be sent.
   */
  async refuse(
    owner: string,
    taskId: string,
    key: string,
    error: { readonly code: number; readonly message: string },
  ): Promise<void> {
    const task = await this.service.getTask(owner, taskId);
    const request = task.inputRequests?.[key];
    if (isTerminal(task.status) || request === undefined || !isOpen(request)) return;
    try {
      await this.deliver(task, key, { error: { code: error.code, message: error.message } });
    } catch (cause) {
      this.logger.warn('Could not deliver a client error for an input request', { taskId, key, error: String(cause) });
      throw new InputDeliveryError(taskId, key, { cause });
    }
  }

  private async deliver(task: TaskRecord, key: string, response: unknown): Promise<void> {
    const claimId = randomUUID();
    for (let attempt = 0; ; attempt++) {
      const claim = await this.inputs.claim(task, key, claimId, this.clock.now());
      if (claim.kind === 'unknown' || claim.kind === 'settled') return; // a late or duplicate answer: ignored
      if (claim.kind === 'busy') {
        // The same answer (most likely) is being delivered by another request right now; wait for its outcome.
        if (attempt >= BUSY_BACKOFF_MS.length)
          throw new Error(`input request ${key} is being answered by another request`);
        await this.clock.sleep(BUSY_BACKOFF_MS[attempt]!);
        continue;
      }
      let sent: 'delivered' | 'gone';
      try {
        sent = await this.executor.resume(task.executionArn, claim.taskToken, JSON.stringify(response));
      } catch (error) {
        // Perhaps delivered, perhaps not: releasing lets a retry send again, which the engine refuses if the first
        // landed.
        await this.inputs.release(task, key, claimId).catch(() => undefined);
        throw error;
      }
      const settledAt = this.clock.now();
      await this.inputs.settle(task, key, claimId, sent === 'delivered' ? 'answered' : 'expired', settledAt);
      const askedAt = task.inputRequests?.[key]?.askedAt;
      if (sent === 'delivered' && askedAt !== undefined) this.metrics.inputAnswered(task.toolName, settledAt - askedAt);
      return;
    }
  }
}
