// An execution's history as GetExecutionHistory answers it: the library's event logs, recorded as they arrive and
// translated to the AWS event types (TaskStateEntered, WaitStateExited, ExecutionSucceeded, ...).
import type { StateMachine } from 'aws-local-stepfunctions';

// The library does not export its event type; it is what a run's eventLogs generator yields.
export type EventLog = ReturnType<StateMachine['run']>['eventLogs'] extends AsyncGenerator<infer E> ? E : never;

/** One event, in AWS's shape, with its details held raw so the input and output can be left out on request. */
export interface HistoryEvent {
  readonly id: number;
  readonly previousEventId: number;
  readonly timestamp: Date;
  readonly type: string;
  /** The member holding the details (e.g. `stateEnteredEventDetails`) and the details themselves. */
  readonly detailsKey?: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

const json = (value: unknown): string => JSON.stringify(value ?? null);

/**
 * The AWS event for a library event, or `null` for one AWS has no counterpart of (retries, catches, parallel branches).
 */
function translate(event: EventLog, roleArn: string): Pick<HistoryEvent, 'type' | 'detailsKey' | 'details'> | null {
  switch (event.type) {
    case 'ExecutionStarted':
      return {
        type: 'ExecutionStarted',
        detailsKey: 'executionStartedEventDetails',
        details: { input: json(event.input), roleArn },
      };
    case 'ExecutionSucceeded':
      return {
        type: 'ExecutionSucceeded',
        detailsKey: 'executionSucceededEventDetails',
        details: { output: json(event.output) },
      };
    case 'ExecutionFailed':
      return {
        type: 'ExecutionFailed',
        detailsKey: 'executionFailedEventDetails',
        details: { error: event.Error, cause: String(event.Cause) },
      };
    case 'ExecutionAborted':
      return { type: 'ExecutionAborted', detailsKey: 'executionAbortedEventDetails', details: {} };
    case 'ExecutionTimeout':
      return { type: 'ExecutionTimedOut', detailsKey: 'executionTimedOutEventDetails', details: {} };
    case 'StateEntered':
      // AWS names state events after the state's type: a Wait state is entered with WaitStateEntered, and so on.
      return {
        type: `${event.state.type}StateEntered`,
        detailsKey: 'stateEnteredEventDetails',
        details: { name: event.state.name, input: json(event.state.input) },
      };
    case 'StateExited':
      return {
        type: `${event.state.type}StateExited`,
        detailsKey: 'stateExitedEventDetails',
        details: { name: event.state.name, output: json(event.state.output) },
      };
    case 'MapIterationStarted':
    case 'MapIterationSucceeded':
    case 'MapIterationFailed':
      return {
        type: event.type,
        detailsKey: `${event.type[0]!.toLowerCase()}${event.type.slice(1)}EventDetails`,
        details: { name: event.parentState.name, index: event.index },
      };
    default:
      return null;
  }
}

// Members whose text is execution data: left out when includeExecutionData is false.
const DATA_MEMBERS = new Set(['input', 'output']);

export class ExecutionHistory {
  private readonly recorded: HistoryEvent[] = [];

  constructor(private readonly roleArn: string) {}

  get events(): readonly HistoryEvent[] {
    return this.recorded;
  }

  /** Events kept from an earlier run (persisted-registry.ts), after which new ones are numbered. */
  restore(events: readonly HistoryEvent[]): void {
    this.recorded.push(...events);
  }

  record(event: EventLog): void {
    const translated = translate(event, this.roleArn);
    if (translated === null) return;
    const id = this.recorded.length + 1;
    this.recorded.push({ id, previousEventId: id - 1, timestamp: new Date(event.timestamp), ...translated });
  }
}

/** The event as the API answers it (timestamps as epoch seconds). */
export function historyEventResponse(event: HistoryEvent, includeExecutionData: boolean): Record<string, unknown> {
  const response: Record<string, unknown> = {
    id: event.id,
    previousEventId: event.previousEventId,
    timestamp: event.timestamp.getTime() / 1000,
    type: event.type,
  };
  if (event.detailsKey !== undefined && event.details !== undefined) {
    const details = includeExecutionData
      ? event.details
      : Object.fromEntries(Object.entries(event.details).filter(([key]) => !DATA_MEMBERS.has(key)));
    response[event.detailsKey] = details;
  }
  return response;
}
