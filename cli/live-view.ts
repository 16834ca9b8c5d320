// Follows one task until it ends. On a terminal: an ora spinner line (status, status message, progress bar,
// elapsed time) on stderr, and Ctrl-C asks whether to cancel the task or leave it running. Elsewhere: one plain
// line per change, and an interrupt leaves the task running. Where the task's next state comes from is a
// `TaskUpdates` source: polling tasks/get at the server's suggested interval (here), or the server's event stream
// (event-watch.ts). The count for the bar comes from progress notifications, when the server sends them (through
// `progress()`), or from the task itself, when it carries one.
import { isCancel, select } from '@clack/prompts';
import ora, { type Ora } from 'ora';
import { ServerError } from './cli-errors.js';
import { askForm } from './input-form.js';
import { renderLiveLine } from './render.js';
import { isTerminal, type InputRequest, type ProgressUpdate, type TaskClient, type TaskInfo } from './task-client.js';

const DEFAULT_POLL_MS = 1_000;
/** Never poll faster than this, whatever the server suggests: a terminal view needs no more. */
const MIN_POLL_MS = 250;

/** The next state of the task, and, when the source has words of its own for it, the plain line that tells it. */
export interface TaskUpdate {
  readonly task: TaskInfo;
  readonly line?: string;
}

/** Where the live view gets the task's next state from. */
export interface TaskUpdates {
  /** Resolves with the next state; the view asks again only after the last answer. */
  next(): Promise<TaskUpdate>;
  /**
   * The source tells the task's story from its start, a line with each update: the view does not print the state it
   * starts from.
   */
  readonly replaysHistory?: boolean;
  /** Stops: the view is done with the source. */
  close(): void;
}

/** Polls tasks/get at the interval the server suggests (the last task it answered with says which). */
export function pollingUpdates(client: TaskClient, taskId: string, initial: TaskInfo): TaskUpdates {
  let pollInterval = initial.pollInterval;
  return {
    async next() {
      await sleep(Math.max(MIN_POLL_MS, pollInterval ?? DEFAULT_POLL_MS));
      const task = await client.getTask(taskId);
      pollInterval = task.pollInterval ?? pollInterval;
      return { task };
    },
    close() {},
  };
}

/** How watching ended: the task ended (with its last state), or the user left it running. */
export type WatchEnd =
  { readonly kind: 'ended'; readonly task: TaskInfo } | { readonly kind: 'left-running'; readonly task: TaskInfo };

export interface LiveViewOptions {
  /** Draw the live line and prompt on Ctrl-C (stdout and stdin are terminals), or print plain lines. */
  readonly interactive: boolean;
  /** Print nothing while waiting (`--json`). */
  readonly quiet: boolean;
}

export class LiveView {
  private latest: TaskInfo | undefined;
  private progressUpdate: ProgressUpdate | undefined;
  private readonly startedAt = Date.now();
  private spinner: Ora | undefined;
  private lastPlainLine = '';
  /** The input requests answered from this view (by key). */
  private readonly answered = new Set<string>();
  private toldOfInput = false;

  constructor(
    private readonly client: TaskClient,
    private readonly options: LiveViewOptions,
  ) {}

  /** A progress notification about the watched task. */
  progress(update: ProgressUpdate): void {
    this.progressUpdate = update;
    this.redraw();
  }

