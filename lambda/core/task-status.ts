// The task status model: the statuses, which are terminal or active, and which moves between them are legal.

export const TaskStatus = {
  /** Accepted; the execution is not yet known to be running (SEP-1686 shows it, 2025-11-25 shows `working`). */
  Submitted: 'submitted',
  Working: 'working',
  InputRequired: 'input_required',
  Completed: 'completed',
  Failed: 'failed',
  Cancelled: 'cancelled',
  /** Terminal fallback when the execution's state cannot be determined (2025-11-25 shows `failed`). */
  Unknown: 'unknown',
} as const;
export type TaskStatus = (typeof TaskStatus)[keyof typeof TaskStatus];

export const TERMINAL_STATUSES: readonly TaskStatus[] = [
  TaskStatus.Completed,
  TaskStatus.Failed,
  TaskStatus.Cancelled,
  TaskStatus.Unknown,
];
export const ACTIVE_STATUSES: readonly TaskStatus[] = [
  TaskStatus.Submitted,
  TaskStatus.Working,
  TaskStatus.InputRequired,
];

export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

const LEGAL_TRANSITIONS: Readonly<Record<TaskStatus, readonly TaskStatus[]>> = {
  submitted: ['working', 'input_required', 'completed', 'failed', 'cancelled', 'unknown'],
  working: ['input_required', 'completed', 'failed', 'cancelled', 'unknown'],
  input_required: ['working', 'completed', 'failed', 'cancelled', 'unknown'],
  completed: [],
  failed: [],
  cancelled: [],
  unknown: [],
};

/** Whether a task may move from `from` to `to`. Terminal statuses never change again. */
export function canTransition(from: TaskStatus, to: TaskStatus): boolean {
  return LEGAL_TRANSITIONS[from].includes(to);
}

/** The statuses a task may be in for a move to `to` to be legal: the condition of a conditional write. */
export function statusesThatMayBecome(to: TaskStatus): TaskStatus[] {
  return (Object.keys(LEGAL_TRANSITIONS) as TaskStatus[]).filter((from) => canTransition(from, to));
}

/**
 * The statuses an execution's news (a status event, a refresh) may move to `to` from. Only the answer path leaves
 * `input_required` (when no request is open any more, with its own conditional write): a RUNNING execution says
 * nothing about whether the client still owes an answer, so it must not flip `input_required` back to `working`.
 */
export function statusesExecutionNewsMayMove(to: TaskStatus): TaskStatus[] {
  const from = statusesThatMayBecome(to);
  return to === TaskStatus.Working ? from.filter((status) => status !== TaskStatus.InputRequired) : from;
}
