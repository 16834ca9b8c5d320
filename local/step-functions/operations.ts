// The AWSStepFunctions.* operations: request members in, response members out (timestamps as epoch seconds).
import {
  SfnApiError,
  optionalEnum,
  optionalInteger,
  optionalString,
  requireString,
  type RequestBody,
} from './api-error.js';
import type { ExecutionStatus } from './execution-runner.js';
import { historyEventResponse } from './execution-history.js';
import { assertExecutionArn, assertStateMachineArn, epochSeconds } from './names-and-arns.js';
import type { ExecutionRecord, MachineRecord, Registry, StartExecutionRequest, StateMachineType } from './registry.js';
import { MAX_EXECUTION_PAYLOAD_BYTES } from '../../lambda/executor/step-functions-limits.js';

/** One operation: the request's members in, the response's out (StartSyncExecution answers when its run has ended). */
export type Operation = (body: RequestBody) => Record<string, unknown> | Promise<Record<string, unknown>>;

const STATUSES: readonly ExecutionStatus[] = ['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'];
const TYPES: readonly StateMachineType[] = ['STANDARD', 'EXPRESS'];
const DEFAULT_PAGE_SIZE = 100;
// The API's length limits for SendTask* members (taskToken, output in UTF-8 bytes, error, cause).
const MAX_TOKEN_LENGTH = 1024;
const MAX_ERROR_LENGTH = 256;
const MAX_CAUSE_LENGTH = 32_768;

/**
 * Token = sequence number of the last item returned, so pages stay stable while new executions are added.
 * Lists are ordered by sequence, ascending or descending.
 */
function page<T extends { readonly seq: number }>(
  items: readonly T[],
  body: RequestBody,
  descending: boolean,
): { items: T[]; nextToken?: string } {
  const size = optionalInteger(body, 'maxResults', 0, 1000) || DEFAULT_PAGE_SIZE;
  const token = optionalString(body, 'nextToken');
  let rest = items;
  if (token !== undefined) {
    let after: unknown;
    try {
      after = (JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { after?: unknown }).after;
    } catch {
      after = undefined;
    }
    if (typeof after !== 'number') throw new SfnApiError('InvalidToken', `Invalid Token: '${token}'`);
    rest = items.filter((item) => (descending ? item.seq < after : item.seq > after));
  }
  const selected = rest.slice(0, size);
  const last = selected.at(-1);
  if (rest.length <= size || last === undefined) return { items: selected };
  return { items: selected, nextToken: Buffer.from(JSON.stringify({ after: last.seq })).toString('base64url') };
}

function machineSummary(m: MachineRecord): Record<string, unknown> {
  return { stateMachineArn: m.arn, name: m.name, type: m.type, creationDate: epochSeconds(m.creationDate) };
}

function executionSummary(e: ExecutionRecord): Record<string, unknown> {
  return {
    executionArn: e.arn,
    stateMachineArn: e.machine.arn,
    name: e.name,
    status: e.status,
    startDate: epochSeconds(e.startDate),
    ...(e.stopDate === undefined ? {} : { stopDate: epochSeconds(e.stopDate) }),
  };
}

/** StartSyncExecution's answer: the ended execution, its output only when it SUCCEEDED (a 200 answer either way). */
function syncExecutionResult(e: ExecutionRecord): Record<string, unknown> {
  return {
    executionArn: e.arn,
    stateMachineArn: e.machine.arn,
    name: e.name,
    startDate: epochSeconds(e.startDate),
    stopDate: epochSeconds(e.stopDate ?? new Date()),
    status: e.status,
    input: e.input,
    inputDetails: { included: true },
    ...(e.output === undefined ? {} : { output: e.output, outputDetails: { included: true } }),
    ...(e.error === undefined ? {} : { error: e.error }),
    ...(e.cause === undefined ? {} : { cause: e.cause }),
  };
}

function tooLong(field: string, limit: number): SfnApiError {
  return new SfnApiError(
    'ValidationException',
    `1 validation error detected: Value at '${field}' failed to satisfy constraint: ` +
      `Member must have length less than or equal to ${limit}`,
  );
}

function taskTokenOf(body: RequestBody): string {
  const token = requireString(body, 'taskToken');
  if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) throw tooLong('taskToken', MAX_TOKEN_LENGTH);
  return token;
}

function limited(body: RequestBody, field: string, limit: number): string | undefined {
  const value = optionalString(body, field);
  if (value !== undefined && value.length > limit) throw tooLong(field, limit);
  return value;
}

function machineArnOf(body: RequestBody): string {
  const arn = requireString(body, 'stateMachineArn');
  assertStateMachineArn(arn);
  return arn;
}

function startRequestOf(body: RequestBody): StartExecutionRequest {
  const name = optionalString(body, 'name');
  const input = optionalString(body, 'input');
  return {
    stateMachineArn: machineArnOf(body),
    ...(name === undefined ? {} : { name }),
    ...(input === undefined ? {} : { input }),
  };
}

function executionArnOf(body: RequestBody): string {
  const arn = requireString(body, 'executionArn');
  assertExecutionArn(arn);
  return arn;
}

function resourceArnOf(body: RequestBody): string {
  const arn = requireString(body, 'resourceArn');
  assertStateMachineArn(arn);
  return arn;
}

