// In-memory state machines and executions with the Step Functions rules for creating, starting and stopping them, for
// STANDARD and EXPRESS machines alike (express-machines.ts says what sets the latter apart).
import { randomUUID } from 'node:crypto';
import { StateMachine } from 'aws-local-stepfunctions';
import { SfnApiError } from './api-error.js';
import { prepareForLibrary } from './callback-tasks.js';
import { runExecution, type ExecutionOutcome, type ExecutionStatus, type JsonValue } from './execution-runner.js';
import { ExecutionHistory } from './execution-history.js';
import { assertExpressDefinition, withExpressTimeout } from './express-machines.js';
import { collectTaskResources, type LambdaHandlers } from './lambda-tasks.js';
import {
  assertNotExpressExecutionArn,
  executionArn,
  expressExecutionArn,
  stateMachineArn,
  validateName,
  type AccountScope,
} from './names-and-arns.js';
import { TaskTokens } from './task-tokens.js';
import { MAX_EXECUTION_PAYLOAD_BYTES } from '../../lambda/executor/step-functions-limits.js';

export type StateMachineType = 'STANDARD' | 'EXPRESS';

export interface MachineRecord {
  readonly seq: number;
  readonly arn: string;
  readonly name: string;
  readonly definition: string;
  readonly roleArn: string;
  readonly type: StateMachineType;
  readonly creationDate: Date;
  readonly runnable: StateMachine;
  readonly taskResources: ReadonlyMap<string, string>;
  /** Its tags, by key: TagResource and UntagResource change them in place, as they do in AWS. */
  readonly tags: Map<string, string>;
}

export interface ExecutionRecord {
  readonly seq: number;
  readonly arn: string;
  readonly name: string;
  readonly machine: MachineRecord;
  readonly input: string;
  readonly startDate: Date;
  /** What GetExecutionHistory answers: recorded as the run goes. */
  readonly history: ExecutionHistory;
  status: ExecutionStatus;
  stopDate?: Date;
  output?: string;
  error?: string;
  cause?: string;
  stop?: () => void;
  /** Resolves once the run has ended and the record holds its final state. */
  settled?: Promise<void>;
}

export interface CreateMachineRequest {
  readonly name: string;
  readonly definition: string;
  readonly roleArn: string;
  readonly type: StateMachineType;
  readonly tags?: ReadonlyMap<string, string>;
  /** Set only for a machine kept from an earlier run (persisted-registry.ts). @default now */
  readonly creationDate?: Date;
}

export interface StartExecutionRequest {
  readonly stateMachineArn: string;
  readonly name?: string;
  readonly input?: string;
}

function parseDefinition(
  definition: string,
  type: StateMachineType,
): { runnable: StateMachine; taskResources: Map<string, string> } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(definition);
  } catch (error) {
    throw new SfnApiError('InvalidDefinition', `Invalid State Machine Definition: '${(error as Error).message}'`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new SfnApiError(
      'InvalidDefinition',
      'Invalid State Machine Definition: the definition must be a JSON object',
    );
  }
  if (type === 'EXPRESS') assertExpressDefinition(parsed as Record<string, unknown>);
  try {
    // The constructor runs asl-validator (schema, reachability, JSONPath and ARN syntax) on the copy the library
    // runs, whose callback states are adjusted for it (callback-tasks.ts) and, for EXPRESS, whose run is held to 5
    // minutes; DescribeStateMachine shows the original.
    const prepared = prepareForLibrary(parsed as Record<string, unknown>);
    const runnable = new StateMachine(
      (type === 'EXPRESS' ? withExpressTimeout(prepared) : prepared) as unknown as ConstructorParameters<
        typeof StateMachine
      >[0],
    );
    return { runnable, taskResources: collectTaskResources(parsed) };
  } catch (error) {
    if (error instanceof SfnApiError) throw error;
    throw new SfnApiError('InvalidDefinition', `Invalid State Machine Definition: '${(error as Error).message}'`);
  }
}

/** What AWS answers an operation the machine's type does not have (StartSyncExecution of STANDARD, ...). */
function typeNotSupported(): SfnApiError {
  return new SfnApiError(
    'StateMachineTypeNotSupported',
    'This operation is not supported by this type of state machine',
  );
}