  /**
   * Follows `taskId` until it ends or, after Ctrl-C, until the user chooses to leave it running. `source` makes the
   * updates from the task as first seen; polling tasks/get when not given.
   */
  async watch(
    taskId: string,
    initial?: TaskInfo,
    source: (first: TaskInfo) => TaskUpdates = (first) => pollingUpdates(this.client, taskId, first),
  ): Promise<WatchEnd> {
    let task = this.see(initial ?? (await this.client.getTask(taskId)));
    if (isTerminal(task.status)) return { kind: 'ended', task };
    const updates = source(task);
    const interrupted = this.interruptSignal();
    this.startSpinner();
    const ticker = this.spinner ? setInterval(() => this.redraw(), 1_000) : undefined;
    // Asked once and kept across a Ctrl-C prompt: an event stream's next update must not be asked for twice.
    let pending: Promise<TaskUpdate> | undefined;
    // A task that waits for input: what the person chose while answering (leave it, or cancel it) ends or changes the
    // watch; otherwise it goes on.
    const attend = async (): Promise<WatchEnd | undefined> => {
      const choice = await this.attendToInput(taskId, task);
      if (choice === 'leave') return { kind: 'left-running', task };
      if (choice === 'cancel') {
        task = this.see(await this.client.cancelTask(taskId));
        if (!isTerminal(task.status)) this.redraw();
      }
      return undefined;
    };
    try {
      if (!updates.replaysHistory) this.redraw();
      const left = await attend();
      if (left) return left;
      for (;;) {
        pending ??= updates.next();
        const woken = await Promise.race([pending, interrupted.next]);
        if (woken === 'interrupt') {
          const choice = await this.askOnInterrupt(taskId);
          if (choice === 'leave') return { kind: 'left-running', task };
          task = this.see(await this.client.cancelTask(taskId));
          interrupted.rearm();
          if (!isTerminal(task.status)) this.redraw();
        } else {
          pending = undefined;
          task = this.see(woken.task);
          // The closing state goes unprinted (the outcome's headline says it), unless the source tells it in a line.
          if (woken.line !== undefined || !isTerminal(task.status)) this.redraw(woken.line);
          const leftWaiting = await attend();
          if (leftWaiting) return leftWaiting;
        }
        if (isTerminal(task.status)) return { kind: 'ended', task };
      }
    } finally {
      updates.close();
      if (ticker) clearInterval(ticker);
      this.spinner?.stop();
      interrupted.dispose();
    }
  }

  /** A note for the person watching (a reconnection, a fallback to polling), above the live line. */
  note(text: string): void {
    if (this.options.quiet) return;
    if (this.spinner?.isSpinning) {
      this.spinner.clear();
      process.stderr.write(`${text}\n`);
      this.spinner.render();
    } else process.stderr.write(`${text}\n`);
  }

  /**
   * The task as last seen: its status and message, and its count when the task itself carries one (the Tasks extension
   * has no progress notifications).
   */
  private see(task: TaskInfo): TaskInfo {
    this.latest = task;
    if (task.progress !== undefined) this.progressUpdate = task.progress;
    return task;
  }

  private startSpinner(): void {
    if (!this.options.interactive || this.options.quiet) return;
    // stdin stays in cooked mode, so Ctrl-C reaches us as a plain SIGINT. (ora's discardStdin puts it in raw mode
    // and re-raises Ctrl-C from a 'data' listener, but never starts stdin flowing, so Ctrl-C went unseen.)
    this.spinner = ora({ text: this.line(), stream: process.stderr, discardStdin: false }).start();
  }

  private line(): string {
    return renderLiveLine({
      status: this.latest?.status ?? 'working',
      ...(this.latest?.statusMessage !== undefined ? { statusMessage: this.latest.statusMessage } : {}),
      ...(this.progressUpdate ? { progress: this.progressUpdate } : {}),
      elapsedMs: Date.now() - this.startedAt,
    });
  }

  /** Redraws the live line; in plain mode prints `line` when the update came with one, else a line per change. */
  private redraw(line?: string): void {
    if (this.options.quiet) return;
    if (this.spinner) {
      if (this.spinner.isSpinning) this.spinner.text = this.line();
      return;
    }
    // Plain mode: one line per change of status, message or progress; elapsed time alone is no change.
    const { status, statusMessage } = this.latest ?? { status: 'working' };
    const update = this.progressUpdate;
    const progress = update ? ` (${update.progress}${update.total !== undefined ? `/${update.total}` : ''})` : '';
    const plain = `${status}${statusMessage ? `: ${statusMessage}` : ''}${progress}`;
    if (line !== undefined) process.stderr.write(`${line}\n`);
    else if (plain !== this.lastPlainLine) process.stderr.write(`${plain}\n`);
    this.lastPlainLine = plain;
  }