/** A request's `tags` ([{key, value}], absent for none), checked against the Tagging API's lengths. */
function tagsOf(body: RequestBody): Map<string, string> {
  const tags = body['tags'] ?? [];
  const valid = (tag: unknown): tag is { key: string; value: string } => {
    const { key, value } = (tag ?? {}) as { key?: unknown; value?: unknown };
    return (
      typeof key === 'string' &&
      key.length >= 1 &&
      key.length <= 128 &&
      typeof value === 'string' &&
      value.length <= 256
    );
  };
  if (!Array.isArray(tags) || !tags.every(valid))
    throw new SfnApiError('ValidationException', 'tags must be a list of {key (1-128 characters), value (0-256)}');
  return new Map(tags.map((tag) => [tag.key, tag.value]));
}

export function createOperations(registry: Registry): Readonly<Record<string, Operation>> {
  return {
    CreateStateMachine: (body) => {
      const roleArn = requireString(body, 'roleArn');
      if (!roleArn.startsWith('arn:')) throw new SfnApiError('InvalidArn', `Invalid Arn: '${roleArn}'`);
      const machine = registry.createStateMachine({
        name: requireString(body, 'name'),
        definition: requireString(body, 'definition'),
        roleArn,
        type: optionalEnum(body, 'type', TYPES) ?? 'STANDARD',
        tags: tagsOf(body),
      });
      return { stateMachineArn: machine.arn, creationDate: epochSeconds(machine.creationDate) };
    },

    DescribeStateMachine: (body) => {
      const m = registry.machine(machineArnOf(body));
      return { ...machineSummary(m), status: 'ACTIVE', definition: m.definition, roleArn: m.roleArn };
    },

    ListStateMachines: (body) => {
      const { items, nextToken } = page(registry.listStateMachines(), body, false);
      return { stateMachines: items.map(machineSummary), ...(nextToken === undefined ? {} : { nextToken }) };
    },

    // Tags of state machines only: the emulator has no activities.
    TagResource: (body) => {
      const { tags } = registry.machine(resourceArnOf(body));
      for (const [key, value] of tagsOf(body)) tags.set(key, value);
      registry.changed();
      return {};
    },

    UntagResource: (body) => {
      const { tags } = registry.machine(resourceArnOf(body));
      const keys = body['tagKeys'];
      if (!Array.isArray(keys) || keys.some((key) => typeof key !== 'string'))
        throw new SfnApiError('ValidationException', 'tagKeys must be a list of strings');
      for (const key of keys as string[]) tags.delete(key);
      registry.changed();
      return {};
    },

    ListTagsForResource: (body) => ({
      tags: [...registry.machine(resourceArnOf(body)).tags].map(([key, value]) => ({ key, value })),
    }),

    DeleteStateMachine: (body) => {
      registry.deleteStateMachine(machineArnOf(body));
      return {};
    },

    StartExecution: (body) => {
      const e = registry.startExecution(startRequestOf(body));
      return { executionArn: e.arn, startDate: epochSeconds(e.startDate) };
    },

    StartSyncExecution: async (body) => syncExecutionResult(await registry.startSyncExecution(startRequestOf(body))),

    DescribeExecution: (body) => {
      const e = registry.execution(executionArnOf(body));
      return {
        ...executionSummary(e),
        input: e.input,
        inputDetails: { included: true },
        ...(e.output === undefined ? {} : { output: e.output, outputDetails: { included: true } }),
        ...(e.error === undefined ? {} : { error: e.error }),
        ...(e.cause === undefined ? {} : { cause: e.cause }),
      };
    },

    StopExecution: (body) => {
      const arn = executionArnOf(body);
      const stopDate = registry.stopExecution(arn, optionalString(body, 'error'), optionalString(body, 'cause'));
      return { stopDate: epochSeconds(stopDate) };
    },

    SendTaskSuccess: (body) => {
      const taskToken = taskTokenOf(body);
      const output = requireString(body, 'output');
      if (Buffer.byteLength(output, 'utf8') > MAX_EXECUTION_PAYLOAD_BYTES)
        throw tooLong('output', MAX_EXECUTION_PAYLOAD_BYTES);
      registry.tokens.succeed(taskToken, output);
      return {};
    },

    SendTaskFailure: (body) => {
      const taskToken = taskTokenOf(body);
      registry.tokens.fail(
        taskToken,
        limited(body, 'error', MAX_ERROR_LENGTH),
        limited(body, 'cause', MAX_CAUSE_LENGTH),
      );
      return {};
    },

    SendTaskHeartbeat: (body) => {
      registry.tokens.heartbeat(taskTokenOf(body));
      return {};
    },

    GetExecutionHistory: (body) => {
      const history = registry.execution(executionArnOf(body)).history;
      const descending = body['reverseOrder'] === true;
      const includeData = body['includeExecutionData'] !== false;
      // Paged by event ID, which page() takes as the sequence, so a page stays stable as the run adds events.
      const events = history.events.map((event) => ({ seq: event.id, event }));
      const { items, nextToken } = page(descending ? [...events].reverse() : events, body, descending);
      return {
        events: items.map(({ event }) => historyEventResponse(event, includeData)),
        ...(nextToken === undefined ? {} : { nextToken }),
      };
    },

    ListExecutions: (body) => {
      const machine = registry.machine(machineArnOf(body));
      const statusFilter = optionalEnum(body, 'statusFilter', STATUSES);
      const { items, nextToken } = page(registry.listExecutions(machine, statusFilter), body, true);
      return { executions: items.map(executionSummary), ...(nextToken === undefined ? {} : { nextToken }) };
    },
  };
}