/** A start's name (a UUID when none is given) and input, checked as StartExecution and StartSyncExecution do. */
function checkedStart(request: StartExecutionRequest): { name: string; input: string; parsedInput: JsonValue } {
  const name = request.name ?? randomUUID();
  validateName(name);
  const input = request.input ?? '{}';
  if (Buffer.byteLength(input, 'utf8') > MAX_EXECUTION_PAYLOAD_BYTES) {
    throw new SfnApiError(
      'ValidationException',
      `1 validation error detected: Value at 'input' failed to satisfy constraint: Member must ` +
        `have length less than or equal to ${MAX_EXECUTION_PAYLOAD_BYTES}`,
    );
  }
  try {
    return { name, input, parsedInput: JSON.parse(input) as JsonValue };
  } catch (error) {
    throw new SfnApiError(
      'InvalidExecutionInput',
      `Invalid State Machine Execution Input: '${(error as Error).message}'`,
    );
  }
}

export class Registry {
  private readonly machines = new Map<string, MachineRecord>();
  // Keyed by ARN and kept after their machine is deleted, as AWS keeps closed executions describable (EXPRESS ones are
  // kept too, so that closing the emulator stops them, but never answered: see execution()).
  private readonly executions = new Map<string, ExecutionRecord>();
  private seq = 0;
  executionsStarted = 0;
  /**
   * Task tokens of `.waitForTaskToken` states, answered through SendTaskSuccess / SendTaskFailure / SendTaskHeartbeat.
   */
  readonly tokens = new TaskTokens();
  /** Called after each change to a machine (its tags included) or an execution: where a state file hooks in. */
  changed: () => void = () => {};

  constructor(
    private readonly scope: AccountScope,
    private readonly lambdas: LambdaHandlers,
    /** Told of each execution that ends by itself (not by StopExecution), as EventBridge would be. */
    private readonly onEnded: (executionArn: string) => void = () => {},
  ) {}

  createStateMachine(request: CreateMachineRequest): MachineRecord {
    validateName(request.name);
    const arn = stateMachineArn(this.scope, request.name);
    const existing = this.machines.get(arn);
    // AWS treats a repeat with the same definition and type as idempotent (roleArn differences are ignored).
    if (existing !== undefined) {
      if (existing.definition === request.definition && existing.type === request.type) return existing;
      throw new SfnApiError('StateMachineAlreadyExists', `State Machine Already Exists: '${arn}'`);
    }
    const { runnable, taskResources } = parseDefinition(request.definition, request.type);
    const record: MachineRecord = {
      ...request,
      seq: ++this.seq,
      arn,
      creationDate: request.creationDate ?? new Date(),
      runnable,
      taskResources,
      tags: new Map(request.tags),
    };
    this.machines.set(arn, record);
    this.changed();
    return record;
  }

  machine(arn: string): MachineRecord {
    const record = this.machines.get(arn);
    if (record === undefined) {
      throw new SfnApiError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${arn}'`);
    }
    return record;
  }

  listStateMachines(): MachineRecord[] {
    return [...this.machines.values()].sort((a, b) => a.seq - b.seq);
  }

  /** AWS deletes asynchronously and lets running executions finish; so does the emulator. Unknown ARNs succeed. */
  deleteStateMachine(arn: string): void {
    if (this.machines.delete(arn)) this.changed();
  }

  /**
   * StartExecution. A STANDARD execution's name is its idempotency key; an EXPRESS one (started asynchronously) gets an
   * ARN of its own however it is named, and is never describable.
   */
  startExecution(request: StartExecutionRequest): ExecutionRecord {
    const machine = this.machine(request.stateMachineArn);
    const { name, input, parsedInput } = checkedStart(request);
    if (machine.type === 'EXPRESS')
      return this.launch(
        machine,
        expressExecutionArn(this.scope, machine.name, name, randomUUID()),
        name,
        input,
        parsedInput,
      );
    const arn = executionArn(this.scope, machine.name, name);
    const existing = this.executions.get(arn);
    if (existing !== undefined) {
      // Standard workflows: an identical start of a still-running execution is answered with that execution.
      if (existing.status === 'RUNNING' && existing.input === input) return existing;
      throw new SfnApiError('ExecutionAlreadyExists', `Execution Already Exists: '${arn}'`);
    }
    return this.launch(machine, arn, name, input, parsedInput);
  }

