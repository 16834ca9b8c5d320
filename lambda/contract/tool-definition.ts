// What a tool is: a name, a description, the JSON Schema of its input, how it may run as a task, and the workflow that
// runs it (a state machine, or a Lambda durable function).
import { stepFunctionsWorkflow, WorkflowEngine, type Workflow } from './workflow-engine.js';

export type JsonSchema = { readonly type: 'object' } & Readonly<Record<string, unknown>>;

/** Whether a call may (`optional`), must (`required`) or must not (`forbidden`) run as a task. */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

export const TASK_SUPPORT_VALUES: readonly TaskSupport[] = ['forbidden', 'optional', 'required'];

/**
 * The `$schema` values an inputSchema may name. Without `$schema` a schema is 2020-12, MCP's default dialect.
 * Arguments are validated in the dialect named, so a schema in any other dialect could not be checked.
 */
export const JSON_SCHEMA_DIALECTS = {
  draft2020_12: 'https://json-schema.org/draft/2020-12/schema',
  draft07: 'http://json-schema.org/draft-07/schema',
} as const;

export type JsonSchemaDialect = keyof typeof JSON_SCHEMA_DIALECTS;

/** The dialect a schema's `$schema` names (a trailing empty fragment `#` ignored); undefined for one not supported. */
export function jsonSchemaDialect(schema: JsonSchema): JsonSchemaDialect | undefined {
  const named = schema['$schema'];
  if (named === undefined) return 'draft2020_12';
  if (typeof named !== 'string') return undefined;
  const uri = named.endsWith('#') ? named.slice(0, -1) : named;
  if (uri === JSON_SCHEMA_DIALECTS.draft2020_12) return 'draft2020_12';
  if (uri === JSON_SCHEMA_DIALECTS.draft07) return 'draft07';
  return undefined;
}

/** A tool as clients see it, before the workflow that runs it (which only a deployment knows) is added. */
export interface ToolDescription {
  /** MCP tool name: 1-128 characters of `A-Za-z0-9_-.`. */
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  /** JSON Schema (draft 2020-12, the default, or 07) for the tool's arguments; must describe an object. */
  readonly inputSchema: JsonSchema;
  /**
   * Advertised in tools/list as MCP's `execution.taskSupport`: whether a client may (`optional`), must
   * (`required`) or must not (`forbidden`) call the tool as a task. A `forbidden` tool always answers the call
   * itself; a `required` one is refused to a client that cannot take a task.
   * @default 'optional' (any state machine can run as a task)
   */
  readonly taskSupport?: TaskSupport;
  /**
   * Client capabilities the tool's workflow relies on, in MCP's ClientCapabilities shape (e.g. `{ "sampling": {} }`
   * for a workflow that asks the client's model): a modern-era call that does not declare them is refused (-32021).
   */
  readonly requiredClientCapabilities?: Readonly<Record<string, object>>;
  /**
   * Ask first, then become a task (SEP-2663 MRTR composition): a call from a client that declares the Tasks
   * extension runs inline until the workflow's questions are answered (`input_required` rounds, SEP-2322), and only
   * the round that delivers the last answer returns the task. @default false (such a call is a task at once)
   */
  readonly inputBeforeTask?: boolean;
}

/** A tool run by Step Functions: every tool but a durable function's. */
export interface StepFunctionsToolDefinition extends ToolDescription {
  /**
   * The STANDARD state machine a task of the tool runs: the tool's own, or, for an EXPRESS tool, the STANDARD wrapper
   * around it (express-wrapper.ts).
   */
  readonly stateMachineArn: string;
  /**
   * An EXPRESS tool's own machine: a plain tools/call runs it with StartSyncExecution (5 minutes at most) and makes no
   * task, while a task runs {@link stateMachineArn}, the wrapper. @default - none (a plain call runs
   * `stateMachineArn` as a task that the call waits on)
   */
  readonly expressStateMachineArn?: string;
  readonly durableFunctionArn?: never;
}

