// What the emulator keeps in a state file when the local stack is asked to keep state (LOCAL_STATE_DIR,
// docs/local-stack.md): its machines with their definitions and tags, and its STANDARD executions as they stood.
// Executions do not resume after a restart: the library's run of one cannot be picked up half-way. One that was
// running when the file was last written comes back FAILED with RESTARTED's error and cause (and an ExecutionFailed
// event closing its history), so the task it runs ends with that reason instead of waiting for an end that never comes.
import type { HistoryEvent } from './execution-history.js';
import { ExecutionHistory } from './execution-history.js';
import type { ExecutionStatus } from './execution-runner.js';
import type { Registry, StateMachineType } from './registry.js';

/** How an execution that was running when the emulator stopped ends, after a restart. */
export const RESTARTED = {
  error: 'Emulator.Restarted',
  cause: 'The local stack stopped while this execution ran; executions do not resume after a restart.',
} as const;

interface SavedMachine {
  readonly name: string;
  readonly definition: string;
  readonly roleArn: string;
  readonly type: StateMachineType;
  readonly creationDate: string;
  readonly tags: Record<string, string>;
}

type SavedEvent = Omit<HistoryEvent, 'timestamp'> & { readonly timestamp: string };

interface SavedExecution {
  readonly arn: string;
  readonly name: string;
  readonly machineArn: string;
  readonly input: string;
  readonly startDate: string;
  readonly status: ExecutionStatus;
  readonly stopDate?: string;
  readonly output?: string;
  readonly error?: string;
  readonly cause?: string;
  readonly history: SavedEvent[];
}

export interface SavedRegistry {
  readonly machines: SavedMachine[];
  readonly executions: SavedExecution[];
}

export function savedRegistry(registry: Registry): SavedRegistry {
  return {
    machines: registry.listStateMachines().map((machine) => ({
      name: machine.name,
      definition: machine.definition,
      roleArn: machine.roleArn,
      type: machine.type,
      creationDate: machine.creationDate.toISOString(),
      tags: Object.fromEntries(machine.tags),
    })),
    executions: registry.standardExecutions().map((execution) => ({
      arn: execution.arn,
      name: execution.name,
      machineArn: execution.machine.arn,
      input: execution.input,
      startDate: execution.startDate.toISOString(),
      status: execution.status,
      ...(execution.stopDate !== undefined ? { stopDate: execution.stopDate.toISOString() } : {}),
      ...(execution.output !== undefined ? { output: execution.output } : {}),
      ...(execution.error !== undefined ? { error: execution.error } : {}),
      ...(execution.cause !== undefined ? { cause: execution.cause } : {}),
      history: execution.history.events.map((event) => ({ ...event, timestamp: event.timestamp.toISOString() })),
    })),
  };
}

/** Puts `saved` back into an empty registry; an execution that was running ends as RESTARTED says, at `now`. */
export function restoreRegistry(registry: Registry, saved: SavedRegistry, now: Date = new Date()): void {
  for (const machine of saved.machines)
    registry.createStateMachine({
      ...machine,
      creationDate: new Date(machine.creationDate),
      tags: new Map(Object.entries(machine.tags)),
    });
  for (const execution of saved.executions) {
    const { machineArn, history: savedHistory, startDate, stopDate, ...kept } = execution;
    // An ended run records nothing more, so its history needs no role to describe a start with.
    const history = new ExecutionHistory('');
    const events = savedHistory.map((event) => ({ ...event, timestamp: new Date(event.timestamp) }));
    const interrupted = execution.status === 'RUNNING';
    if (interrupted)
      events.push({
        id: events.length + 1,
        previousEventId: events.length,
        timestamp: now,
        type: 'ExecutionFailed',
        detailsKey: 'executionFailedEventDetails',
        details: { ...RESTARTED },
      });
    history.restore(events);
    registry.restoreExecution(
      {
        ...kept,
        startDate: new Date(startDate),
        history,
        ...(interrupted
          ? { status: 'FAILED', stopDate: now, ...RESTARTED }
          : stopDate !== undefined
            ? { stopDate: new Date(stopDate) }
            : {}),
      },
      machineArn,
    );
  }
}