  /**
   * StartSyncExecution: runs an EXPRESS execution and answers it once it has ended (SUCCEEDED, FAILED or TIMED_OUT; it
   * cannot be stopped). AWS refuses it for a STANDARD machine.
   */
  async startSyncExecution(request: StartExecutionRequest): Promise<ExecutionRecord> {
    const machine = this.machine(request.stateMachineArn);
    if (machine.type !== 'EXPRESS') throw typeNotSupported();
    const { name, input, parsedInput } = checkedStart(request);
    const arn = expressExecutionArn(this.scope, machine.name, name, randomUUID());
    const record = this.launch(machine, arn, name, input, parsedInput);
    await record.settled;
    return record;
  }

  private launch(
    machine: MachineRecord,
    arn: string,
    name: string,
    input: string,
    parsedInput: JsonValue,
  ): ExecutionRecord {
    const history = new ExecutionHistory(machine.roleArn);
    const record: ExecutionRecord = {
      seq: ++this.seq,
      arn,
      name,
      machine,
      input,
      startDate: new Date(),
      history,
      status: 'RUNNING',
    };
    this.executions.set(arn, record);
    this.executionsStarted += 1;
    this.changed();
    const scope = {
      executionArn: arn,
      lambdas: this.lambdas,
      tokens: this.tokens,
      startChild: (child: StartExecutionRequest) => this.startExecution(child),
    };
    const running = runExecution(
      machine.runnable,
      machine.taskResources,
      scope,
      parsedInput,
      {
        Execution: { Id: arn, Name: name, RoleArn: machine.roleArn, StartTime: record.startDate.toISOString() },
        StateMachine: { Id: machine.arn, Name: machine.name },
        Task: this.tokens.contextFor(arn),
      },
      (event) => history.record(event),
    );
    record.stop = running.stop;
    record.settled = running.outcome.then((outcome) => this.settle(record, outcome));
    return record;
  }

  private settle(record: ExecutionRecord, outcome: ExecutionOutcome): void {
    delete record.stop;
    this.tokens.closeExecution(record.arn);
    if (record.status !== 'RUNNING') return; // already stopped; the stop decided the final state
    Object.assign(record, outcome, { stopDate: new Date() });
    this.changed();
    this.onEnded(record.arn);
  }

  /** A STANDARD execution, as DescribeExecution, StopExecution and GetExecutionHistory find it. */
  execution(arn: string): ExecutionRecord {
    assertNotExpressExecutionArn(arn);
    const record = this.executions.get(arn);
    if (record === undefined) throw new SfnApiError('ExecutionDoesNotExist', `Execution Does Not Exist: '${arn}'`);
    return record;
  }

  /** Newest first, as AWS lists them. */
  listExecutions(machine: MachineRecord, statusFilter?: ExecutionStatus): ExecutionRecord[] {
    if (machine.type === 'EXPRESS') throw typeNotSupported();
    return [...this.executions.values()]
      .filter((e) => e.machine === machine && (statusFilter === undefined || e.status === statusFilter))
      .sort((a, b) => b.seq - a.seq);
  }

  /** A closed execution is left unchanged and its stopDate returned, as AWS does. */
  stopExecution(arn: string, error?: string, cause?: string): Date {
    return this.abort(this.execution(arn), error, cause);
  }

  private abort(record: ExecutionRecord, error?: string, cause?: string): Date {
    const { arn } = record;
    if (record.status === 'RUNNING') {
      record.status = 'ABORTED';
      record.stopDate = new Date();
      if (error !== undefined) record.error = error;
      if (cause !== undefined) record.cause = cause;
      this.tokens.closeExecution(arn);
      record.stop?.();
      this.changed();
    }
    return record.stopDate ?? new Date();
  }

  /** Every STANDARD execution, oldest first: what a state file keeps (EXPRESS ones are never described). */
  standardExecutions(): ExecutionRecord[] {
    return [...this.executions.values()].filter((e) => e.machine.type === 'STANDARD').sort((a, b) => a.seq - b.seq);
  }

  /** An ended execution kept from an earlier run (persisted-registry.ts); one whose machine is gone is dropped. */
  restoreExecution(saved: Omit<ExecutionRecord, 'seq' | 'machine' | 'stop' | 'settled'>, machineArn: string): void {
    const machine = this.machines.get(machineArn);
    if (machine === undefined) return;
    this.executions.set(saved.arn, { ...saved, seq: ++this.seq, machine, settled: Promise.resolve() });
  }

  /** Aborts every running execution; returns once their runs have let go of timers. */
  async stopAll(): Promise<void> {
    const running = [...this.executions.values()].filter((e) => e.status === 'RUNNING');
    for (const record of running) this.abort(record);
    await Promise.all(running.map((record) => record.settled));
  }
}