/** A tool run by a Lambda durable function: each task is one durable execution of it. */
export interface DurableToolDefinition extends ToolDescription {
  /** The function's qualified ARN (a version or an alias): Lambda starts durable executions only of those. */
  readonly durableFunctionArn: string;
  readonly stateMachineArn?: never;
  readonly expressStateMachineArn?: never;
}

/** What a tool is, and what runs it: a state machine (the default, as every tool stored before) or a function. */
export type ToolDefinition = StepFunctionsToolDefinition | DurableToolDefinition;

/** The workflow a task of the tool runs, named by its engine. */
export function workflowOfTool(tool: ToolDefinition): Workflow {
  return tool.durableFunctionArn !== undefined
    ? { engine: WorkflowEngine.DurableFunctions, arn: tool.durableFunctionArn }
    : stepFunctionsWorkflow(tool.stateMachineArn);
}

const MCP_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * What is wrong with `name` as the MCP name of one of a set of tools or prompts (both are named alike), recording it
 * in `seen` so that a second use is caught.
 */
export function nameProblems(kind: 'Tool' | 'Prompt', name: string, seen: Set<string>): string[] {
  const problems: string[] = [];
  if (!MCP_NAME.test(name))
    problems.push(`${kind} name '${name}' must be 1-128 characters of A-Z, a-z, 0-9, '_', '-' or '.'`);
  if (seen.has(name)) problems.push(`${kind} name '${name}' is registered more than once`);
  seen.add(name);
  return problems;
}

/**
 * The tools every endpoint serves itself, so that a client without tasks can follow a call handed off to it as a task:
 * no registered or discovered tool may take these names.
 */
export const STATUS_TOOL_NAMES = { status: 'task_status', result: 'task_result', cancel: 'task_cancel' } as const;

/**
 * The app-only tools the task view (an MCP App) polls, answers and cancels through: hosts keep them from the model,
 * and the endpoint serves them itself, so no registered or discovered tool may take these names either.
 */
export const TASK_VIEW_TOOL_NAMES = {
  get: 'task_view_get',
  answer: 'task_view_answer',
  cancel: 'task_view_cancel',
} as const;

const RESERVED_TOOL_NAMES: ReadonlySet<string> = new Set([
  ...Object.values(STATUS_TOOL_NAMES),
  ...Object.values(TASK_VIEW_TOOL_NAMES),
]);

/** Every problem with a set of tool definitions, so a deploy or start fails once with the whole list. */
export function toolDefinitionProblems(
  tools: readonly Pick<ToolDefinition, 'name' | 'inputSchema' | 'taskSupport'>[],
): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const tool of tools) {
    problems.push(...nameProblems('Tool', tool.name, seen));
    if (RESERVED_TOOL_NAMES.has(tool.name))
      problems.push(
        `Tool name '${tool.name}' is reserved: the endpoint serves it to follow tasks (status tools, task view)`,
      );
    if (tool.inputSchema?.type !== 'object') {
      problems.push(`Tool '${tool.name}': inputSchema must be a JSON Schema with "type": "object"`);
    } else if (jsonSchemaDialect(tool.inputSchema) === undefined) {
      problems.push(
        `Tool '${tool.name}': inputSchema.$schema ${JSON.stringify(tool.inputSchema['$schema'])} ` +
          `is not a supported dialect (omit it, or name ` +
          `${Object.values(JSON_SCHEMA_DIALECTS).join(' or ')})`,
      );
    }
    if (tool.taskSupport !== undefined && !TASK_SUPPORT_VALUES.includes(tool.taskSupport)) {
      problems.push(
        `Tool '${tool.name}': taskSupport ${JSON.stringify(tool.taskSupport)} must be one of ` +
          `${TASK_SUPPORT_VALUES.map((value) => `'${value}'`).join(', ')}`,
      );
    }
  }
  return problems;
}