  /**
   * A task waiting for input: at a terminal, on a protocol that carries its questions, each form not yet answered is
   * asked and its answer sent; anywhere else, the person is told once what the task waits for and how to go on.
   * Returns what the person chose instead of answering, if anything.
   */
  private async attendToInput(taskId: string, seen: TaskInfo): Promise<'leave' | 'cancel' | undefined> {
    if (seen.status !== 'input_required') return undefined;
    const canAsk = this.spinner !== undefined && this.client.answerInput !== undefined;
    if (!canAsk && this.toldOfInput) return undefined;
    // An event carries the task's status, not its questions, and a replayed one may be long past: read the task.
    const task = seen.inputRequests === undefined ? await this.client.getTask(taskId) : seen;
    if (task.status !== 'input_required') return undefined;
    if (!canAsk || task.inputRequests === undefined || task.inputRequests.length === 0) {
      // Where asking was possible, none of the questions was a form.
      if (!this.toldOfInput) this.note(waitingForInput(taskId, canAsk));
      this.toldOfInput = true;
      return undefined;
    }
    const open = task.inputRequests.filter((request) => !this.answered.has(request.key));
    if (open.length === 0 || !this.spinner) return undefined;
    this.spinner.stop();
    try {
      for (const request of open) {
        const choice = await this.answer(taskId, request);
        if (choice !== undefined) return choice;
      }
      return undefined;
    } finally {
      this.spinner.start(this.line());
    }
  }

  /**
   * Asks one form until the server takes the answer, or the question is gone (answered elsewhere, the task moved on);
   * a dismissed form asks what to do instead.
   */
  private async answer(taskId: string, request: InputRequest): Promise<'leave' | 'cancel' | undefined> {
    for (;;) {
      let answer = await askForm(request);
      if (answer === 'dismissed') {
        const choice = await this.askOnDismissedForm(taskId);
        if (choice !== 'decline') return choice;
        answer = { action: 'decline' };
      }
      try {
        await this.client.answerInput!(taskId, { [request.key]: answer });
        this.answered.add(request.key);
        return undefined;
      } catch (error) {
        // A refused answer (one the form's schema does not allow, say) leaves the question open: the server says why.
        if (!(error instanceof ServerError)) throw error;
        process.stderr.write(`${error.message}\n`);
      }
      const now = await this.client.getTask(taskId);
      if (now.status !== 'input_required' || !now.inputRequests?.some(({ key }) => key === request.key))
        return undefined;
    }
  }

  /** Ctrl-C or Esc in a form: decline the question, leave the task waiting, or cancel it. A second Ctrl-C leaves it. */
  private async askOnDismissedForm(taskId: string): Promise<'decline' | 'leave' | 'cancel'> {
    const choice = await select({
      message: `Task ${taskId} waits for your answer. What should happen?`,
      options: [
        { value: 'decline' as const, label: 'Decline to answer', hint: 'the workflow is told you declined' },
        { value: 'leave' as const, label: 'Leave it waiting', hint: `answer later: mcp-tasks watch ${taskId}` },
        { value: 'cancel' as const, label: 'Cancel the task' },
      ],
      output: process.stderr,
    });
    return isCancel(choice) ? 'leave' : choice;
  }

  /** Stops the live line and asks; a second Ctrl-C at the prompt means "leave it running", the safe choice. */
  private async askOnInterrupt(taskId: string): Promise<'cancel' | 'leave'> {
    if (!this.spinner) return 'leave';
    this.spinner.stop();
    const choice = await select({
      message: `Task ${taskId} is still ${this.latest?.status ?? 'working'}. What should happen to it?`,
      options: [
        { value: 'leave' as const, label: 'Leave it running', hint: 'fetch the result later' },
        { value: 'cancel' as const, label: 'Cancel the task' },
      ],
      output: process.stderr,
    });
    const decided = isCancel(choice) ? 'leave' : choice;
    if (decided === 'cancel') this.spinner.start(this.line());
    return decided;
  }

  /** SIGINT as a promise the watch loop can race against its poll timer. */
  private interruptSignal(): { next: Promise<'interrupt'>; rearm(): void; dispose(): void } {
    let resolve: (value: 'interrupt') => void = () => {};
    const handler = () => resolve('interrupt');
    const state = {
      next: new Promise<'interrupt'>((done) => (resolve = done)),
      rearm: () => {
        state.next = new Promise<'interrupt'>((done) => (resolve = done));
      },
      dispose: () => process.off('SIGINT', handler),
    };
    process.on('SIGINT', handler);
    return state;
  }
}

/** What a person who cannot be asked here is told: why, and how to go on. */
function waitingForInput(taskId: string, noForms: boolean): string {
  const why = noForms
    ? 'none of its questions is a form this CLI can ask'
    : 'this CLI asks its questions only at a terminal, on the Tasks extension (2026-07-28)';
  const there = noForms ? '' : `run mcp-tasks watch ${taskId} there, `;
  return (
    `Task ${taskId} waits for input, and ${why}: ${there}answer it from an MCP client that can, ` +
    `or cancel it: mcp-tasks cancel ${taskId}`
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
