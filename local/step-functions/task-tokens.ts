// Task tokens of `.waitForTaskToken` states: issued into `$$.Task.Token`, answered by
// SendTask{Success,Failure,Heartbeat}.
import { randomBytes } from 'node:crypto';
import { SfnApiError } from './api-error.js';
import type { JsonValue } from './lambda-invoke.js';
import { stateError } from './lambda-invoke.js';

/**
 * setTimeout keeps at most 2^31-1 ms (about 24.8 days); a longer delay fires after 1 ms instead. Every wait the
 * emulator arms, and every TimeoutSeconds it hands to the library, is clamped to this.
 */
export const MAX_TIMER_SECONDS = 2_147_483;

/** How long after TimeoutSeconds the emulator fails a wait itself if the library has not (it always should). */
const TIMEOUT_FALLBACK_MS = 5_000;

export interface WaitLimits {
  /** HeartbeatSeconds: the wait fails with States.HeartbeatTimeout unless answered or heartbeated within it. */
  readonly heartbeatSeconds?: number;
  /** TimeoutSeconds: when the library's own Task timeout fails the state, the token closes with it. */
  readonly timeoutSeconds?: number;
}

interface OpenTask {
  readonly executionArn: string;
  readonly limits: WaitLimits;
  resolve(output: JsonValue): void;
  reject(error: Error): void;
  heartbeatTimer?: NodeJS.Timeout;
  timeoutTimer?: NodeJS.Timeout;
}

/** What AWS answers for a token it issued whose task has closed (answered, timed out, failed or stopped). */
function closed(): SfnApiError {
  return new SfnApiError('TaskTimedOut', 'Task Timed Out: Provided task does not exist anymore');
}

export class TaskTokens {
  /**
   * Issued tokens: the waiting task while it is open, `null` once it has closed. Kept so a late answer is told apart.
   */
  private readonly tokens = new Map<string, OpenTask | null>();
  /** A token minted by `$$.Task.Token` in Parameters, not yet claimed by the Task state's handler. */
  private minted: { readonly token: string; readonly executionArn: string } | undefined;

  /**
   * The `Task` member of an execution's context object. The library evaluates Parameters against the context and
   * then calls the Task state's local handler in the same synchronous step, so a token minted on read here is the
   * one that handler claims next; a token nobody claims in that step is forgotten.
   */
  contextFor(executionArn: string): { readonly Token: string } {
    const mint = (): string => {
      if (this.minted?.executionArn === executionArn) return this.minted.token; // read twice in one Parameters
      const token = randomBytes(96).toString('base64');
      this.minted = { token, executionArn };
      queueMicrotask(() => {
        if (this.minted?.token === token) this.minted = undefined;
      });
      return token;
    };
    return Object.defineProperty({}, 'Token', { get: mint, enumerable: true }) as { readonly Token: string };
  }

  /**
   * Opens the wait of one Task state attempt with the token its Parameters received (a fresh one if they did not
   * ask for it) and returns the token with a promise of the task's result.
   */
  open(executionArn: string, limits: WaitLimits): { token: string; result: Promise<JsonValue> } {
    const token = this.minted?.executionArn === executionArn ? this.minted.token : randomBytes(96).toString('base64');
    this.minted = undefined;
    let resolve!: (output: JsonValue) => void;
    let reject!: (error: Error) => void;
    const result = new Promise<JsonValue>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const task: OpenTask = { executionArn, limits, resolve, reject };
    this.tokens.set(token, task);
    this.armHeartbeat(token, task);
    if (limits.timeoutSeconds !== undefined) {
      // Armed just before the library arms its own timer of the same length (right after it calls the handler), so
      // this closes the token, and the library's timer, at most a millisecond later, fails the state with its own
      // States.Timeout (which, unlike an error made here, States.TaskFailed does not match). The rejection is only a
      // fallback should the library's timer never come; unref'd, it cannot hold the process open.
      task.timeoutTimer = setTimeout(() => {
        this.close(token);
        setTimeout(() => reject(stateError('States.Timeout', 'Task timed out', true)), TIMEOUT_FALLBACK_MS).unref();
      }, limits.timeoutSeconds * 1000);
    }
    return { token, result };
  }

  succeed(token: string, output: string): void {
    const task = this.openTask(token);
    let parsed: JsonValue;
    try {
      parsed = JSON.parse(output) as JsonValue;
    } catch (error) {
      throw new SfnApiError('InvalidOutput', `Invalid Output: '${(error as Error).message}'`);
    }
    this.close(token);
    task.resolve(parsed);
  }

  /** The state fails with `error` / `cause`, so its Retry and Catch apply as to any task error. */
  fail(token: string, error?: string, cause?: string): void {
    const task = this.openTask(token);
    this.close(token);
    task.reject(stateError(error ?? '', cause ?? '', true));
  }

  heartbeat(token: string): void {
    this.armHeartbeat(token, this.openTask(token));
  }

  /** Fails an open wait from the emulator's side (the invoked function threw); a closed one is left alone. */
  abandon(token: string, error: Error): void {
    const task = this.tokens.get(token);
    if (!task) return;
    this.close(token);
    task.reject(error);
  }

  /** Closes every open token of an execution that has ended or been stopped; later answers get TaskTimedOut. */
  closeExecution(executionArn: string): void {
    for (const [token, task] of this.tokens) {
      if (task?.executionArn === executionArn) this.close(token);
    }
  }

  private openTask(token: string): OpenTask {
    const task = this.tokens.get(token);
    if (task === undefined) throw new SfnApiError('InvalidToken', 'Invalid Token: Provided task token is invalid');
    if (task === null) throw closed();
    return task;
  }

  private armHeartbeat(token: string, task: OpenTask): void {
    if (task.limits.heartbeatSeconds === undefined) return;
    clearTimeout(task.heartbeatTimer);
    task.heartbeatTimer = setTimeout(() => {
      this.close(token);
      task.reject(stateError('States.HeartbeatTimeout', 'Task did not send a heartbeat in time', true));
    }, task.limits.heartbeatSeconds * 1000);
  }

  private close(token: string): void {
    const task = this.tokens.get(token);
    if (!task) return;
    clearTimeout(task.heartbeatTimer);
    clearTimeout(task.timeoutTimer);
    this.tokens.set(token, null);
  }
}
